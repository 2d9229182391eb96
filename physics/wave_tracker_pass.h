// Copyright Nereid authors.
// The inner loop of waves::Tracker (include/nereid/waves.h): one pass over a sea's
// components, four at a time, compiled twice (wave_tracker_pass.cc for any x86-64 or other
// CPU, wave_tracker_pass_avx2.cc with AVX2 and FMA) and chosen at run time. The AVX2 build
// fuses multiply-adds, so the two differ in the last bits (both tested against WaveField::At
// and against each other, tests/physics/waves_test.cc).
#ifndef NEREID_PHYSICS_WAVE_TRACKER_PASS_H_
#define NEREID_PHYSICS_WAVE_TRACKER_PASS_H_

#include <cstddef>

namespace nereid::waves::detail {

// Structure of arrays, n a multiple of 4 (padded with silent components: amplitude 0).
struct PassArrays {
  std::size_t n = 0;
  // per component: k cos b, k sin b, k, w, cos b, sin b, a, a w, a w^2, a k, a w k, a w^2 k
  const double *kc, *ks, *k, *w, *cb, *sb, *a, *aw, *aw2, *ak, *awk, *aw2k;
  double *c, *s, *f, *g;  // the state: cos, sin of the phase; depth factors F, G
  double k_max = 0, w_max = 0;  // the largest k and w (they bound the increments)
};

// With `advance`, turns each component's phase through k (dx cos b + dy sin b) - w dt and
// scales F and G by e^{+-k dz} (Taylor series as long as the largest increment needs:
// 6e-17 of the result left out at most; false, the state then stale, if any
// increment exceeds max_increment), then sums into `sum` the 21 numbers of LocalWaves:
//  0 a c; 1-2 a k s (cos b, sin b); 3-4 a w ch c (cos b, sin b); 5 a w sh s;
//  6-7 a w^2 ch s (cos b, sin b); 8 a w^2 sh c; 9-12 a w k ch s (cos^2 b, cos b sin b,
//  sin^2 b, 1); 13-14 a w k sh c (cos b, sin b); 15-18 a w^2 k ch c (cos^2 b, cos b sin b,
//  sin^2 b, 1); 19-20 a w^2 k sh s (cos b, sin b)
// with c, s the cosine and sine of the phase, ch = F + G, sh = F - G. one_direction: every
// component has direction (cb[0], sb[0]) (10 sums, the direction applied at the end).
bool Pass(const PassArrays& x, bool advance, bool one_direction, const double delta[3], double dt,
          double max_increment, double sum[21]);
bool PassAvx2(const PassArrays& x, bool advance, bool one_direction, const double delta[3], double dt,
              double max_increment, double sum[21]);
bool HaveAvx2();  // PassAvx2 was built, this CPU runs it, and AllowAvx2 did not turn it off
void AllowAvx2(bool allow);  // for tests: false runs the portable build (default true)

}  // namespace nereid::waves::detail

#endif  // NEREID_PHYSICS_WAVE_TRACKER_PASS_H_
