// Copyright Nereid authors.
// The controller library: mass matrix, PID with anti-windup, cascaded PID, path following.
#include <cmath>
#include <filesystem>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/control.h"
#include "nereid/kinematics.h"
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
  CHECK(path.Length() == doctest::Approx(3 * 2 + 2 * M_PI * 0.5).epsilon(0.01).scale(0));
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

// yaw of a body's attitude (ZYX), -pi..pi
double YawOf(const mjData* d, int body) {
  const Mat3 R = BodyRotation(d, body);
  return std::atan2(R(1, 0), R(0, 0));
}

// yaw of a rotation about +z (roll and pitch zero), -pi..pi
double Yaw(const Eigen::Quaterniond& q) {
  const Mat3 R = q.toRotationMatrix();
  return std::atan2(R(1, 0), R(0, 0));
}

TEST_CASE("pillar path: a helix at the stand-off, facing the pillar, its yaw turning through +-pi") {
  PillarSpec spec;
  spec.center_x = 2;
  spec.center_y = -1;
  spec.radius = 0.4;
  spec.standoff = 1.1;
  spec.z_start = -1;
  spec.z_end = -2.5;
  spec.turns = 1.5;
  spec.point_spacing = 0.05;
  for (const bool ccw : {true, false}) {
    spec.ccw = ccw;
    const Path path = PillarPath(spec);
    REQUIRE(path.orientations.size() == path.points.size());
    // length: the helix's closed form, sqrt((2 pi r turns)^2 + dz^2)
    const double length = std::hypot(2 * M_PI * 1.5 * 1.5, 1.5);
    CHECK(spec.Length() == doctest::Approx(length).epsilon(1e-12));
    CHECK(path.Length() == doctest::Approx(length).epsilon(1e-3).scale(0));  // chords of 0.05 m on r = 1.5 m
    CHECK(path.points.front().isApprox(Vec3(2 - 1.5, -1, -1), 1e-12));  // start_angle pi: the -x side
    CHECK(path.points.back().z() == doctest::Approx(-2.5).epsilon(1e-12));
    double turned = 0, worst_radius = 0, worst_facing = 0, worst_slope = 0;
    for (size_t i = 0; i < path.points.size(); ++i) {
      const Vec3 p = path.points[i];
      const Eigen::Vector2d to_axis = Eigen::Vector2d(2, -1) - p.head<2>();
      worst_radius = std::max(worst_radius, std::abs(to_axis.norm() - 1.5));
      // the vehicle's x axis points at the axis, level
      const Vec3 forward = path.orientations[i] * Vec3::UnitX();
      worst_facing = std::max(worst_facing, (forward.head<2>() - to_axis.normalized()).norm() + std::abs(forward.z()));
      if (i == 0) continue;
      CHECK((p - path.points[i - 1]).norm() <= spec.point_spacing + 1e-12);
      // equal angle steps are equal depth steps (a constant pitch)
      const double step = std::remainder(Yaw(path.orientations[i]) - Yaw(path.orientations[i - 1]), 2 * M_PI);
      worst_slope = std::max(worst_slope, std::abs((p.z() - path.points[i - 1].z()) / step * (ccw ? 1 : -1) -
                                                   (-1.5 / (2 * M_PI * 1.5))));
      turned += step;
    }
    CHECK(worst_radius <= 1e-12);
    CHECK(worst_facing <= 1e-12);
    CHECK(worst_slope <= 1e-9);
    // one and a half turns of yaw, in the path's direction: through +-pi at least once
    CHECK(turned == doctest::Approx((ccw ? 1 : -1) * 2 * M_PI * 1.5).epsilon(1e-12));
    CHECK(Yaw(path.orientations.front()) == doctest::Approx(0).epsilon(1e-12));
  }
}

