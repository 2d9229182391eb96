// Copyright Nereid authors.
// Water current: a world-frame velocity field, constant, piecewise-linear in time, or
// piecewise-linear in depth. World frame is MuJoCo's (z up, free surface at z = 0);
// depth is -z. Outside the knots a profile holds its end values.
#ifndef NEREID_CURRENT_H_
#define NEREID_CURRENT_H_

#include <string>
#include <vector>

#include "nereid/frames.h"

namespace nereid {

// The current at one place and time, with the derivatives the added-mass term needs.
struct CurrentSample {
  Vec3 velocity = Vec3::Zero();  // world frame, m/s
  Vec3 d_dt = Vec3::Zero();      // partial derivative in time, m/s^2
  Vec3 d_dz = Vec3::Zero();      // partial derivative along world z, 1/s
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

  CurrentSample Evaluate(double time, double z_world) const;
  Kind kind() const { return kind_; }
  bool is_zero() const;

 private:
  static CurrentField Profile(Kind kind, std::vector<double> knots, std::vector<Vec3> velocities,
                              const std::string& where);

  Kind kind_ = Kind::kConstant;
  std::vector<double> knots_;
  std::vector<Vec3> values_{Vec3::Zero()};
};

}  // namespace nereid

#endif  // NEREID_CURRENT_H_
