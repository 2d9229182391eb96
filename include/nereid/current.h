// Copyright Nereid authors.
// Water current: a world-frame velocity field, constant, piecewise-linear in time, or
// piecewise-linear in depth. World frame is MuJoCo's (z up, free surface at z = 0);
// depth is -z. Outside the knots a profile holds its end values.
#ifndef NEREID_CURRENT_H_
#define NEREID_CURRENT_H_

#include <memory>
#include <string>
#include <vector>

#include "nereid/frames.h"
#include "nereid/waves.h"

namespace nereid {

// The current at one place and time, with the derivatives the added-mass term needs.
struct CurrentSample {
  Vec3 velocity = Vec3::Zero();  // world frame, m/s
  Vec3 d_dt = Vec3::Zero();      // partial derivative in time, m/s^2
  Vec3 d_dz = Vec3::Zero();      // partial derivative along world z, 1/s
  Mat3 d_dx = Mat3::Zero();      // the waves' gradient dv_i/dx_j, 1/s (the current's is d_dz)
  double elevation = 0;          // the waves' free surface above the point's (x, y), world z, m
};

class CurrentField {
 public:
  enum class Kind { kConstant, kTime, kDepth };

  // The one grammar of a current, read from a model's nereid.current <config> and from a
  // scenario's "current" alike: exactly one of these keys (Kind order); a profile is rows
  // (knot, vx, vy, vz) whose knots are strictly increasing, depths >= 0 (m below the surface).
  static constexpr const char* kKeys[3] = {"velocity", "time_profile", "depth_profile"};
  static const char* Key(Kind kind) { return kKeys[static_cast<int>(kind)]; }
  // The first knot (index) that breaks those rules, with the rule in `rule`; -1 if none.
  static long BadKnot(Kind kind, const std::vector<double>& knots, std::string* rule);

  // Zero current.
  CurrentField() = default;
  static CurrentField Constant(const Vec3& velocity);
  // Knots are times (s), strictly increasing; one velocity per knot. Throws ConfigError
  // naming `where` if the knots are empty, unsorted or mismatched.
  static CurrentField TimeProfile(std::vector<double> times, std::vector<Vec3> velocities,
                                  const std::string& where = "current time_profile");
  // Knots are depths (m, positive down), strictly increasing.
  static CurrentField DepthProfile(std::vector<double> depths, std::vector<Vec3> velocities,
                                   const std::string& where = "current depth_profile");

  // Makes this a constant field in place (no allocation once it has held one value).
  void SetConstant(const Vec3& velocity);

  // The current alone (no waves) at a depth.
  CurrentSample Evaluate(double time, double z_world) const;
  // The field at a world point: the current at p.z() plus the waves' orbital velocity (to
  // `velocity`), acceleration (the local derivative, to `d_dt`) and velocity gradient (to
  // `d_dx`) at p (docs/waves.md).
  CurrentSample Evaluate(double time, const Vec3& p) const;
  // Evaluate(time, p).velocity alone, bit for bit, at less cost with waves.
  Vec3 Velocity(double time, const Vec3& p) const;
  // The free-surface elevation eta (world z, m) above (x, y) at `time`: the waves' (0 in
  // calm water). The buoyancy plugin's waterline; the surface nereid-view draws.
  double Elevation(double time, double x, double y) const {
    return waves_ ? waves_->Elevation(x, y, time) : 0.0;
  }
  Kind kind() const { return kind_; }
  bool is_zero() const;  // no current and no waves

  // Surface waves carried by the field (calm by default); a calm field removes them.
  void SetWaves(waves::WaveField waves);
  const waves::WaveField* waves() const { return waves_.get(); }  // nullptr: calm
  const std::shared_ptr<const waves::WaveField>& shared_waves() const { return waves_; }
  // Takes `other`'s waves (shared, not copied): replacing the steady current keeps them.
  void ShareWaves(const CurrentField& other) { waves_ = other.waves_; }

 private:
  static CurrentField Profile(Kind kind, std::vector<double> knots, std::vector<Vec3> velocities,
                              const std::string& where);

  Kind kind_ = Kind::kConstant;
  std::vector<double> knots_;
  std::vector<Vec3> values_{Vec3::Zero()};
  std::shared_ptr<const waves::WaveField> waves_;  // immutable once set: copies share it
};

}  // namespace nereid

#endif  // NEREID_CURRENT_H_