TEST_CASE("the PID's yaw error is wrapped: a turn through +-pi takes the short way") {
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"));
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  const int body = mj_name2id(m, mjOBJ_BODY, "raybot");
  sim->Reset(0);
  const double from = M_PI - 0.17, to = -M_PI + 0.17;  // 170 and -170 degrees: 20 degrees apart
  const Eigen::Quaterniond q0(Eigen::AngleAxisd(from, Vec3::UnitZ()));
  d->qpos[2] = -2;
  d->qpos[3] = q0.w(), d->qpos[6] = q0.z();
  mj_forward(m, d);
  CascadedPid pid(*sim, body, CascadedPidGains::Raybot());
  const Eigen::Quaterniond q_ref(Eigen::AngleAxisd(to, Vec3::UnitZ()));
  double yaw = from, previous = from, farthest = 0;
  for (int k = 0; k < 2000; ++k) {  // 10 s
    pid.Update(m, d, Vec3(0, 0, -2), q_ref, m->opt.timestep);
    sim->Step();
    const double now = YawOf(d, body);
    yaw += std::remainder(now - previous, 2 * M_PI);  // unwrapped
    previous = now;
    farthest = std::max(farthest, std::abs(yaw - from));
  }
  const double error = std::abs(std::remainder(yaw - to, 2 * M_PI));
  MESSAGE("yaw " << yaw << " rad (unwrapped), error " << error << " rad, farthest from the start " << farthest);
  // it turned +0.34 rad through +pi to -170 degrees, never the 5.94 rad the other way
  CHECK(std::abs(yaw - (from + 0.34)) < 0.01);  // unwrapped: the other way would end near from - 5.94
  CHECK(error < 0.01);  // settling after 10 s (the integral terms): 0.0036 rad
  CHECK(farthest < 0.34 * 1.2);  // at most a 20 % overshoot of the 20-degree turn
}

TEST_CASE("a path follower flies a full turn around a pillar: yaw error bounded through +-pi") {
  auto sim = Simulation::LoadFile(test::ModelPath("raybot/raybot.xml"));
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  const int body = mj_name2id(m, mjOBJ_BODY, "raybot");
  sim->Reset(0);
  PillarSpec spec;
  spec.radius = 0.3;
  spec.standoff = 0.7;
  spec.z_start = spec.z_end = -2;
  spec.turns = 1;
  const Path path = PillarPath(spec);
  d->qpos[0] = path.points[0].x(), d->qpos[1] = path.points[0].y(), d->qpos[2] = path.points[0].z();
  mj_forward(m, d);
  PathFollower follower(path, CascadedPid(*sim, body), ReferenceRule{ReferenceRule::Kind::kClosestAhead, 0.1, 2}, 0);
  double yaw = 0, previous = 0, worst_error = 0;
  int k = 0;
  for (; k < 12000 && !follower.done(); ++k) {  // at most 60 s
    follower.Update(m, d, body, m->opt.timestep);
    sim->Step();
    const double now = YawOf(d, body);
    yaw += std::remainder(now - previous, 2 * M_PI);
    previous = now;
    // yaw error to the path's attitude at the closest point, wrapped
    const double want = Yaw(path.OrientationAt(ClosestPoint(path.points, BodyPosition(d, body))));
    worst_error = std::max(worst_error, std::abs(std::remainder(now - want, 2 * M_PI)));
  }
  const TrackingReport& t = follower.report();
  MESSAGE("pillar turn: " << k * m->opt.timestep << " s, yaw turned " << yaw << " rad, largest yaw error "
                          << worst_error << " rad, cross-track mean " << t.mean_distance << " max " << t.max_distance
                          << " m");
  CHECK(follower.done());
  CHECK(yaw == doctest::Approx(2 * M_PI).epsilon(0.02).scale(0));  // one turn, counter-clockwise, no extra spin
  CHECK(worst_error < 0.2);
  CHECK(t.max_distance < 0.1);
  CHECK(t.mean_distance <= t.max_distance);
  CHECK(t.mse_position <= t.max_distance * t.max_distance);
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
