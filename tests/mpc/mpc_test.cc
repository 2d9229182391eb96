// Copyright Nereid authors.
// The model predictive controller (include/nereid/mpc.h, src/mpc/): its prediction models
// against eq. 4.1 and against Nereid's plant, the optimal control problem against the
// LQR solution of a double integrator, bounds, failed solves and scenario errors.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "mpc/ocp.h"
#include "mpc/prediction.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/mpc.h"
#include "nereid/rl.h"
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

// The seed's model at rest and the full model in any state against the engine's
// acceleration of the vehicle `body_name` in `file`.
void CheckPredictionAgainstPlant(const char* file, const char* body_name) {
  auto sim = Simulation::LoadFile(test::ModelPath(file));
  const mjModel* m = sim->model();
  const int body = mj_name2id(m, mjOBJ_BODY, body_name);
  REQUIRE(body >= 0);
  sim->Reset(0);
  const ThrusterSet thrusters = FindThrusters(m, body);
  const int nu = static_cast<int>(thrusters.actuators.size());
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  auto random_thrust = [&](const VehiclePredictionModel& model) {  // within the reachable range (eq. 4.4)
    Eigen::VectorXd u(nu);
    for (int i = 0; i < nu; ++i) {
      u[i] = 0.5 * (model.thrust_min[i] + model.thrust_max[i]) + 0.499 * (model.thrust_max[i] - model.thrust_min[i]) * U(rng);
    }
    return u;
  };
  SUBCASE("at rest, where the seed's simplifications are exact (no Coriolis, any attitude)") {
    const VehiclePredictionModel model = VehiclePredictionModel::FromSimulation(*sim, body);
    double worst = 0;
    for (int trial = 0; trial < 20; ++trial) {
      Eigen::VectorXd x = Eigen::VectorXd::Zero(12);
      x.head<3>() << U(rng), U(rng), -3 + U(rng);
      x.segment<3>(3) << 0.5 * U(rng), 0.5 * U(rng), 3 * U(rng);
      const Eigen::VectorXd u = random_thrust(model);
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
      Eigen::VectorXd x(12);
      x.head<3>() << U(rng), U(rng), -3 + U(rng);
      x.segment<3>(3) << 0.6 * U(rng), 0.6 * U(rng), 3 * U(rng);
      for (int i = 6; i < 12; ++i) x[i] = 0.5 * U(rng);
      const Eigen::VectorXd u = random_thrust(model);
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


TEST_CASE("The prediction models against Nereid's plant: Raybot") { CheckPredictionAgainstPlant("raybot/raybot.xml", "raybot"); }
TEST_CASE("The prediction models against Nereid's plant: BlueROV (6 T200, PWM)") {
  CheckPredictionAgainstPlant("bluerov/bluerov.xml", "rov");
}
TEST_CASE("The prediction models against Nereid's plant: BlueROV2 Heavy (8 T200, PWM)") {
  CheckPredictionAgainstPlant("bluerov2_heavy/bluerov2_heavy.xml", "heavy");
}

TEST_CASE("With no active constraint the MPC equals the finite-horizon LQR (double integrator)") {
  // x = [p, v], x_dot = [v, u]; the implicit RK4 step of this nilpotent system is exact:
  // A_d = [1 h; 0 1], B_d = [h^2/2; h]
  const casadi::SX x = casadi::SX::sym("x", 2), u = casadi::SX::sym("u", 1);
  mpc::OcpSpec spec;
  spec.dynamics = casadi::Function("double_integrator", {x, u}, {casadi::SX::vertcat({x(1), u(0)})});
  spec.horizon = 12;
  spec.dt = 0.5;
  spec.q = Eigen::Vector2d(3.0, 0.5);
  spec.r = Eigen::VectorXd::Constant(1, 0.7);
  const double inf = std::numeric_limits<double>::infinity();
  spec.x_lo = Eigen::Vector2d::Constant(-inf);
  spec.x_hi = Eigen::Vector2d::Constant(inf);
  spec.u_lo = Eigen::VectorXd::Constant(1, -inf);
  spec.u_hi = Eigen::VectorXd::Constant(1, inf);
  for (const bool implicit : {true, false}) {
    spec.implicit = implicit;
    mpc::Ocp ocp(spec);
    const double h = spec.dt;
    Eigen::Matrix2d A;
    A << 1, h, 0, 1;
    const Eigen::Vector2d B(h * h / 2, h);
    const Eigen::Vector2d x0(1.3, -0.4);
    CHECK((ocp.Discrete(x0, Eigen::VectorXd::Constant(1, 0.9)) - (A * x0 + B * 0.9)).norm() <= 1e-12);
    // Riccati recursion with P_N = Q_N = 2 Q (the seed's eq. 4.6)
    const Eigen::Matrix2d Q = spec.q.asDiagonal();
    const double R = spec.r[0];
    Eigen::Matrix2d P = 2 * Q;
    std::vector<Eigen::RowVector2d> K(static_cast<size_t>(spec.horizon));
    for (int k = spec.horizon - 1; k >= 0; --k) {
      const double s = R + B.dot(P * B);
      K[static_cast<size_t>(k)] = (B.transpose() * P * A) / s;
      P = Q + A.transpose() * P * A - A.transpose() * P * B * K[static_cast<size_t>(k)];
    }
    const mpc::OcpSolution sol = ocp.Solve(x0, Eigen::MatrixXd::Zero(2, spec.horizon + 1));
    CHECK(sol.ok);
    Eigen::Vector2d xk = x0;
    double worst = 0;
    for (int k = 0; k < spec.horizon; ++k) {
      const double lqr = -K[static_cast<size_t>(k)] * xk;
      worst = std::max(worst, std::abs(sol.U(0, k) - lqr));
      worst = std::max(worst, (sol.X.col(k) - xk).cwiseAbs().maxCoeff());
      xk = A * xk + B * lqr;
    }
    MESSAGE((implicit ? "implicit" : "explicit") << " RK4: MPC vs LQR, largest difference in u and x " << worst
                                                 << " (" << sol.iterations << " SQP iterations, " << sol.status << ")");
    CHECK(worst <= 1e-8);
  }
}

// runs a scenario text with the MPC, from the Raybot model; returns the summary text
std::string RunScenario(const std::string& json_text, const std::string& name, RunResult* result = nullptr) {
  EnableMpc();
  const std::string dir = (std::filesystem::temp_directory_path() / ("nereid_mpc_" + name)).string();
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/scenario.json";
  std::ofstream(file) << json_text;
  RunOptions options;
  options.input = file;
  options.out_dir = dir;
  const RunResult r = Run(options, nullptr);
  if (result) *result = r;
  std::ifstream in(dir + "/summary.json");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string RaybotScenario(const std::string& controller_extra, const std::string& initial = "[0, 0.1, -1.9]",
                           double duration = 25) {
  return std::string("{\"model\": \"") + test::ModelPath("raybot/raybot.xml") +
         "\", \"duration\": " + std::to_string(duration) +
         ", \"dt\": 0.005, \"integrator\": \"rk4\", \"initial_state\": {\"bodies\": {\"raybot\": "
         "{\"position\": " + initial + controller_extra.substr(0, 0) +
         "}}}, \"controller\": {\"type\": \"mpc\", \"body\": \"raybot\", \"path\": {\"zigzag\": "
         "{\"z_top\": -2, \"stroke_height\": 2, \"stroke_spacing\": 1.25, \"strokes\": 2, \"num\": 15}}" +
         controller_extra + "}}";
}

TEST_CASE("Every plan and every step of a run respects the thrust and velocity bounds") {
  EnableMpc();
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"), SimulationOptions{});
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  const int body = mj_name2id(m, mjOBJ_BODY, "raybot");
  sim->Reset(0);
  ZigZagSpec zz;
  // points 0.5 m apart (num = 2) and a tenth of the seed's thrust cost: the references
  // run ahead at about 1 m/s, which keeps thrusters at their bounds
  zz.z_top = -2, zz.stroke_height = 2, zz.stroke_spacing = 1.25, zz.strokes = 2, zz.point_spacing = 0.5;
  MpcOptions options;
  options.cost_thrust = 0.006;
  MpcPathFollower follower(*sim, body, ZigZagPath(zz), options, {ReferenceRule::Kind::kClosestAhead, 0.1, 1}, 50);
  const ThrusterSet& thrusters = follower.mpc().thrusters();
  double max_thrust_excess = 0, max_velocity = 0, max_planned = 0;
  int at_a_bound = 0;
  for (int step = 0; step < 6000 && !follower.done(); ++step) {
    follower.Update(m, d, body, m->opt.timestep);
    sim->Step();
    const Eigen::VectorXd x = follower.mpc().State(d);
    max_velocity = std::max(max_velocity, x.segment<6>(6).cwiseAbs().maxCoeff());
    for (size_t i = 0; i < thrusters.actuators.size(); ++i) {
      const double f = d->actuator_force[thrusters.outputs[i]];
      max_thrust_excess = std::max({max_thrust_excess, f - 36.0, -28.0 - f});
    }
  }
  int fallbacks = 0;
  for (const auto& row : follower.log()) {
    max_planned = std::max(max_planned, row.plan.max_velocity_planned);
    fallbacks += row.plan.fallback;
    at_a_bound += (row.plan.thrust.array() >= 36 - 1e-6).any() || (row.plan.thrust.array() <= -28 + 1e-6).any();
  }
  MESSAGE(follower.log().size() << " plans (" << fallbacks << " failed), " << at_a_bound << " with a thruster at its bound; largest planned |nu_i| "
                                << max_planned << ", largest |nu_i| of the vehicle " << max_velocity);
  CHECK(follower.done());
  CHECK(fallbacks <= static_cast<int>(follower.log().size()) / 10);
  CHECK(max_thrust_excess <= 1e-9);           // eq. 4.4, exactly
  CHECK(max_planned <= 0.5 + 1e-6);           // eq. 4.3 on the planned states (QP tolerance)
  CHECK(at_a_bound >= static_cast<int>(follower.log().size()) / 2);  // the thrust bounds were active
  CHECK(max_velocity <= 0.5 + 0.02);          // the vehicle, at every step, within 4 % (the
                                              // plan holds only at the 0.5 s nodes)
}

// The shipped station-keeping scenarios (scenarios/mpc/): the BlueROV (6 T200) and the
// BlueROV2 Heavy (8 T200), both on PWM through their thruster maps, move 1.2 m and turn
// 0.5 rad under the MPC with the full prediction model, and hold the station.
void CheckStation(const char* scenario, const char* body_name) {
  EnableMpc();
  const std::string dir = (std::filesystem::temp_directory_path() / ("nereid_mpc_" + std::string(body_name))).string();
  std::filesystem::create_directories(dir);
  RunOptions options;
  options.input = std::string(NEREID_SOURCE_DIR) + "/scenarios/mpc/" + scenario;
  options.out_dir = dir;
  options.duration = 8;
  const RunResult r = Run(options, nullptr);
  // the last row of trajectory.csv: time, then the body's px py pz qw qx qy qz, ...
  std::ifstream csv(dir + "/trajectory.csv");
  std::string header, line, last;
  std::getline(csv, header);
  REQUIRE(header.rfind(std::string("time,") + body_name + ".px", 0) == 0);
  while (std::getline(csv, line)) last = line;
  std::vector<double> row;
  std::stringstream cells(last);
  for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
  REQUIRE(row.size() >= 8);
  const Vec3 error = Vec3(row[1], row[2], row[3]) - Vec3(1, 0.5, -2.5);
  const Eigen::Quaterniond attitude(row[4], row[5], row[6], row[7]);
  const Eigen::Quaterniond target(Eigen::AngleAxisd(0.5, Vec3::UnitZ()));
  const double angle = Eigen::AngleAxisd(attitude * target.conjugate()).angle();
  std::ifstream in(dir + "/summary.json");
  const std::string summary((std::istreambuf_iterator<char>(in)), {});
  MESSAGE(scenario << ": after 8 s, " << error.norm() << " m and " << angle << " rad from the station");
  CHECK_FALSE(r.diverged);
  CHECK(summary.find("\"completed\": true") != std::string::npos);  // within 2 cm once
  CHECK(error.norm() < 0.01);
  CHECK(angle < 0.02);
  CHECK(summary.find("\"failed_solves\": 0") != std::string::npos);
}

TEST_CASE("MPC station keeping on the BlueROV (6 T200, PWM)") { CheckStation("bluerov_station.json", "rov"); }
TEST_CASE("MPC station keeping on the BlueROV2 Heavy (8 T200, PWM)") {
  CheckStation("bluerov2_heavy_station.json", "heavy");
}

TEST_CASE("The MPC as a policy for the station-keeping RL task beats zero thrust and holds the station") {
  rl::BatchEnv batch("BlueROV2StationKeeping-v0", 1, 1);
  MpcOptions options;
  options.control_period = 0.1;  // 5 environment steps
  options.horizon = 20;
  options.prediction = MpcPrediction::kFull;
  MpcPolicy policy(batch.env(0), options);  // the nominal model
  std::vector<float> action(static_cast<size_t>(batch.action_size()));
  auto episode = [&](bool mpc) {
    batch.Reset(10000);  // the same episode for both
    policy.Reset();
    double total = 0;
    for (;;) {
      if (mpc) {
        policy.Act(action.data());
      } else {
        std::fill(action.begin(), action.end(), 0.0f);
      }
      for (float a : action) REQUIRE(std::abs(a) <= 1.0f);
      batch.Step(action.data());
      total += batch.rewards()[0];
      if (batch.terminated()[0] || batch.truncated()[0]) {
        const float* o = batch.final_observations();
        return std::make_pair(total, std::sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]));
      }
    }
  };
  const auto [mpc_return, mpc_error] = episode(true);
  const auto [zero_return, zero_error] = episode(false);
  MESSAGE("one episode: MPC return " << mpc_return << " (ends " << mpc_error << " m off), zero thrust "
                                     << zero_return << " (" << zero_error << " m); " << policy.plans() << " plans, "
                                     << policy.failed_solves() << " failed");
  CHECK(policy.plans() == 100);  // 10 s at 0.1 s
  CHECK(policy.failed_solves() == 0);
  CHECK(mpc_return > zero_return);
  CHECK(mpc_error < 0.02);
  options.control_period = 0.03;
  CHECK_THROWS_AS(MpcPolicy(batch.env(0), options), ConfigError);   // not whole env steps
}

// Every task gives the MPC its references (rl::Task::References); `nereid baselines` flies
// each with MpcPolicy::DefaultsFor. On the truth:
TEST_CASE("The MPC as a policy docks the chaser on the docking task") {
  rl::BatchEnv batch("BlueROVDocking-v0", 1, 1);
  MpcPolicy policy(batch.env(0), MpcPolicy::DefaultsFor(rl::FindTask("BlueROVDocking-v0")));  // the nominal model
  std::vector<float> action(static_cast<size_t>(batch.action_size()));
  batch.Reset(10000);  // the chaser starts 0.7-1 m from the docking pose
  policy.Reset();
  bool ended = false;
  float error = 0, total = 0;
  int steps = 0;
  for (; steps < 250 && !ended; ++steps) {  // at most 5 s
    policy.Act(action.data());
    batch.Step(action.data());
    total += batch.rewards()[0];
    ended = batch.terminated()[0] || batch.truncated()[0];
    const float* o = batch.final_observations();
    error = std::sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
  }
  MESSAGE("docking: ended " << ended << " after " << steps << " steps, " << error << " m off, return " << total
                            << "; " << policy.plans() << " plans, " << policy.failed_solves() << " failed");
  // it ends only by docking (within 3 cm, 0.05 rad, 0.1 m/s: +20) or 4 m away
  REQUIRE(ended);
  CHECK(error < 0.03);
  CHECK(total > 0);  // the docking bonus outweighs the approach's costs
}

TEST_CASE("The MPC as a policy follows the quay wall's path with seed 002's settings") {
  rl::BatchEnv batch("RaybotQuayWall-v0", 1, 1);
  MpcPolicy policy(batch.env(0), MpcPolicy::DefaultsFor(rl::FindTask("RaybotQuayWall-v0")));
  std::vector<float> action(static_cast<size_t>(batch.action_size()));
  auto run = [&](bool mpc) {  // 10 s (20 plans) of the same episode
    batch.Reset(10000);
    policy.Reset();
    float total = 0;
    for (int k = 0; k < 500; ++k) {
      if (mpc) {
        policy.Act(action.data());
      } else {
        std::fill(action.begin(), action.end(), 0.0f);
      }
      batch.Step(action.data());
      total += batch.rewards()[0];
      REQUIRE(!(batch.terminated()[0] || batch.truncated()[0]));
    }
    return std::make_pair(total, batch.observations()[15]);  // the progress along the path
  };
  const auto [mpc_return, mpc_progress] = run(true);
  const auto [zero_return, zero_progress] = run(false);
  MESSAGE("quay wall, 10 s: MPC return " << mpc_return << ", progress " << mpc_progress << "; zero thrust "
                                         << zero_return << ", " << zero_progress << "; " << policy.plans()
                                         << " plans, " << policy.failed_solves() << " failed");
  CHECK(policy.plans() == 20);  // 10 s at 0.5 s
  CHECK(policy.failed_solves() == 0);
  // down the first stroke: a tenth of the path in 10 s (measured 0.103; zero thrust 0.009)
  CHECK(mpc_progress > 0.07);
  CHECK(mpc_return > zero_return);
}

// The Heavy with a motor lag on its thrusters (time_constant 0.05 s: each actuator's shaft
// speed in act), written to `dir`; with `behind` it sits behind MuJoCo 3.14 actuators with
// 3, 3 and 0 controls (an orientation servo with 3 force outputs, a <pid input="pos vel ff">,
// an input-less <dcmotor>), so that thruster j has control 6 + j and force output 5 + j.
std::string LaggedHeavy(const std::string& dir, bool behind) {
  std::ifstream in(test::ModelPath("bluerov2_heavy/bluerov2_heavy.xml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string heavy = text.str();
  const std::string limits = "<config key=\"thrust_limits\"";
  heavy.insert(heavy.find(limits), "<config key=\"time_constant\" value=\"0.05\"/>\n        ");
  for (size_t at = 0; (at = heavy.find("<plugin name=\"thr", at)) != std::string::npos; at += 8) {
    heavy.insert(at + 8, "actdim=\"1\" ");
  }
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/heavy_lagged.xml";
  std::ofstream(path) << heavy;
  if (!behind) return path;
  const std::string multi = dir + "/heavy_lagged_behind.xml";
  std::ofstream(multi) << test::BehindMultiControlActuators(path);
  return multi;
}

TEST_CASE("The full model's lagged thrusts are each thruster's own force, behind actuators with 0 or several controls") {
  const std::string dir = (std::filesystem::temp_directory_path() / "nereid_mpc_lagged").string();
  SimulationOptions options;
  options.edit = [](mjSpec* spec) {  // the Heavy's keyframe is sized for the Heavy alone
    while (mjsElement* key = mjs_firstElement(spec, mjOBJ_KEY)) mjs_delete(spec, key);
  };
  auto alone = Simulation::LoadFile(LaggedHeavy(dir, false), options);
  auto behind = Simulation::LoadFile(LaggedHeavy(dir, true), options);
  REQUIRE(behind->model()->nu == 14);
  REQUIRE(behind->model()->nout == 13);
  MpcOptions mpc_options;
  mpc_options.prediction = MpcPrediction::kFull;
  const int heavy = mj_name2id(alone->model(), mjOBJ_BODY, "heavy");
  VehicleMpc mpc_alone(*alone, heavy, mpc_options);
  VehicleMpc mpc_behind(*behind, mj_name2id(behind->model(), mjOBJ_BODY, "heavy"), mpc_options);
  REQUIRE(mpc_alone.state_size() == 20);  // 12 + 8 lagged thrusts
  REQUIRE(mpc_behind.state_size() == 20);
  // the same commands, 0.2 s: each thruster's force lags its own command
  for (int k = 0; k < 40; ++k) {
    for (int j = 0; j < 8; ++j) {
      alone->data()->ctrl[j] = behind->data()->ctrl[6 + j] = 1500 + 40 * (j - 3.5);
    }
    REQUIRE(alone->TryStep());
    REQUIRE(behind->TryStep());
  }
  const Eigen::VectorXd x_alone = mpc_alone.State(alone->data()), x_behind = mpc_behind.State(behind->data());
  for (int j = 0; j < 8; ++j) {
    CAPTURE(j);
    CHECK(x_behind[12 + j] == behind->data()->actuator_force[5 + j]);
    CHECK(x_behind[12 + j] == x_alone[12 + j]);
  }
  CHECK(std::abs(x_alone[12] - x_alone[19]) > 1);  // the thrusts differ: no slot could stand in for another
  std::filesystem::remove_all(dir);
}

TEST_CASE("The yaw reference is unwrapped along the horizon: a turn through +-pi takes the short way") {
  // the Raybot at yaw 170 degrees, its references turning 15 degrees per stage (225 over
  // N = 15, as a pillar helix's points do), each given in -180..180: the references cross
  // +-pi at stage 1 and pass 360 degrees from the state at stage 13
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"), SimulationOptions{});
  const int body = mj_name2id(sim->model(), mjOBJ_BODY, "raybot");
  sim->Reset(0);
  MpcOptions options;
  VehicleMpc mpc(*sim, body, options);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(mpc.state_size());
  const double from = 170 * M_PI / 180, step = 15 * M_PI / 180;
  x << 0, 0, -2, 0, 0, from, 0, 0, 0, 0, 0, 0;
  std::vector<Vec6> refs;
  for (int k = 0; k <= options.horizon; ++k) {
    Vec6 ref;
    ref << 0, 0, -2, 0, 0, std::remainder(from + k * step, 2 * M_PI);
    refs.push_back(ref);
  }
  const MpcPlan plan = mpc.Plan(x, refs);
  REQUIRE_FALSE(plan.fallback);
  const Eigen::VectorXd yaw = plan.states.row(5).transpose();
  double least_step = 0;
  for (Eigen::Index k = 1; k < yaw.size(); ++k) least_step = std::min(least_step, yaw[k] - yaw[k - 1]);
  MESSAGE("planned yaw from " << yaw[0] << " to " << yaw[yaw.size() - 1] << " rad; most negative step " << least_step);
  // one way only, counter-clockwise, up to the rate limit: 0.5 rad/s over 7.5 s is 3.75 rad,
  // the references ask 3.93 rad
  CHECK(least_step > -1e-6);
  CHECK(yaw[yaw.size() - 1] - from > M_PI);  // through +pi and more than half a turn on
  CHECK(yaw.maxCoeff() - from <= options.velocity_limit * options.horizon * options.control_period + 1e-6);
}

TEST_CASE("A failed solve gives a named warning and the fallback input, never an abort") {
  // spinning at 6 rad/s in yaw: the largest yaw moment the thrusters give (about 65 N m
  // on 9.4 kg m^2 with added inertia) cannot bring r within 0.5 rad/s in 0.5 s, so eq. 4.3
  // is infeasible for x_1
  RunResult result;
  const std::string text = RaybotScenario(", \"stop_when_done\": false", "[0, 0.1, -1.9], \"angular_velocity\": [0, 0, 6]", 3);
  std::string summary;
  CHECK_NOTHROW(summary = RunScenario(text, "infeasible", &result));
  CHECK_FALSE(result.diverged);
  CHECK(summary.find("mpc: solve failed at t = 0.000000 s") != std::string::npos);
  CHECK(summary.find("\"failed_solves\": 0") == std::string::npos);
}

TEST_CASE("A plan's work is bounded: a QP that needs more than kMaxQpIterations fails and falls back") {
  // the BlueROV2 Heavy's station with a thrust cost of 1e-12: the QP is nearly singular in
  // the thrusts, and qrqp's own limit (1000 active-set iterations) let the first plan run
  // for seconds (80 s with no thrust cost at all); bounded, the QP stops at
  // kMaxQpIterations and the plan falls back with the solver's reason in the warning
  std::ifstream in(std::string(NEREID_SOURCE_DIR) + "/scenarios/mpc/bluerov2_heavy_station.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  const std::string model = "\"../../models/bluerov2_heavy/bluerov2_heavy.xml\"";
  const std::string cost = "\"cost_thrust\": 0.06";
  REQUIRE(text.find(model) != std::string::npos);
  REQUIRE(text.find(cost) != std::string::npos);
  text.replace(text.find(model), model.size(), "\"" + test::ModelPath("bluerov2_heavy/bluerov2_heavy.xml") + "\"");
  text.replace(text.find(cost), cost.size(), "\"cost_thrust\": 1e-12");
  text.replace(text.find("\"duration\": 10"), 14, "\"duration\": 0.3");
  RunResult result;
  std::string summary;
  CHECK_NOTHROW(summary = RunScenario(text, "near_singular", &result));
  CHECK_FALSE(result.diverged);
  CHECK(summary.find("mpc: solve failed at t = 0.000000 s") != std::string::npos);
  CHECK(summary.find("Maximum_Iterations_Exceeded") != std::string::npos);
  const auto at = summary.find("\"solve_time_max_s\": ");
  REQUIRE(at != std::string::npos);
  // 4 SQP iterations x 100 QP iterations: 0.4 s on 2 cores (4 s with qrqp's own limit)
  CHECK(std::stod(summary.substr(at + 20)) < 2.0);
}

TEST_CASE("MPC scenario errors name the JSON path and value") {
  auto error_of = [](const std::string& extra) {
    try {
      RunScenario(RaybotScenario(extra), "errors");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of(", \"horizon\": 0").find("/controller/horizon: expected an integer in 1..100 (got 0)") != std::string::npos);
  CHECK(error_of(", \"horizon\": 5000").find("1..100") != std::string::npos);
  CHECK(error_of(", \"cost_rot\": -1").find("/controller/cost_rot: must be >= 0") != std::string::npos);
  CHECK(error_of(", \"cost_pos\": -1").find("/controller/cost_pos: must be >= 0") != std::string::npos);
  // no thrust cost: the QP is singular in the thrusts (one plan of the Heavy's station ran
  // 80 s); the key table's range (> 0) and the reason, at the key
  for (const char* bad : {"-1", "0"}) {
    const std::string e = error_of(std::string(", \"cost_thrust\": ") + bad);
    INFO(e);
    CHECK(e.find("/controller/cost_thrust: must be > 0 (R = cost_thrust I is the QP's Hessian") != std::string::npos);
    CHECK(e.find(std::string("(got ") + bad + ")") != std::string::npos);
  }
  {  // through the C++ API, where no scenario parser stands in front: the MPC refuses it itself
    auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"), SimulationOptions{});
    const int body = mj_name2id(sim->model(), mjOBJ_BODY, "raybot");
    for (double bad : {0.0, -1.0, std::nan("")}) {
      MpcOptions options;
      options.cost_thrust = bad;
      CHECK_THROWS_WITH_AS(VehicleMpc(*sim, body, options), doctest::Contains("MPC: cost_thrust must be > 0"),
                           ConfigError);
    }
  }
  CHECK(error_of(", \"integrator\": \"euler\"").find("/controller/integrator: expected \"irk4\" or \"rk4\" (got \"euler\")") !=
        std::string::npos);
  CHECK(error_of(", \"prediction\": \"exact\"").find("/controller/prediction") != std::string::npos);
  CHECK(error_of(", \"solver\": {\"qp\": \"gurobi\"}").find("/controller/solver/qp") != std::string::npos);
  CHECK(error_of(", \"solver\": {\"max_sqp_iterations\": 0}").find("/controller/solver/max_sqp_iterations") != std::string::npos);
  CHECK(error_of(", \"solver\": {\"max_sqp_iterations\": 1000}").find("1..100") != std::string::npos);
  CHECK(error_of(", \"control_period\": 0.4999").find("whole number of time steps") != std::string::npos);
  CHECK(error_of(", \"gains\": {}").find("/controller/gains: unknown key") != std::string::npos);
}

}  // TEST_SUITE

}  // namespace
}  // namespace nereid
