// Copyright Nereid authors.
// The controller library: mass matrix, PID with anti-windup, cascaded PID, path following.
#include <cmath>
#include <filesystem>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/control.h"
#include "nereid/path.h"
#include "nereid/runner.h"
#include "nereid/simulation.h"
#include "test_util.h"

namespace nereid {
namespace {

TEST_SUITE("control") {

TEST_CASE("VehicleMassMatrix equals the engine's inertia (rigid + added) of a free body") {
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"));
  const int body = mj_name2id(sim->model(), mjOBJ_BODY, "raybot");
  sim->Reset(0);  // identity orientation: free-joint dofs = body-frame dofs
  std::vector<mjtNum> dense(36);
  mj_fullM(sim->model(), sim->data(), dense.data());
  const Mat6 engine = Eigen::Map<Eigen::Matrix<double, 6, 6, Eigen::RowMajor>>(dense.data());
  const Mat6 M = VehicleMassMatrix(*sim, body);
  CHECK((engine - M).cwiseAbs().maxCoeff() <= 1e-12);
  CHECK(M(0, 0) == doctest::Approx(26.33 + 27.96));  // seed 002: m + X_udot
  // with an offset centre of mass the rigid block couples translation and rotation
  auto offset = Simulation::LoadString(test::SingleBody(test::Hydro("1 2 3 0.1 0.1 0.1")));
  offset->mutable_model()->body_ipos[3] = 0.1;  // 0.1 m forward
  const Mat6 Mo = VehicleMassMatrix(*offset, 1);
  CHECK(Mo(1, 5) == doctest::Approx(7.31 * 0.1));  // m x_g in the sway-yaw coupling
  CHECK((Mo - Mo.transpose()).cwiseAbs().maxCoeff() <= 1e-15);
}

TEST_CASE("PID anti-windup: a saturated output does not wind up the integral") {
  Pid6 pid;
  pid.kp.setConstant(1);
  pid.ki.setConstant(1);
  pid.output_limit.setConstant(0.5);
  Vec6 error = Vec6::Constant(10);
  for (int k = 0; k < 1000; ++k) pid.Update(error, Vec6::Zero(), 0.01);
  CHECK(pid.integral.cwiseAbs().maxCoeff() == 0);  // pushed into saturation throughout
  const Vec6 out = pid.Update(Vec6::Constant(-0.2), Vec6::Zero(), 0.01);
  CHECK(out[0] == doctest::Approx(-0.2 - 0.002));  // recovers at once, no stored windup
}

TEST_CASE("cascaded PID (seed 002 Table A.1) brings the Raybot back to its station") {
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"));
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  const int body = mj_name2id(m, mjOBJ_BODY, "raybot");
  sim->Reset(0);
  const Vec3 target(0, 0, -2);
  d->qpos[0] = 0.4;
  d->qpos[1] = -0.3;
  d->qpos[2] = -2.5;
  d->qpos[3] = std::cos(0.2);  // 0.4 rad of yaw
  d->qpos[6] = std::sin(0.2);
  CascadedPid pid(*sim, body, CascadedPidGains::Raybot());
  double max_speed = 0, min_thrust = 0, max_thrust = 0;
  for (int k = 0; k < 12000; ++k) {  // 60 s
    pid.Update(m, d, target, Eigen::Quaterniond::Identity(), m->opt.timestep);
    max_speed = std::max(max_speed, pid.velocity_command().cwiseAbs().maxCoeff());
    min_thrust = std::min(min_thrust, pid.thrust().minCoeff());
    max_thrust = std::max(max_thrust, pid.thrust().maxCoeff());
    sim->Step();
  }
  const Vec6 e = PoseError(d, body, target, Eigen::Quaterniond::Identity());
  MESSAGE("station error after 60 s: " << e.head<3>().norm() << " m, " << e.tail<3>().norm() << " rad");
  CHECK(e.head<3>().norm() < 0.01);
  CHECK(e.tail<3>().norm() < 0.01);
  CHECK(max_speed <= 0.5 + 1e-12);  // eq. 4.3 velocity limits on the commands
  CHECK(min_thrust >= -28 - 1e-9);  // eq. 4.4 thrust bounds
  CHECK(max_thrust <= 36 + 1e-9);
}

TEST_CASE("zig-zag path: geometry, and the quay-wall scenario completes") {
  ZigZagSpec spec;
  spec.strokes = 3;
  spec.stroke_height = 2;
  spec.stroke_spacing = 1;
  const Path path = ZigZagPath(spec);
  CHECK(path.Length() == doctest::Approx(3 * 2 + 2 * M_PI * 0.5).epsilon(0.01));
  CHECK(path.points.front().isApprox(Vec3(0, 0, -1)));
  CHECK(path.points.back().isApprox(Vec3(0, 2, -3)));
  CHECK(path.Distance(Vec3(0.2, 0, -2)) == doctest::Approx(0.2));
  for (size_t i = 1; i < path.points.size(); ++i) {
    CHECK((path.points[i] - path.points[i - 1]).norm() <= spec.point_spacing + 1e-9);
  }

  RunOptions options;
  options.input = std::string(NEREID_SOURCE_MODEL_DIR) + "/../scenarios/raybot_quay_wall.json";
  options.out_dir = (std::filesystem::temp_directory_path() / "nereid_quay_wall").string();
  options.record_every = 100;
  const RunResult result = Run(options);
  CHECK_FALSE(result.diverged);
  CHECK(result.sim_time < 400);  // stopped at the end of the path
  std::filesystem::remove_all(options.out_dir);
}

TEST_CASE("CommandDelay: a command given at t acts from t + latency, zero before the first") {
  CommandDelay delay(0.1);
  const Eigen::VectorXd a = Eigen::VectorXd::Constant(2, 1.0), b = Eigen::VectorXd::Constant(2, 2.0);
  const double dt = 0.005;
  std::vector<double> acting;
  for (int k = 0; k <= 40; ++k) {  // a given at steps 0-19 (t < 0.1 s), b from step 20
    const double t = k * dt;
    delay.Give(t, t < 0.1 - 1e-12 ? a : b);
    acting.push_back(delay.At(t, 2)[0]);
  }
  for (int k = 0; k < 20; ++k) CHECK(acting[static_cast<size_t>(k)] == 0.0);   // nothing due before 0.1 s
  for (int k = 20; k < 40; ++k) CHECK(acting[static_cast<size_t>(k)] == 1.0);  // a, given 0.1 s earlier
  CHECK(acting[40] == 2.0);                                                     // b from 0.2 s
  CommandDelay none;  // latency 0: every command acts at once
  none.Give(0, a);
  CHECK(none.At(0, 2) == a);
  none.Give(0.005, b);
  CHECK(none.At(0.005, 2) == b);
}

TEST_CASE("a path follower's latency delays its thrust: zero first, then the delayed command") {
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"));
  auto twin = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"));
  sim->Reset(0);
  twin->Reset(0);
  const int body = mj_name2id(sim->model(), mjOBJ_BODY, "raybot");
  ZigZagSpec spec;
  spec.strokes = 1;
  const double latency = 0.05, dt = sim->model()->opt.timestep;
  PathFollower delayed(ZigZagPath(spec), CascadedPid(*sim, body), ReferenceRule{}, 0, latency);
  PathFollower direct(ZigZagPath(spec), CascadedPid(*twin, body), ReferenceRule{}, 0);
  const int lag = static_cast<int>(std::lround(latency / dt));
  const Eigen::Index nu = sim->model()->nu;
  std::vector<Eigen::VectorXd> direct_ctrl;
  for (int k = 0; k <= lag; ++k) {
    delayed.Update(sim->model(), sim->data(), body, dt);
    direct.Update(twin->model(), twin->data(), body, dt);
    direct_ctrl.emplace_back(Eigen::Map<const Eigen::VectorXd>(twin->data()->ctrl, nu));
    const Eigen::VectorXd ctrl = Eigen::Map<const Eigen::VectorXd>(sim->data()->ctrl, nu);
    if (k < lag) {
      CHECK(ctrl.isZero());
    } else {  // the first command, computed at step 0 from the twin's state, acts now
      CHECK(ctrl.isApprox(direct_ctrl[0], 1e-12));
    }
    sim->Step();
    twin->Step();
  }
  CHECK_FALSE(direct_ctrl[0].isZero());
}

TEST_CASE("a path follower at the pose rate changes its thrust only at the pose samples") {
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"));
  sim->Reset(0);
  const int body = mj_name2id(sim->model(), mjOBJ_BODY, "raybot");
  ZigZagSpec spec;
  spec.strokes = 1;
  const double period = 0.05, dt = sim->model()->opt.timestep;
  PathFollower follower(ZigZagPath(spec), CascadedPid(*sim, body), ReferenceRule{}, period, 0, true);
  const int every = static_cast<int>(std::lround(period / dt));
  const Eigen::Index nu = sim->model()->nu;
  Eigen::VectorXd previous;
  int changes_off_sample = 0, changes_on_sample = 0;
  for (int k = 0; k < 10 * every; ++k) {
    follower.Update(sim->model(), sim->data(), body, dt);
    const Eigen::VectorXd ctrl = Eigen::Map<const Eigen::VectorXd>(sim->data()->ctrl, nu);
    if (k > 0 && !ctrl.isApprox(previous, 0)) (k % every == 0 ? changes_on_sample : changes_off_sample)++;
    previous = ctrl;
    sim->Step();
  }
  CHECK(changes_off_sample == 0);
  CHECK(changes_on_sample >= 5);  // the vehicle moves, so the samples' thrusts differ
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
