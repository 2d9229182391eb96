// Copyright Nereid authors.
// Udwadia-Kalaba (UK) constraints (docs/design.md, "UK constraints"; src/uk/README.md): rigid
// connections between free-joint bodies, enforced exactly at the acceleration level by
// Gauss's principle with the engine's full inertia (added mass included), as an
// alternative to MuJoCo's soft weld equality constraints.
//
// Declaration in MJCF: a <weld> equality whose name starts with "uk:" between two bodies
// that each move by one free joint, e.g.
//   <weld name="uk:dock" body1="rovA" body2="rovB" anchor="0 0.5 0"/>
// With SimulationOptions::constraints == ConstraintMethod::kMuJoCo (the default) it is an
// ordinary MuJoCo weld; with kUK Nereid deactivates the weld in MuJoCo and enforces the
// same geometry (anchor, relpose, the weld's own conventions) by UK. `active="false"`
// declares a docking port that is connected at run time (Simulation::Connect).
#ifndef NEREID_UK_H_
#define NEREID_UK_H_

#include <string>
#include <string_view>

#include <Eigen/Core>

#include "nereid/names.h"

namespace nereid {

enum class ConstraintMethod {
  kMuJoCo,  // "uk:" welds are MuJoCo weld equality constraints (soft, solref/solimp)
  kUK,      // "uk:" welds are enforced by the Udwadia-Kalaba projection
};
inline constexpr std::array<Named<ConstraintMethod>, 2> kConstraintMethodNames{
    {{ConstraintMethod::kMuJoCo, "mujoco"}, {ConstraintMethod::kUK, "uk"}}};
inline std::string_view ToString(ConstraintMethod method) { return NameOf(kConstraintMethodNames, method); }
inline bool ParseConstraintMethod(std::string_view text, ConstraintMethod* method) {
  return ParseName(kConstraintMethodNames, text, method);
}

// The name prefix that marks a weld for UK.
inline constexpr std::string_view kUKWeldPrefix = "uk:";

struct UKOptions {
  // Baumgarte stabilisation in every force evaluation: the constraint is
  //   cddot + 2 zeta omega cdot + omega^2 c = 0.  omega <= 0 turns it off.
  double baumgarte_omega = 10.0;  // rad/s
  double baumgarte_zeta = 1.0;
  // Post-step projection (after each integrator step): Gauss-Newton projection of the
  // positions onto c = 0 and one M-orthogonal projection of the velocities onto cdot = 0.
  bool project = true;
  int projection_iterations = 3;
  double projection_tolerance = 1e-12;  // m and rad; iterations stop below it
  // Pseudo-inverse: relative Tikhonov parameter of the block-sparse path (the refined
  // solution converges to the minimum-norm one), or the relative singular-value cutoff of
  // the dense path.
  double regularisation = 1e-10;
  // true: assemble the whole system densely and use SVD (reference path; O(n^3)).
  bool dense = false;
};

// One connection's state after the last force evaluation.
struct ConnectionReport {
  std::string name;      // the weld's name
  int equality = -1;     // MuJoCo equality id
  int body1 = -1, body2 = -1;
  bool active = false;
  Eigen::Vector3d point = Eigen::Vector3d::Zero();   // connection point s (world)
  Eigen::Vector3d force = Eigen::Vector3d::Zero();   // constraint force on body1 at s (world, N)
  Eigen::Vector3d torque = Eigen::Vector3d::Zero();  // constraint couple on body1 (world, N m)
  double position_error = 0;  // |s1 - s2|, m
  double angle_error = 0;     // relative orientation error, rad
};

}  // namespace nereid

#endif  // NEREID_UK_H_
