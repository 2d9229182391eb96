// Copyright Nereid authors.
// waves::detail::Pass for any CPU (wave_tracker_pass.h); HaveAvx2 chooses the other build.
#include <algorithm>
#include <atomic>
#include <cmath>

#include "wave_tracker_pass.h"

#define NEREID_PASS_NAME Pass
#include "wave_tracker_pass.inc"

namespace nereid::waves::detail {

namespace {
std::atomic<bool> avx2_allowed{true};
}  // namespace

void AllowAvx2(bool allow) { avx2_allowed.store(allow, std::memory_order_relaxed); }

#if defined(NEREID_WAVES_AVX2)
bool HaveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return have && avx2_allowed.load(std::memory_order_relaxed);
}
#else
bool HaveAvx2() { return false; }
bool PassAvx2(const PassArrays& x, bool advance, bool one_direction, const double delta[3], double dt,
              double max_increment, double sum[21]) {
  return Pass(x, advance, one_direction, delta, dt, max_increment, sum);
}
#endif

}  // namespace nereid::waves::detail
