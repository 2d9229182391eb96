// Copyright Nereid authors.
// Vehicle control: the cascaded PID of seed 002 appendix A (pose error -> commanded
// velocity -> commanded acceleration -> body wrench tau = M a, with M the full rigid plus
// added mass -> thrust allocation -> thruster commands), and a path follower on top.
//
// Frames: everything the controller computes is in the vehicle's MuJoCo body frame (FLU)
// about the body origin, Fossen-ordered [linear; angular]; references are world poses.
#ifndef NEREID_CONTROL_H_
#define NEREID_CONTROL_H_

#include <vector>

#include <Eigen/Geometry>
#include <mujoco/mujoco.h>

#include "nereid/allocation.h"
#include "nereid/frames.h"

namespace nereid {

class Simulation;

// M_RB + M_A of `body` about its origin, MuJoCo body frame, [lin; ang] (6 x 6).
Mat6 VehicleMassMatrix(const Simulation& sim, int body);

// A PID on a 6-vector with per-component gains, integrator clamping (anti-windup) and
// output limits. The derivative acts on the measurement's rate (no derivative kick).
struct Pid6 {
  Vec6 kp = Vec6::Zero(), ki = Vec6::Zero(), kd = Vec6::Zero();
  Vec6 output_limit = Vec6::Constant(std::numeric_limits<double>::infinity());
  Vec6 integral = Vec6::Zero();

  // error: reference minus measurement; error_rate: its time derivative
  Vec6 Update(const Vec6& error, const Vec6& error_rate, double dt);
  void Reset() { integral.setZero(); }
};

struct CascadedPidGains {
  double position_p = 3, position_i = 0.3, position_d = 0.5;   // linear, pose loop
  double attitude_p = 3, attitude_i = 0.3, attitude_d = 0.5;   // angular, pose loop
  double velocity_p = 8, velocity_i = 2, velocity_d = 0.2;     // linear, velocity loop
  double rate_p = 5, rate_i = 2, rate_d = 0.2;                 // angular, velocity loop
  Vec6 velocity_limit = Vec6::Constant(0.5);   // |u v w| m/s, |p q r| rad/s
  Vec6 acceleration_limit = Vec6::Constant(std::numeric_limits<double>::infinity());

  // seed 002 Table A.1 (gains) and eq. 4.3 (velocity limits), the defaults above
  static CascadedPidGains Raybot() { return {}; }
};

class CascadedPid {
 public:
  CascadedPid(const Simulation& sim, int body, const CascadedPidGains& gains = {});

  // One control update towards the world pose (p_ref, q_ref): sets the thrusters' ctrl.
  // Returns the body wrench asked of the allocation.
  Vec6 Update(const mjModel* m, mjData* d, const Vec3& p_ref, const Eigen::Quaterniond& q_ref,
              double dt);
  void Reset();

  const ThrusterSet& thrusters() const { return thrusters_; }
  const Vec6& velocity_command() const { return velocity_command_; }
  const Eigen::VectorXd& thrust() const { return thrust_; }

 private:
  int body_;
  Mat6 mass_;
  ThrusterSet thrusters_;
  Pid6 pose_, velocity_;
  Vec6 velocity_command_ = Vec6::Zero();
  Vec6 previous_velocity_error_ = Vec6::Zero();
  bool first_ = true;
  Eigen::VectorXd thrust_;
};

// Pose error of `body` to (p_ref, q_ref) in the body frame: [R^T (p_ref - p); rotation
// vector of R^T R_ref].
Vec6 PoseError(const mjData* d, int body, const Vec3& p_ref, const Eigen::Quaterniond& q_ref);

}  // namespace nereid

#endif  // NEREID_CONTROL_H_
