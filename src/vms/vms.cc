// Copyright Nereid authors.
#include "nereid/vms.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <tuple>
#include <utility>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/output.h"
#include "nereid/reactions.h"
#include "nereid/simulation.h"

namespace nereid {
namespace {

constexpr double kTwoPi = 2 * M_PI;
// NED <-> Nereid world (z-up, y west) and FRD <-> FLU: the same 180 degree turn about x
const Mat3 kT = FrameToMujoco(BodyFrame::kFRD);

// Fossen's T(Theta): Euler-angle rates from the body angular velocity (FRD)
Mat3 EulerRateMatrix(double phi, double theta) {
  const double sp = std::sin(phi), cp = std::cos(phi), ct = std::cos(theta), tt = std::tan(theta);
  Mat3 T;
  T << 1, sp * tt, cp * tt,
       0, cp, -sp,
       0, sp / ct, cp / ct;
  return T;
}

[[noreturn]] void Fail(const std::string& source, const std::string& path, const std::string& rule) {
  throw ConfigError(source + ": " + path + ": " + rule);
}

}  // namespace

double Signal::Value(double t) const {
  switch (kind) {
    case Kind::kConstant: return value;
    case Kind::kSine:
      return t > start && t <= end ? offset + amplitude * std::sin(kTwoPi * t / period + phase) : value;
    case Kind::kRamp:
      if (t <= start) return from;
      if (t >= end) return to;
      return from + (to - from) * (t - start) / (end - start);
    case Kind::kLinear: return offset + rate * t;
  }
  return value;
}

double Signal::Rate(double t) const {
  switch (kind) {
    case Kind::kConstant: return 0;
    case Kind::kSine:
      return t > start && t <= end ? amplitude * kTwoPi / period * std::cos(kTwoPi * t / period + phase) : 0;
    case Kind::kRamp: return t > start && t < end ? (to - from) / (end - start) : 0;
    case Kind::kLinear: return rate;
  }
  return 0;
}

Vec3 AnthropomorphicIk(const Vec3& p, double l2, double l3, int elbow) {
  // joint 1 turns the arm's plane; in it, with a = -q2 and b = -(q2 + q3) measured from z1
  // towards the plane's horizontal axis: r = l2 sin a + l3 sin b, z = l2 cos a + l3 cos b
  const double q1 = std::atan2(p.y(), p.x());
  const double r = std::hypot(p.x(), p.y()), z = p.z();
  const double c = std::clamp((r * r + z * z - l2 * l2 - l3 * l3) / (2 * l2 * l3), -1.0, 1.0);
  const double q3 = (elbow >= 0 ? 1.0 : -1.0) * std::acos(c);
  const double gamma = -q3;  // b - a
  const double a = std::atan2(r, z) - std::atan2(l3 * std::sin(gamma), l2 + l3 * std::cos(gamma));
  return Vec3(q1, WrapAngle(-a), q3);
}

Vec3 AnthropomorphicFk(const Vec3& q, double l2, double l3) {
  const double r = -l2 * std::sin(q[1]) - l3 * std::sin(q[1] + q[2]);
  const double z = l2 * std::cos(q[1]) + l3 * std::cos(q[1] + q[2]);
  return Vec3(r * std::cos(q[0]), r * std::sin(q[0]), z);
}

// A pose in seed 003's NED convention from a world position and world-from-body (FLU)
// rotation of Nereid's: [x y z] north-east-down and the FRD body's ZYX Euler angles.
Vec6 NedPose(const Vec3& position, const Mat3& rotation) {
  const Mat3 R = kT * rotation * kT;  // NED-from-FRD
  Vec6 x;
  x.head<3>() = kT * position;
  x[3] = std::atan2(R(2, 1), R(2, 2));
  x[4] = -std::asin(std::clamp(R(2, 0), -1.0, 1.0));
  x[5] = std::atan2(R(1, 0), R(0, 0));
  return x;
}

// The controller's reading: the body's pose from the last kinematics (d->xpos, d->xmat).
Vec6 NedPose(const mjData* d, int body) { return NedPose(BodyPosition(d, body), BodyRotation(d, body)); }

// The pose of the state in d->qpos now (its free joint), for the log.
Vec6 NedPoseOfState(const mjModel* m, const mjData* d, int body) {
  const mjtNum* q = d->qpos + m->jnt_qposadr[m->body_jntadr[body]];
  mjtNum R[9];
  mju_quat2Mat(R, q + 3);
  return NedPose(Vec3(q[0], q[1], q[2]), Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(R));
}

VmsController::VmsController(Simulation& sim, const VmsControllerSpec& spec, const std::string& source)
    : sim_(sim), spec_(spec) {
  const mjModel* m = sim.model();
  if (spec_.vehicle) {
    const std::string p = spec_.path + "/vehicle/body";
    body_ = mj_name2id(m, mjOBJ_BODY, spec_.vehicle->body.c_str());
    if (body_ <= 0) Fail(source, p, "no body named '" + Excerpt(spec_.vehicle->body) + "' in " + sim.source());
    if (FreeJointDof(m, body_) < 0) Fail(source, p, "body '" + Excerpt(spec_.vehicle->body) + "' has no free joint");
    thrusters_ = FindThrusters(m, body_);
    if (thrusters_.actuators.empty()) {
      Fail(source, p, "body '" + Excerpt(spec_.vehicle->body) + "' has no nereid.thruster actuators to allocate to");
    }
  }
  for (const JointLoopSpec& js : spec_.joints) {
    Loop loop;
    loop.spec = js;
    loop.joint = mj_name2id(m, mjOBJ_JOINT, js.joint.c_str());
    if (loop.joint < 0) Fail(source, js.path + "/joint", "no joint named '" + Excerpt(js.joint) + "' in " + sim.source());
    if (m->jnt_type[loop.joint] != mjJNT_HINGE && m->jnt_type[loop.joint] != mjJNT_SLIDE) {
      Fail(source, js.path + "/joint", "joint '" + Excerpt(js.joint) + "' is not a hinge or slide joint");
    }
    loop.dof = m->jnt_dofadr[loop.joint];
    loop.qpos = m->jnt_qposadr[loop.joint];
    loop.actuator = mj_name2id(m, mjOBJ_ACTUATOR, js.actuator.c_str());
    if (loop.actuator < 0) {
      Fail(source, js.path + "/actuator", "no actuator named '" + Excerpt(js.actuator) + "' in " + sim.source());
    }
    if (m->actuator_trntype[loop.actuator] != mjTRN_JOINT || m->actuator_trnid[2 * loop.actuator] != loop.joint ||
        m->actuator_gaintype[loop.actuator] != mjGAIN_FIXED || m->actuator_biastype[loop.actuator] != mjBIAS_NONE ||
        m->actuator_dyntype[loop.actuator] != mjDYN_NONE || m->actuator_gear[6 * m->actuator_outadr[loop.actuator]] == 0) {
      Fail(source, js.path + "/actuator",
           "actuator '" + Excerpt(js.actuator) + "' must be a <motor> on joint '" + Excerpt(js.joint) + "' (torque = gear * ctrl)");
    }
    // gear is per force output (a motor has one), gainprm per actuator
    loop.gear = m->actuator_gear[6 * m->actuator_outadr[loop.actuator]] * m->actuator_gainprm[mjNGAIN * loop.actuator];
    if (js.mode == JointLoopSpec::Mode::kPid) MakeStageFeedback(loop);
    loops_.push_back(loop);
  }
  for (size_t a = 0; a < spec_.ik.size(); ++a) {
    for (int k = 0; k < 3; ++k) {
      auto it = std::find_if(loops_.begin(), loops_.end(),
                             [&](const Loop& l) { return l.spec.joint == spec_.ik[a].joints[k]; });
      if (it == loops_.end()) {
        Fail(source, spec_.ik[a].path + "/joints/" + std::to_string(k),
             "joint '" + Excerpt(spec_.ik[a].joints[k]) + "' has no entry in " + spec_.path + "/joints");
      }
      it->ik = static_cast<int>(a);
      it->ik_index = k;
    }
  }
  for (size_t i = 0; i < spec_.monitor.size(); ++i) {
    const int id = mj_name2id(m, mjOBJ_BODY, spec_.monitor[i].c_str());
    if (id <= 0) {
      Fail(source, spec_.path + "/monitor/" + std::to_string(i),
           "no body named '" + Excerpt(spec_.monitor[i]) + "' in " + sim.source());
    }
    monitor_.push_back(id);
  }
  for (const Loop& loop : loops_) reaction_joints_.push_back(loop.joint);
  columns_ = 1 + (spec_.vehicle ? 24 : 0) + 2 * loops_.size() + 3 * monitor_.size() + 6 * loops_.size();
  CheckStiffness(source);
}

VmsController::DenseMass VmsController::ForwardMass() {
  sim_.Forward();
  const mjModel* m = sim_.model();
  const int nv = static_cast<int>(m->nv);
  mass_.resize(static_cast<size_t>(nv) * static_cast<size_t>(nv));
  mj_fullM(m, sim_.data(), mass_.data());
  return DenseMass(mass_.data(), nv, nv);
}

void VmsController::CheckStiffness(const std::string& source) {
  // The loops' kd acts explicitly in Euler and RK4: the fastest damped mode, rate lambda =
  // the largest eigenvalue of K_d v = lambda M v (M with added inertia, at the start), is
  // stable only for lambda dt below the integrator's limit on the negative real axis.
  // implicitfast treats the actuators' velocity bias implicitly and has no such limit.
  double limit = 0;
  switch (sim_.integrator()) {
    case Integrator::kEuler: limit = 2.0; break;
    case Integrator::kRK4: limit = 2.785; break;
    case Integrator::kImplicitFast: return;
  }
  const mjModel* m = sim_.model();
  const int nv = static_cast<int>(m->nv);
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(nv, nv);
  bool any = false;
  for (const Loop& loop : loops_) {
    if (loop.spec.mode != JointLoopSpec::Mode::kPid || loop.spec.kd <= 0) continue;
    K(loop.dof, loop.dof) += loop.spec.kd;
    any = true;
  }
  if (!any) return;
  const Eigen::MatrixXd M = ForwardMass();
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(K, M, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success) return;
  const double rate = solver.eigenvalues().maxCoeff(), dt = m->opt.timestep;
  if (rate * dt < limit) return;
  std::ostringstream text;
  text.precision(3);
  text << source << ": " << spec_.path << "/joints: the joint loops' damping is too stiff for "
       << ToString(sim_.integrator()) << " at dt " << dt << " s: their fastest mode decays at " << rate
       << " 1/s (largest eigenvalue of M^-1 Kd at the start), and rate x dt = " << rate * dt << " exceeds "
       << limit << "; the joints will chatter at the torque limit. Use dt <= " << 0.9 * limit / rate
       << " s or the implicitfast integrator";
  warnings_.push_back(text.str());
}

void VmsController::MakeStageFeedback(Loop& loop) {
  // torque = g * (g0 ctrl + b1 length + b2 velocity), with length = g q and velocity = g qdot
  // for a joint transmission of gear g: b1 = -kp / g^2, b2 = -kd / g^2 give
  // torque = g g0 ctrl - kp q - kd qdot.
  mjModel* m = sim_.mutable_model();
  const int a = loop.actuator, c = m->actuator_ctrladr[a];  // its control: ctrllimited and ctrlrange are per control
  const double g = m->actuator_gear[6 * m->actuator_outadr[a]];
  auto order = [](double x, double y) { return std::pair(std::min(x, y), std::max(x, y)); };
  if (m->actuator_ctrllimited[c]) {
    std::tie(loop.torque_min, loop.torque_max) =
        order(loop.gear * m->actuator_ctrlrange[2 * c], loop.gear * m->actuator_ctrlrange[2 * c + 1]);
  }
  if (m->actuator_forcelimited[a]) {
    const auto [lo, hi] = order(g * m->actuator_forcerange[2 * a], g * m->actuator_forcerange[2 * a + 1]);
    loop.torque_min = std::max(loop.torque_min, lo);
    loop.torque_max = std::min(loop.torque_max, hi);
  }
  m->actuator_biastype[a] = mjBIAS_AFFINE;
  mjtNum* bias = m->actuator_biasprm + mjNBIAS * a;
  std::fill(bias, bias + mjNBIAS, 0.0);
  bias[1] = -loop.spec.kp / (g * g);
  bias[2] = -loop.spec.kd / (g * g);
  m->actuator_ctrllimited[c] = 0;
  if (std::isfinite(loop.torque_min) || std::isfinite(loop.torque_max)) {
    m->actuator_forcelimited[a] = 1;
    const auto [lo, hi] = order(loop.torque_min / g, loop.torque_max / g);
    m->actuator_forcerange[2 * a] = lo;
    m->actuator_forcerange[2 * a + 1] = hi;
  }
}

double VmsController::JointReference(const Loop& loop, double t, double* rate, double* accel) const {
  auto value = [&](double s) {
    if (loop.ik < 0) return loop.spec.reference.Value(s);
    const ArmIkSpec& ik = spec_.ik[static_cast<size_t>(loop.ik)];
    const Vec3 p(ik.target[0].Value(s), ik.target[1].Value(s), ik.target[2].Value(s));
    return AnthropomorphicIk(p, ik.l2, ik.l3, ik.elbow)[loop.ik_index];
  };
  // rates by central differences: exact enough for the references used (smooth, h^2 error)
  const double h = 1e-4;
  const double r = value(t), rp = value(t + h), rm = value(t - h);
  *rate = loop.ik < 0 ? loop.spec.reference.Rate(t) : (rp - rm) / (2 * h);
  *accel = (rp - 2 * r + rm) / (h * h);
  return r;
}

void VmsController::Update(double dt) {
  const double t = sim_.data()->time;
  const size_t row = rows_.size();
  rows_.resize(row + columns_, 0.0);
  double* out = rows_.data() + row;
  *out++ = t;
  if (spec_.vehicle) out = UpdateVehicle(t, out);
  bool computed_torque = false;
  for (Loop& loop : loops_) {
    double rate = 0, accel = 0;
    const double r = JointReference(loop, t, &rate, &accel);
    *out++ = r;
    if (loop.spec.mode == JointLoopSpec::Mode::kComputedTorque) {
      computed_torque = true;
      continue;
    }
    UpdateJointPid(loop, r, rate, dt);
  }
  out = RecordInertiasAndRates(out);
  if (computed_torque) UpdateComputedTorque(t);
  if (!reaction_joints_.empty()) RecordReactions(out);
}

double* VmsController::UpdateVehicle(double t, double* out) {
  // seed 003 Fig. 10: PD on the NED pose error, mapped to the body by J(eta)^T
  const mjModel* m = sim_.model();
  mjData* d = sim_.data();
  const VehiclePdSpec& v = *spec_.vehicle;
  const Vec6 x = NedPose(d, body_);
  const int dof = FreeJointDof(m, body_);
  const Vec3 v_ned = kT * Vec3(d->qvel[dof], d->qvel[dof + 1], d->qvel[dof + 2]);
  const Vec3 w_frd = kT * Vec3(d->qvel[dof + 3], d->qvel[dof + 4], d->qvel[dof + 5]);
  const Mat3 T_theta = EulerRateMatrix(x[3], x[4]);
  Vec6 x_dot;
  x_dot << v_ned, T_theta * w_frd;
  const Vec3 origin_ned = kT * v.origin;
  Vec6 g = Vec6::Zero();
  for (int i = 0; i < 6; ++i) {
    const double r = v.reference[static_cast<size_t>(i)].Value(t) + (i < 3 ? origin_ned[i] : 0.0);
    *out++ = r;
    if (!v.active[static_cast<size_t>(i)]) continue;
    const double e = i < 3 ? r - x[i] : WrapAngle(r - x[i]);
    const double e_dot = v.reference[static_cast<size_t>(i)].Rate(t) - x_dot[i];
    g[i] = v.kp[i] * e + v.kd[i] * e_dot;
  }
  const Mat3 R = kT * BodyRotation(d, body_) * kT;  // NED-from-FRD
  Vec6 tau_frd;
  tau_frd << R.transpose() * g.head<3>(), T_theta.transpose() * g.tail<3>();
  Vec6 tau_flu;
  tau_flu << kT * tau_frd.head<3>(), kT * tau_frd.tail<3>();
  // thruster saturation: box-constrained allocation within each thruster's thrust range
  const Eigen::VectorXd thrust = Allocate(thrusters_.B, tau_flu, thrusters_.thrust_min, thrusters_.thrust_max);
  thrusters_.SetCommands(m, d, thrust);
  const Vec6 achieved_flu = thrusters_.B * thrust;
  for (int i = 0; i < 6; ++i) *out++ = tau_frd[i];
  for (int i = 0; i < 3; ++i) *out++ = (kT * achieved_flu.head<3>())[i];
  for (int i = 0; i < 3; ++i) *out++ = (kT * achieved_flu.tail<3>())[i];
  const Vec6 eta = NedPoseOfState(m, d, body_);
  for (int i = 0; i < 6; ++i) *out++ = eta[i];
  return out;
}

void VmsController::UpdateJointPid(Loop& loop, double r, double rate, double dt) {
  // seed 003 Table 5: PID on the joint error. kp e + kd e' is the actuator's bias at every
  // stage (MakeStageFeedback); ctrl carries the reference and integral terms.
  const mjModel* m = sim_.model();
  mjData* d = sim_.data();
  const double e = r - d->qpos[loop.qpos];
  const double e_dot = rate - d->qvel[loop.dof];
  // int(e) by the trapezoidal rule up to now; over the coming step it is held at its
  // mid-step value, int + e dt / 2 (both second order in dt)
  const double increment = 0.5 * (loop.last_error + e) * loop.last_dt;  // last_dt = 0 at the start
  const double held = loop.integral + increment + 0.5 * e * dt;
  // anti-windup (conditional integration): no integration while the motor is saturated
  // in the direction the error pushes
  const double tau = loop.spec.kp * e + loop.spec.ki * held + loop.spec.kd * e_dot;
  const bool saturated = (tau > loop.torque_max && e > 0) || (tau < loop.torque_min && e < 0);
  if (!saturated) loop.integral += increment;
  loop.last_error = e;
  loop.last_dt = saturated ? 0.0 : dt;
  d->ctrl[m->actuator_ctrladr[loop.actuator]] =
      (loop.spec.kp * r + loop.spec.kd * rate + loop.spec.ki * (loop.integral + 0.5 * loop.last_dt * e)) / loop.gear;
}

double* VmsController::RecordInertiasAndRates(double* out) {
  const mjModel* m = sim_.model();
  mjData* d = sim_.data();
  for (const Loop& loop : loops_) {
    // the joint's inertia: the diagonal of Nereid's mass matrix (added inertia included) at
    // the last evaluation, for judging a loop's gains (a PID is stable iff kd kp > I ki)
    const int adr = MassEntryAddress(m, loop.dof, loop.dof);
    *out++ = adr >= 0 ? d->M[adr] : 0.0;
  }
  if (!monitor_.empty()) {
    // velocities of the current state (d->cvel may still hold the previous step's)
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_comVel(m, d);
    for (int body : monitor_) {
      const Vec6 nu = BodyVelocity(m, d, body);
      for (int i = 3; i < 6; ++i) *out++ = nu[i];
    }
  }
  return out;
}

void VmsController::RecordReactions(double* out) {
  // the force and moment each joint's parent exerts on its child (vehicle on the arm
  // base, link on link), at the joint anchor in the parent's frame (FLU), for the state
  // and commands the coming step starts from (nereid/reactions.h)
  const mjModel* m = sim_.model();
  const mjData* d = sim_.data();
  sim_.Forward();
  const std::vector<JointReaction> reactions = JointReactions(sim_, reaction_joints_);
  for (size_t k = 0; k < reactions.size(); ++k) {
    const int parent = m->body_parentid[m->jnt_bodyid[reaction_joints_[k]]];
    const Mat3 R = BodyRotation(d, parent);
    const Vec3 f = R.transpose() * reactions[k].force, tq = R.transpose() * reactions[k].torque;
    for (int i = 0; i < 3; ++i) *out++ = f[i];
    for (int i = 0; i < 3; ++i) *out++ = tq[i];
  }
}

void VmsController::UpdateComputedTorque(double t) {
  // Prescribed joints P, all other dofs F: M_FF a_F + M_FP a_P = f_F (no torque on F from
  // these motors), tau_P = M_PF a_F + M_PP a_P - f_P, with a_P = r'' + kd e' + kp e and f
  // the generalised force without the P motors. M includes Nereid's added mass.
  const mjModel* m = sim_.model();
  mjData* d = sim_.data();
  const int nv = static_cast<int>(m->nv);
  const DenseMass M = ForwardMass();
  Eigen::VectorXd f = Eigen::Map<const Eigen::VectorXd>(d->qfrc_smooth, nv);
  std::vector<int> P, F;
  std::vector<double> a_P;
  std::vector<const Loop*> prescribed;
  for (const Loop& loop : loops_) {
    if (loop.spec.mode != JointLoopSpec::Mode::kComputedTorque) continue;
    double rate = 0, accel = 0;
    const double r = JointReference(loop, t, &rate, &accel);
    const double e = r - d->qpos[loop.qpos], e_dot = rate - d->qvel[loop.dof];
    f[loop.dof] -= d->qfrc_actuator[loop.dof];
    P.push_back(loop.dof);
    a_P.push_back(accel + loop.spec.kd * e_dot + loop.spec.kp * e);
    prescribed.push_back(&loop);
  }
  for (int i = 0; i < nv; ++i) {
    if (std::find(P.begin(), P.end(), i) == P.end()) F.push_back(i);
  }
  const Eigen::Index nf = static_cast<Eigen::Index>(F.size()), np = static_cast<Eigen::Index>(P.size());
  Eigen::MatrixXd M_FF(nf, nf), M_FP(nf, np);
  Eigen::VectorXd rhs(nf), aP = Eigen::Map<const Eigen::VectorXd>(a_P.data(), np);
  for (Eigen::Index i = 0; i < nf; ++i) {
    for (Eigen::Index j = 0; j < nf; ++j) M_FF(i, j) = M(F[static_cast<size_t>(i)], F[static_cast<size_t>(j)]);
    for (Eigen::Index j = 0; j < np; ++j) M_FP(i, j) = M(F[static_cast<size_t>(i)], P[static_cast<size_t>(j)]);
    rhs[i] = f[F[static_cast<size_t>(i)]];
  }
  const Eigen::VectorXd a_F = nf > 0 ? Eigen::VectorXd(M_FF.ldlt().solve(rhs - M_FP * aP)) : Eigen::VectorXd();
  for (Eigen::Index k = 0; k < np; ++k) {
    const int p = P[static_cast<size_t>(k)];
    double tau = -f[p];
    for (Eigen::Index i = 0; i < nf; ++i) tau += M(p, F[static_cast<size_t>(i)]) * a_F[i];
    for (Eigen::Index j = 0; j < np; ++j) tau += M(p, P[static_cast<size_t>(j)]) * aP[j];
    d->ctrl[m->actuator_ctrladr[prescribed[static_cast<size_t>(k)]->actuator]] = tau / prescribed[static_cast<size_t>(k)]->gear;
  }
}

void VmsController::WriteLog(const std::string& path) const {
  OutputFile output(path);
  std::ostream& out = output.stream();
  out.precision(12);
  out << "time";
  if (spec_.vehicle) {
    for (const char* c : {"x", "y", "z", "phi", "theta", "psi"}) out << ",ref." << c;
    for (const char* c : {"X", "Y", "Z", "K", "M", "N"}) out << ",tau_cmd." << c;
    for (const char* c : {"X", "Y", "Z", "K", "M", "N"}) out << ",tau_alloc." << c;
    for (const char* c : {"x", "y", "z", "phi", "theta", "psi"}) out << ",eta." << c;
  }
  for (const Loop& loop : loops_) out << ",ref." << loop.spec.joint;
  for (const Loop& loop : loops_) out << ",inertia." << loop.spec.joint;
  for (const std::string& b : spec_.monitor) out << "," << b << ".wx," << b << ".wy," << b << ".wz";
  for (const Loop& loop : loops_) {
    for (const char* c : {"fx", "fy", "fz", "tx", "ty", "tz"}) out << ",react." << loop.spec.joint << "." << c;
  }
  out << "\n";
  for (size_t r = 0; r + columns_ <= rows_.size(); r += columns_) {
    for (size_t c = 0; c < columns_; ++c) out << (c ? "," : "") << rows_[r + c];
    out << "\n";
  }
  output.Commit();
}

}  // namespace nereid
