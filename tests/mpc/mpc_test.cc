// Copyright Nereid authors.
// The model predictive controller (include/nereid/mpc.h, src/mpc/): its prediction models
// against eq. 4.1 and against Nereid's plant, the optimal control problem against the
// LQR solution of a double integrator, bounds, failed solves and scenario errors.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "mpc/ocp.h"
#include "mpc/prediction.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/mpc.h"
#include "nereid/runner.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "test_util.h"

namespace nereid {
namespace {

// body-frame acceleration nu_dot of a free body from the engine's qacc (linear qvel is
// the world velocity of the origin: d/dt (R^T v) = R^T a - w x (R^T v))
Vec6 PlantNuDot(const mjModel* m, const mjData* d, int body) {
  const int dof = FreeJointDof(m, body);
  const Mat3 R = BodyRotation(d, body);
  const Vec3 v = R.transpose() * Vec3(d->qvel[dof], d->qvel[dof + 1], d->qvel[dof + 2]);
  const Vec3 w(d->qvel[dof + 3], d->qvel[dof + 4], d->qvel[dof + 5]);
  Vec6 out;
  out << R.transpose() * Vec3(d->qacc[dof], d->qacc[dof + 1], d->qacc[dof + 2]) - w.cross(v),
      d->qacc[dof + 3], d->qacc[dof + 4], d->qacc[dof + 5];
  return out;
}

// sets the Raybot's free joint from x = [p, euler zyx, nu] and its thrusters' force
void SetState(Simulation& sim, int body, const Eigen::VectorXd& x, const Eigen::VectorXd& thrust,
              const ThrusterSet& thrusters) {
  const mjModel* m = sim.model();
  mjData* d = sim.data();
  const int q = m->jnt_qposadr[m->body_jntadr[body]], dof = FreeJointDof(m, body);
  const Eigen::Quaterniond quat = Eigen::AngleAxisd(x[5], Vec3::UnitZ()) *
                                  Eigen::AngleAxisd(x[4], Vec3::UnitY()) * Eigen::AngleAxisd(x[3], Vec3::UnitX());
  for (int i = 0; i < 3; ++i) d->qpos[q + i] = x[i];
  d->qpos[q + 3] = quat.w(), d->qpos[q + 4] = quat.x(), d->qpos[q + 5] = quat.y(), d->qpos[q + 6] = quat.z();
  const Vec3 v_world = quat.toRotationMatrix() * Vec3(x.segment<3>(6));
  for (int i = 0; i < 3; ++i) d->qvel[dof + i] = v_world[i], d->qvel[dof + 3 + i] = x[9 + i];
  thrusters.SetCommands(m, d, thrust);
  sim.Forward();
}

Eigen::VectorXd Evaluate(const casadi::Function& f, const Eigen::VectorXd& x, const Eigen::VectorXd& u) {
  return mpc::ToEigen(f(std::vector<casadi::DM>{mpc::ToDM(x), mpc::ToDM(u)}).at(0));
}

TEST_SUITE("mpc") {

TEST_CASE("The seed's prediction model (CasADi) equals eq. 4.1 evaluated directly") {
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"));
  const int body = mj_name2id(sim->model(), mjOBJ_BODY, "raybot");
  const VehiclePredictionModel model = VehiclePredictionModel::FromSimulation(*sim, body);
  // the Raybot's parameters, seed 002 eqs. 3.22-3.26 (models/raybot/README.md)
  CHECK(model.mass()(0, 0) == doctest::Approx(26.33 + 27.96));
  CHECK(model.quadratic_damping[0] == doctest::Approx(747.06));
  CHECK(model.weight == doctest::Approx(model.buoyancy).epsilon(1e-12));
  CHECK(model.center_of_buoyancy.z() == doctest::Approx(0.2));  // 0.2 m above the CG (FLU)
  CHECK(model.thrusters() == 8);
  const casadi::Function f = mpc::SeedDynamicsFunction(model);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1, 1);
  double worst = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Eigen::VectorXd x(12), u(8);
    for (int i = 0; i < 12; ++i) x[i] = (i >= 3 && i < 6 ? 3.0 : 1.0) * U(rng);
    for (int i = 0; i < 8; ++i) u[i] = 32 * U(rng);
    const Eigen::VectorXd a = Evaluate(f, x, u), b = SeedDynamics(model, x, u);
    worst = std::max(worst, ((a - b).array() / (1 + b.array().abs())).abs().maxCoeff());
  }
  MESSAGE("eq. 4.1, CasADi vs direct: max relative difference " << worst);
  CHECK(worst <= 1e-12);
}

TEST_CASE("The prediction models against Nereid's plant (Raybot)") {
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"));
  const mjModel* m = sim->model();
  const int body = mj_name2id(m, mjOBJ_BODY, "raybot");
  sim->Reset(0);
  const ThrusterSet thrusters = FindThrusters(m, body);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  SUBCASE("at rest, where the seed's simplifications are exact (no Coriolis, any attitude)") {
    const VehiclePredictionModel model = VehiclePredictionModel::FromSimulation(*sim, body);
    double worst = 0;
    for (int trial = 0; trial < 20; ++trial) {
      Eigen::VectorXd x = Eigen::VectorXd::Zero(12), u(8);
      x.head<3>() << U(rng), U(rng), -3 + U(rng);
      x.segment<3>(3) << 0.5 * U(rng), 0.5 * U(rng), 3 * U(rng);
      for (int i = 0; i < 8; ++i) u[i] = 4 + 31.9 * U(rng);  // within -28..36 N (eq. 4.4)
      SetState(*sim, body, x, u, thrusters);
      const Vec6 plant = PlantNuDot(m, sim->data(), body);
      const Eigen::VectorXd seed = SeedDynamics(model, x, u);
      worst = std::max(worst, (plant - seed.tail<6>()).cwiseAbs().maxCoeff() / (1 + plant.cwiseAbs().maxCoeff()));
    }
    MESSAGE("seed model vs plant at rest: max relative difference " << worst);
    CHECK(worst <= 1e-9);
  }
  SUBCASE("moving, rotated, in a current: the full model equals the plant") {
    sim->SetCurrent(Vec3(0.3, -0.2, 0.05));
    const VehiclePredictionModel model = VehiclePredictionModel::FromSimulation(*sim, body);
    CHECK(model.current.x() == doctest::Approx(0.3));
    const casadi::Function f = mpc::FullDynamicsFunction(model);
    double worst = 0, worst_kinematics = 0, seed_gap = 0;
    for (int trial = 0; trial < 20; ++trial) {
      Eigen::VectorXd x(12), u(8);
      x.head<3>() << U(rng), U(rng), -3 + U(rng);
      x.segment<3>(3) << 0.6 * U(rng), 0.6 * U(rng), 3 * U(rng);
      for (int i = 6; i < 12; ++i) x[i] = 0.5 * U(rng);
      for (int i = 0; i < 8; ++i) u[i] = 4 + 31.9 * U(rng);  // within -28..36 N (eq. 4.4)
      SetState(*sim, body, x, u, thrusters);
      const Vec6 plant = PlantNuDot(m, sim->data(), body);
      const Eigen::VectorXd full = Evaluate(f, x, u);
      worst = std::max(worst, (plant - full.tail<6>()).cwiseAbs().maxCoeff() / (1 + plant.cwiseAbs().maxCoeff()));
      seed_gap = std::max(seed_gap, (plant - SeedDynamics(model, x, u).tail<6>()).cwiseAbs().maxCoeff());
      // kinematics: the Euler angles a short step later, from the engine's integration
      const double h = 1e-6;
      Eigen::VectorXd x1 = x;
      std::vector<mjtNum> qpos(sim->data()->qpos, sim->data()->qpos + m->nq);
      mj_integratePos(m, qpos.data(), sim->data()->qvel, h);
      const int q = m->jnt_qposadr[m->body_jntadr[body]];
      const Eigen::Quaterniond q1(qpos[q + 3], qpos[q + 4], qpos[q + 5], qpos[q + 6]);
      const Vec3 e1 = mpc::EulerZyx(q1.toRotationMatrix());
      const Vec3 p1(qpos[q], qpos[q + 1], qpos[q + 2]);
      Eigen::VectorXd rate(6);
      rate << (p1 - Vec3(x.head<3>())) / h, (e1 - Vec3(x.segment<3>(3))) / h;
      worst_kinematics = std::max(worst_kinematics, (rate - full.head<6>()).cwiseAbs().maxCoeff());
    }
    MESSAGE("full model vs plant: nu_dot max relative difference " << worst << ", eta_dot " << worst_kinematics
            << "; the seed's model differs by up to " << seed_gap);
    CHECK(worst <= 1e-9);
    CHECK(worst_kinematics <= 1e-5);  // first-order finite difference over 1e-6 s
    CHECK(seed_gap > 1e-3);           // the simplifications are not exact when moving
  }
}

}  // TEST_SUITE

}  // namespace
}  // namespace nereid
