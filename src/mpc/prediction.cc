// Copyright Nereid authors.
#include "mpc/prediction.h"

#include <cmath>

#include "mpc/ocp.h"
#include "nereid/control.h"
#include "nereid/error.h"
#include "nereid/plugins.h"
#include "nereid/simulation.h"

namespace nereid {

using casadi::SX;

namespace {

// the restoring wrench (gravity at r_g plus buoyancy at r_b) for k = R^T e_z, the world's
// up axis in body coordinates: [(B - W) k; r_g x (-W k) + r_b x (B k)]
Vec6 RestoringWrench(const VehiclePredictionModel& v, const Vec3& k) {
  Vec6 out;
  out << (v.buoyancy - v.weight) * k,
      v.center_of_gravity.cross(-v.weight * k) + v.center_of_buoyancy.cross(v.buoyancy * k);
  return out;
}

}  // namespace

Eigen::VectorXd SeedDynamics(const VehiclePredictionModel& v, const Eigen::VectorXd& x,
                             const Eigen::VectorXd& u) {
  const double phi = x[3], theta = x[4], psi = x[5];
  const Vec6 nu = x.tail<6>();
  Mat3 Rz;
  Rz << std::cos(psi), -std::sin(psi), 0, std::sin(psi), std::cos(psi), 0, 0, 0, 1;
  const Vec3 k(-std::sin(theta), std::cos(theta) * std::sin(phi), std::cos(theta) * std::cos(phi));
  const Vec6 D = v.linear_damping * nu + v.quadratic_damping.cwiseProduct(nu.cwiseAbs().cwiseProduct(nu));
  const Vec6 rhs = v.thrust_matrix * u - D + RestoringWrench(v, k);
  Eigen::VectorXd xdot(12);
  xdot << Rz * nu.head<3>(), nu.tail<3>(), v.mass().ldlt().solve(rhs);
  return xdot;
}

namespace mpc {

namespace {

SX Cross(const SX& a, const SX& b) { return SX::cross(a, b); }

SX Restoring(const VehiclePredictionModel& v, const SX& k) {
  const SX rg = ToDM(v.center_of_gravity), rb = ToDM(v.center_of_buoyancy);
  return SX::vertcat({(v.buoyancy - v.weight) * k, Cross(rg, -v.weight * k) + Cross(rb, v.buoyancy * k)});
}

// D(nu) nu with the damping acting about damping_point (Fossen 2011 eq. 7.12 transport)
SX DampingWrench(const VehiclePredictionModel& v, const SX& nu) {
  const SX Dl = ToDM(v.linear_damping), dq = ToDM(v.quadratic_damping);
  const SX r = ToDM(v.damping_point);
  const SX lin = nu(casadi::Slice(0, 3)), ang = nu(casadi::Slice(3, 6));
  const SX nu_p = SX::vertcat({lin + Cross(ang, r), ang});
  const SX w_p = SX::mtimes(Dl, nu_p) + dq * fabs(nu_p) * nu_p;
  const SX f = w_p(casadi::Slice(0, 3)), m = w_p(casadi::Slice(3, 6));
  return SX::vertcat({f, m + Cross(r, f)});  // H(r)^T w_p
}

// C(nu) nu of a symmetric 6 x 6 inertia: [w x p1; v x p1 + w x p2], p = M nu
SX CoriolisWrench(const Mat6& M, const SX& nu) {
  const SX p = SX::mtimes(ToDM(M), nu);
  const SX v = nu(casadi::Slice(0, 3)), w = nu(casadi::Slice(3, 6));
  const SX p1 = p(casadi::Slice(0, 3)), p2 = p(casadi::Slice(3, 6));
  return SX::vertcat({Cross(w, p1), Cross(v, p1) + Cross(w, p2)});
}

}  // namespace

Vec3 EulerZyx(const Mat3& R) {
  return Vec3(std::atan2(R(2, 1), R(2, 2)), std::asin(std::clamp(-R(2, 0), -1.0, 1.0)),
              std::atan2(R(1, 0), R(0, 0)));
}

casadi::Function SeedDynamicsFunction(const VehiclePredictionModel& v) {
  const SX x = SX::sym("x", 12), u = SX::sym("u", v.thrusters());
  const SX phi = x(3), theta = x(4), psi = x(5);
  const SX nu = x(casadi::Slice(6, 12));
  const SX lin = nu(casadi::Slice(0, 3)), ang = nu(casadi::Slice(3, 6));
  // eq. 4.2: rotation about the yaw axis only
  const SX pos_rate = SX::vertcat({cos(psi) * lin(0) - sin(psi) * lin(1), sin(psi) * lin(0) + cos(psi) * lin(1), lin(2)});
  const SX k = SX::vertcat({-sin(theta), cos(theta) * sin(phi), cos(theta) * cos(phi)});
  const SX Dl = ToDM(v.linear_damping), dq = ToDM(v.quadratic_damping);
  const SX D = SX::mtimes(Dl, nu) + dq * fabs(nu) * nu;
  const SX rhs = SX::mtimes(ToDM(v.thrust_matrix), u) - D + Restoring(v, k);
  const SX Minv = ToDM(v.mass().inverse());
  return casadi::Function("seed_dynamics", {x, u}, {SX::vertcat({pos_rate, ang, SX::mtimes(Minv, rhs)})},
                          {"x", "u"}, {"xdot"});
}

int LagStates(const VehiclePredictionModel& v) {
  int n = 0;
  for (Eigen::Index i = 0; i < v.motor_time_constant.size(); ++i) n += v.motor_time_constant[i] > 0;
  return n;
}

casadi::Function FullDynamicsFunction(const VehiclePredictionModel& v) {
  const int nt = v.thrusters(), nlag = LagStates(v);
  const SX x = SX::sym("x", 12 + nlag), u = SX::sym("u", nt);
  const SX phi = x(3), theta = x(4), psi = x(5);
  const SX nu = x(casadi::Slice(6, 12));
  const SX lin = nu(casadi::Slice(0, 3)), ang = nu(casadi::Slice(3, 6));
  const SX cf = cos(phi), sf = sin(phi), ct = cos(theta), st = sin(theta), cp = cos(psi), sp = sin(psi);
  // world-from-body rotation R = Rz(psi) Ry(theta) Rx(phi) (Fossen 2011 eq. 2.18)
  SX R = SX::zeros(3, 3);
  R(0, 0) = cp * ct; R(0, 1) = -sp * cf + cp * st * sf; R(0, 2) = sp * sf + cp * cf * st;
  R(1, 0) = sp * ct; R(1, 1) = cp * cf + sf * st * sp;  R(1, 2) = -cp * sf + sp * st * cf;
  R(2, 0) = -st;     R(2, 1) = ct * sf;                 R(2, 2) = ct * cf;
  // Euler-angle rates (eq. 2.29)
  SX T = SX::zeros(3, 3);
  T(0, 0) = 1; T(0, 1) = sf * st / ct; T(0, 2) = cf * st / ct;
  T(1, 1) = cf; T(1, 2) = -sf;
  T(2, 1) = sf / ct; T(2, 2) = cf / ct;
  // thrust: lagged thrusters follow their command with a first-order lag
  SX thrust = SX::zeros(nt);
  std::vector<SX> lag_rates;
  int j = 0;
  for (int i = 0; i < nt; ++i) {
    const double tau = v.motor_time_constant.size() > i ? v.motor_time_constant[i] : 0.0;
    if (tau > 0) {
      const SX a = x(12 + j++);
      thrust(i) = a;
      lag_rates.push_back((u(i) - a) / tau);
    } else {
      thrust(i) = u(i);
    }
  }
  // velocity relative to a constant world current; its body-frame rate is -w x v_c
  const SX vc = SX::mtimes(R.T(), ToDM(v.current));
  const SX nu_r = SX::vertcat({lin - vc, ang});
  const SX nudot_c = SX::vertcat({-Cross(ang, vc), SX::zeros(3)});
  const SX k = R(2, casadi::Slice()).T();
  const SX rhs = SX::mtimes(ToDM(v.thrust_matrix), thrust) + Restoring(v, k) -
                 CoriolisWrench(v.rigid_body_mass, nu) - CoriolisWrench(v.added_mass, nu_r) -
                 DampingWrench(v, nu_r) + SX::mtimes(ToDM(v.added_mass), nudot_c);
  const SX Minv = ToDM(v.mass().inverse());
  std::vector<SX> parts = {SX::mtimes(R, lin), SX::mtimes(T, ang), SX::mtimes(Minv, rhs)};
  parts.insert(parts.end(), lag_rates.begin(), lag_rates.end());
  return casadi::Function("full_dynamics", {x, u}, {SX::vertcat(parts)}, {"x", "u"}, {"xdot"});
}

}  // namespace mpc

VehiclePredictionModel VehiclePredictionModel::FromSimulation(const Simulation& sim, int body) {
  return FromSimulation(sim, body, FindThrusters(sim.model(), body));
}

VehiclePredictionModel VehiclePredictionModel::FromSimulation(const Simulation& sim, int body,
                                                              const ThrusterSet& thrusters) {
  const mjModel* m = sim.model();
  VehiclePredictionModel v;
  v.rigid_body_mass = VehicleMassMatrix(sim, body);  // M_RB + M_A (the engine's blocks)
  for (const AddedMassBody& block : sim.added_mass_bodies()) {
    if (block.body == body) v.added_mass += block.added_mass;
  }
  v.rigid_body_mass -= v.added_mass;
  const double g = -m->opt.gravity[2];
  v.weight = m->body_mass[body] * g;
  v.center_of_gravity = Vec3(m->body_ipos[3 * body], m->body_ipos[3 * body + 1], m->body_ipos[3 * body + 2]);
  if (m->body_subtreemass[body] > m->body_mass[body] * (1 + 1e-12)) {
    throw ConfigError(sim.source() + ": MPC: body '" + std::string(mj_id2name(m, mjOBJ_BODY, body)) +
                      "' has child bodies with mass; the prediction models treat the vehicle as one rigid body");
  }
  for (int instance : FindPluginInstances(m, kHydrodynamicsPlugin)) {
    const HydrodynamicsConfig c = HydrodynamicsConfig::FromModel(m, instance);
    if (c.body != body) continue;
    v.linear_damping += c.linear_damping;
    v.quadratic_damping += c.quadratic_damping;
    v.damping_point = c.reference_point;
  }
  for (int instance : FindPluginInstances(m, kBuoyancyPlugin)) {
    const BuoyancyConfig c = BuoyancyConfig::FromModel(m, instance);
    if (c.body != body) continue;
    v.buoyancy = c.fluid_density * g * c.volume;
    v.center_of_buoyancy = c.center_of_buoyancy;
  }
  if (thrusters.actuators.empty()) {
    throw ConfigError(sim.source() + ": MPC: body '" + std::string(mj_id2name(m, mjOBJ_BODY, body)) +
                      "' has no nereid.thruster actuators");
  }
  v.thrust_matrix = thrusters.B;
  v.thrust_min = thrusters.thrust_min;
  v.thrust_max = thrusters.thrust_max;
  v.motor_time_constant = Eigen::VectorXd::Zero(thrusters.B.cols());
  for (size_t i = 0; i < thrusters.models.size(); ++i) {
    v.motor_time_constant[static_cast<Eigen::Index>(i)] = thrusters.models[i].time_constant;
  }
  // the current field lives in the plugin's data; reading it does not change the simulation
  if (const CurrentField* water = const_cast<Simulation&>(sim).current()) {
    v.current = water->Evaluate(sim.data()->time, sim.data()->xpos[3 * body + 2]).velocity;
  }
  return v;
}

}  // namespace nereid
