// Copyright Nereid authors.
#include "nereid/control.h"

#include <algorithm>
#include <cmath>

#include "nereid/fossen.h"
#include "nereid/kinematics.h"
#include "nereid/simulation.h"

namespace nereid {

Mat6 VehicleMassMatrix(const Simulation& sim, int body) {
  const mjModel* m = sim.model();
  const double mass = m->body_mass[body];
  const Vec3 r_g(m->body_ipos[3 * body], m->body_ipos[3 * body + 1], m->body_ipos[3 * body + 2]);
  mjtNum R[9];
  mju_quat2Mat(R, m->body_iquat + 4 * body);
  const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R_i(R);
  const Vec3 principal(m->body_inertia[3 * body], m->body_inertia[3 * body + 1],
                       m->body_inertia[3 * body + 2]);
  const Mat3 I_c = R_i * principal.asDiagonal() * R_i.transpose();
  const Mat3 S = fossen::Skew(r_g);
  Mat6 M = Mat6::Zero();  // Fossen 2011 eq. 3.44, about the body origin
  M.topLeftCorner<3, 3>() = mass * Mat3::Identity();
  M.topRightCorner<3, 3>() = -mass * S;
  M.bottomLeftCorner<3, 3>() = mass * S;
  M.bottomRightCorner<3, 3>() = I_c - mass * S * S;
  for (const AddedMassBody& block : sim.added_mass_bodies()) {
    if (block.body == body) M += block.added_mass;
  }
  return M;
}

Vec6 Pid6::Update(const Vec6& error, const Vec6& error_rate, double dt) {
  Vec6 out;
  for (int i = 0; i < 6; ++i) {
    const double integral_next = integral[i] + error[i] * dt;
    double u = kp[i] * error[i] + ki[i] * integral_next + kd[i] * error_rate[i];
    const double limit = output_limit[i];
    const bool saturated = std::abs(u) > limit;
    // anti-windup: integrate only while the output is not pushed further into saturation
    if (!saturated || (u > 0) != (error[i] > 0)) integral[i] = integral_next;
    u = kp[i] * error[i] + ki[i] * integral[i] + kd[i] * error_rate[i];
    out[i] = std::clamp(u, -limit, limit);
  }
  return out;
}

Vec6 PoseError(const mjData* d, int body, const Vec3& p_ref, const Eigen::Quaterniond& q_ref) {
  const Mat3 R = BodyRotation(d, body);
  const Vec3 p = BodyPosition(d, body);
  const Eigen::AngleAxisd rotation(Eigen::Quaterniond(R.transpose() * q_ref.toRotationMatrix()));
  Vec6 e;
  e << R.transpose() * (p_ref - p), rotation.angle() * rotation.axis();
  return e;
}

CascadedPid::CascadedPid(const Simulation& sim, int body, const CascadedPidGains& g)
    : body_(body), mass_(VehicleMassMatrix(sim, body)), thrusters_(FindThrusters(sim.model(), body)) {
  pose_.kp << Vec3::Constant(g.position_p), Vec3::Constant(g.attitude_p);
  pose_.ki << Vec3::Constant(g.position_i), Vec3::Constant(g.attitude_i);
  pose_.kd << Vec3::Constant(g.position_d), Vec3::Constant(g.attitude_d);
  pose_.output_limit = g.velocity_limit;
  velocity_.kp << Vec3::Constant(g.velocity_p), Vec3::Constant(g.rate_p);
  velocity_.ki << Vec3::Constant(g.velocity_i), Vec3::Constant(g.rate_i);
  velocity_.kd << Vec3::Constant(g.velocity_d), Vec3::Constant(g.rate_d);
  velocity_.output_limit = g.acceleration_limit;
  thrust_ = Eigen::VectorXd::Zero(thrusters_.B.cols());
}

void CascadedPid::Reset() {
  pose_.Reset();
  velocity_.Reset();
  first_ = true;
}

Vec6 CascadedPid::Update(const mjModel* m, mjData* d, const Vec3& p_ref,
                         const Eigen::Quaterniond& q_ref, double dt) {
  const Mat3 R = BodyRotation(d, body_);
  Vec6 nu;  // body-frame velocity of the vehicle (free joint: world linear, body angular)
  const int dof = FreeJointDof(m, body_);
  nu << R.transpose() * Vec3(d->qvel[dof], d->qvel[dof + 1], d->qvel[dof + 2]),
      Vec3(d->qvel[dof + 3], d->qvel[dof + 4], d->qvel[dof + 5]);
  // pose loop: body-frame pose error -> commanded velocity (derivative on the measurement)
  velocity_command_ = pose_.Update(PoseError(d, body_, p_ref, q_ref), -nu, dt);
  // velocity loop: velocity error -> commanded acceleration
  const Vec6 velocity_error = velocity_command_ - nu;
  const Vec6 rate = first_ ? Vec6::Zero() : Vec6((velocity_error - previous_velocity_error_) / dt);
  previous_velocity_error_ = velocity_error;
  first_ = false;
  const Vec6 acceleration = velocity_.Update(velocity_error, rate, dt);
  // acceleration -> wrench with the full mass matrix, then allocation
  const Vec6 tau = mass_ * acceleration;
  thrust_ = Allocate(thrusters_.B, tau, thrusters_.thrust_min, thrusters_.thrust_max);
  thrusters_.SetCommands(m, d, thrust_);
  return tau;
}

}  // namespace nereid
