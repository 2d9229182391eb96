// Copyright Nereid authors.
// The task registry. Each task documents its spaces, reward, termination and
// randomisation in its TaskSpec::description (also shown by the Python package).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "nereid/allocation.h"
#include "nereid/control.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/path.h"
#include "nereid/rl.h"
#include "rl/docking_sensors.h"
#include "rl/vehicle_sensors.h"

namespace nereid::rl {
namespace {

double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// The thrusters of `body` in model m, one copy shared by every task on that model (the
// environments of a batch share one compiled model). Apply reads each thruster's thrust
// and command tables at every step: with a copy per environment a batch of 256 read 256
// copies in turn, about 57 cache lines per environment step from beyond the core's L2
// (cachegrind), where one shared copy stays in the cache. An entry lives while a task
// holds it, and a task never outlives its model, so an address in the table is never
// a freed model's.
std::shared_ptr<const ThrusterSet> SharedThrusters(const mjModel* m, int body) {
  static std::mutex mutex;
  static std::map<std::pair<const mjModel*, int>, std::weak_ptr<const ThrusterSet>> shared;
  std::lock_guard<std::mutex> lock(mutex);
  std::erase_if(shared, [](const auto& entry) { return entry.second.expired(); });
  std::weak_ptr<const ThrusterSet>& entry = shared[{m, body}];
  std::shared_ptr<const ThrusterSet> set = entry.lock();
  if (!set) {
    set = std::make_shared<const ThrusterSet>(FindThrusters(m, body));
    entry = set;
  }
  return set;
}

// A vehicle flown through its thrusters: actions in [-1, 1] scale each thruster's
// reachable forward (a > 0) or reverse (a < 0) thrust.
class ThrusterVehicle {
 public:
  ThrusterVehicle(const Simulation& sim, const char* body_name)
      : body_(mj_name2id(sim.model(), mjOBJ_BODY, body_name)),
        thrusters_(SharedThrusters(sim.model(), body_)),
        pid_(sim, body_) {}

  int body() const { return body_; }
  int action_size() const { return static_cast<int>(thrusters_->actuators.size()); }
  int actuator(int j) const { return thrusters_->actuators[static_cast<size_t>(j)]; }

  void Apply(Simulation& sim, const float* action) const {
    for (int j = 0; j < action_size(); ++j) {
      const double a = std::clamp(static_cast<double>(action[j]), -1.0, 1.0);
      const double thrust = thrusters_->ThrustForAction(j, a);
      sim.data()->ctrl[thrusters_->controls[static_cast<size_t>(j)]] = thrusters_->CommandFor(j, thrust);
    }
  }

  // body-frame pose error and velocity: [e_p, e_theta, nu] (12 numbers)
  void State(const Simulation& sim, const Vec3& p_ref, float* out,
             const Eigen::Quaterniond& q_ref = Eigen::Quaterniond::Identity()) const {
    const mjData* d = sim.data();
    const Vec6 e = PoseError(d, body_, p_ref, q_ref);
    const Mat3 R = BodyRotation(d, body_);
    const int dof = FreeJointDof(sim.model(), body_);
    const Vec3 v = R.transpose() * Vec3(d->qvel[dof], d->qvel[dof + 1], d->qvel[dof + 2]);
    for (int i = 0; i < 6; ++i) out[i] = static_cast<float>(e[i]);
    for (int i = 0; i < 3; ++i) out[6 + i] = static_cast<float>(v[i]);
    for (int i = 0; i < 3; ++i) out[9 + i] = static_cast<float>(d->qvel[dof + 3 + i]);
  }

  // the cascaded PID's thrusts towards p_ref, as actions, on the state in `d` (the truth
  // or the sensor-derived state: Task::feedback)
  void Scripted(const mjModel* m, mjData* d, const Vec3& p_ref, double dt, float* action,
                const Eigen::Quaterniond& q_ref = Eigen::Quaterniond::Identity()) {
    pid_.Update(m, d, p_ref, q_ref, dt);
    for (int j = 0; j < action_size(); ++j) {
      action[j] = static_cast<float>(thrusters_->ActionForThrust(j, pid_.thrust()[j]));
    }
  }
  void ResetController() { pid_.Reset(); }

  // domain randomisation shared by the tasks
  void Randomise(Simulation& sim, std::mt19937_64& rng, double max_current, double scale) const {
    const double speed = Uniform(rng, 0, max_current), heading = Uniform(rng, -M_PI, M_PI);
    sim.SetCurrent(Vec3(speed * std::cos(heading), speed * std::sin(heading), 0));
    sim.ScaleHydrodynamics(Uniform(rng, 1 - scale, 1 + scale), Uniform(rng, 1 - scale, 1 + scale));
  }

  void Place(Simulation& sim, const Vec3& p, double yaw) const {
    mjData* d = sim.data();
    const int q = sim.model()->jnt_qposadr[sim.model()->body_jntadr[body_]];
    for (int i = 0; i < 3; ++i) d->qpos[q + i] = p[i];
    d->qpos[q + 3] = std::cos(yaw / 2);
    d->qpos[q + 4] = d->qpos[q + 5] = 0;
    d->qpos[q + 6] = std::sin(yaw / 2);
  }

 private:
  int body_;
  std::shared_ptr<const ThrusterSet> thrusters_;
  CascadedPid pid_;
};

float SquaredNorm(const float* x, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}

// ---------- BlueROV2StationKeeping ----------
class StationKeeping final : public Task {
 public:
  explicit StationKeeping(const Simulation& sim) : vehicle_(sim, kBody) {}
  int observation_size() const override { return 12; }
  int action_size() const override { return vehicle_.action_size(); }

  void Reset(Simulation& sim, std::mt19937_64& rng) override {
    sim.Reset(0);
    vehicle_.Randomise(sim, rng, 0.5, 0.2);
    const Vec3 offset(Uniform(rng, -0.5, 0.5), Uniform(rng, -0.5, 0.5), Uniform(rng, -0.5, 0.5));
    vehicle_.Place(sim, kTarget + offset, Uniform(rng, -0.5, 0.5));
    vehicle_.ResetController();
    if (sensors_) {
      sensors_->Reset();
      RestartSensors(sim.model(), sim.data());  // first samples at the placed start
    }
    sim.Forward();
  }
  void ApplyAction(Simulation& sim, const float* action) override { vehicle_.Apply(sim, action); }
  int action_actuator(int j) const override { return vehicle_.actuator(j); }
  void Observe(const Simulation& sim, float* obs) const override { vehicle_.State(sim, kTarget, obs); }
  float Reward(Simulation& sim, const float* action) override { return RewardAndObserve(sim, action, nullptr); }
  // the reward is read from the observation's state (computed once)
  float RewardAndObserve(Simulation& sim, const float* action, float* observation) override {
    float s[12];
    vehicle_.State(sim, kTarget, s);
    if (observation) std::copy(s, s + 12, observation);
    return -(SquaredNorm(s, 3) + 0.3f * SquaredNorm(s + 3, 3) + 0.1f * SquaredNorm(s + 6, 6) +
             0.01f * SquaredNorm(action, action_size()) / static_cast<float>(action_size()));
  }
  bool Terminated(const Simulation& sim) const override {
    return (BodyPosition(sim.data(), vehicle_.body()) - kTarget).norm() > 3.0;
  }
  void ScriptedAction(Simulation& sim, double period, float* action) override {
    vehicle_.Scripted(sim.model(), feedback(sim), kTarget, period, action);
  }
  int controlled_body() const override { return vehicle_.body(); }
  void References(Simulation&, int count, std::vector<Pose>* poses) override {
    poses->assign(static_cast<size_t>(count), Pose{kTarget, Eigen::Quaterniond::Identity()});
  }

  void UseSensors(const Simulation& sim, const TaskSpec& spec, const std::string& model) override {
    sensors_ = std::make_unique<VehicleSensors>(sim, vehicle_.body(), spec.id, model);
  }
  int sensor_observation_size() const override { return VehicleSensors::kSize; }
  void ObserveSensors(const Simulation& sim, float* obs) override {
    sensors_->Update(sim);
    sensors_->Observe(kTarget, 0.0, obs);  // heading north: yaw 0
  }
  mjData* feedback(Simulation& sim) override { return sensors_ ? sensors_->estimate() : sim.data(); }

 private:
  static constexpr const char* kBody = "heavy";
  const Vec3 kTarget{0, 0, -2};
  ThrusterVehicle vehicle_;
  std::unique_ptr<VehicleSensors> sensors_;  // with the "sensors" observation
};

// ---------- RaybotQuayWall ----------
class QuayWall final : public Task {
 public:
  explicit QuayWall(const Simulation& sim) : vehicle_(sim, "raybot") {
    ZigZagSpec spec;
    spec.strokes = 5;
    spec.stroke_spacing = 1.0;
    path_ = ZigZagPath(spec);
  }
  int observation_size() const override { return 16; }
  int action_size() const override { return vehicle_.action_size(); }

  void Reset(Simulation& sim, std::mt19937_64& rng) override {
    sim.Reset(0);
    vehicle_.Randomise(sim, rng, 0.2, 0.1);
    const Vec3 offset(Uniform(rng, -0.1, 0.1), Uniform(rng, -0.1, 0.1), Uniform(rng, -0.1, 0.1));
    vehicle_.Place(sim, path_.points.front() + offset, Uniform(rng, -0.1, 0.1));
    vehicle_.ResetController();
    target_ = 0;
    reached_ = 0;
    if (sensors_) {
      sensors_->Reset();
      RestartSensors(sim.model(), sim.data());  // first samples at the placed start
    }
    sim.Forward();
    Advance(sim);
  }
  void ApplyAction(Simulation& sim, const float* action) override { vehicle_.Apply(sim, action); }
  int action_actuator(int j) const override { return vehicle_.actuator(j); }
  void Observe(const Simulation& sim, float* obs) const override {
    vehicle_.State(sim, path_.points[target_], obs);
    ObserveAhead(sim, obs);
  }
  float Reward(Simulation& sim, const float* action) override { return RewardAndObserve(sim, action, nullptr); }
  // the reward reads the observation's state (computed once, after the reference advanced)
  float RewardAndObserve(Simulation& sim, const float* action, float* observation) override {
    const int before = reached_;
    Advance(sim);
    const Vec3 p = BodyPosition(sim.data(), vehicle_.body());
    const double cross = path_.Distance(p);
    float s[12];
    vehicle_.State(sim, path_.points[target_], s);
    if (observation) {
      std::copy(s, s + 12, observation);
      ObserveAhead(sim, observation);
    }
    return static_cast<float>(reached_ - before) - static_cast<float>(2 * cross * cross) -
           0.1f * SquaredNorm(s + 3, 3) -
           0.01f * SquaredNorm(action, action_size()) / static_cast<float>(action_size());
  }
  bool Terminated(const Simulation& sim) const override {
    const Vec3 p = BodyPosition(sim.data(), vehicle_.body());
    return path_.Distance(p) > 2.0 ||
           (target_ + 1 == path_.points.size() && (path_.points.back() - p).norm() < kRadius);
  }
  void ScriptedAction(Simulation& sim, double period, float* action) override {
    Advance(sim);
    vehicle_.Scripted(sim.model(), feedback(sim), path_.points[target_], period, action);
  }
  int controlled_body() const override { return vehicle_.body(); }
  // the path's points from the current reference on (the scripted PID's), one per entry:
  // the reference moves on as the scripted one does, within kRadius of the true position
  void References(Simulation& sim, int count, std::vector<Pose>* poses) override {
    Advance(sim);
    poses->clear();
    for (int k = 0; k < count; ++k) {
      const size_t i = std::min(target_ + static_cast<size_t>(k), path_.points.size() - 1);
      poses->push_back(Pose{path_.points[i], path_.orientation});
    }
  }
  void UseSensors(const Simulation& sim, const TaskSpec& spec, const std::string& model) override {
    VehicleSensors::Names names;
    names.pressure = "depth";
    sensors_ = std::make_unique<VehicleSensors>(sim, vehicle_.body(), spec.id, model, names);
  }
  // the readings and the target (the current path point, heading north), the step to the
  // next point (world frame: the vehicle's attitude is the sensors' to estimate) and the
  // progress
  int sensor_observation_size() const override { return VehicleSensors::kSize + 4; }
  void ObserveSensors(const Simulation& sim, float* obs) override {
    sensors_->Update(sim);
    sensors_->Observe(path_.points[target_], 0.0, obs);
    const size_t next = std::min(target_ + 1, path_.points.size() - 1);
    const Vec3 ahead = path_.points[next] - path_.points[target_];
    for (int i = 0; i < 3; ++i) obs[VehicleSensors::kSize + i] = static_cast<float>(ahead[i]);
    obs[VehicleSensors::kSize + 3] = static_cast<float>(target_) / static_cast<float>(path_.points.size() - 1);
  }
  mjData* feedback(Simulation& sim) override { return sensors_ ? sensors_->estimate() : sim.data(); }

 private:
  // observation entries 12-15: the step to the next path point (body frame) and the progress
  void ObserveAhead(const Simulation& sim, float* obs) const {
    const size_t next = std::min(target_ + 1, path_.points.size() - 1);
    const Vec3 ahead = BodyRotation(sim.data(), vehicle_.body()).transpose() *
                       (path_.points[next] - path_.points[target_]);
    for (int i = 0; i < 3; ++i) obs[12 + i] = static_cast<float>(ahead[i]);
    obs[15] = static_cast<float>(target_) / static_cast<float>(path_.points.size() - 1);
  }
  // the reference moves on once the vehicle is within kRadius of it
  void Advance(const Simulation& sim) {
    const Vec3 p = BodyPosition(sim.data(), vehicle_.body());
    while (target_ + 1 < path_.points.size() && (path_.points[target_] - p).norm() < kRadius) {
      ++target_;
      ++reached_;
    }
  }
  static constexpr double kRadius = 0.1;
  ThrusterVehicle vehicle_;
  Path path_;
  size_t target_ = 0;
  int reached_ = 0;
  std::unique_ptr<VehicleSensors> sensors_;  // with the "sensors" observation
};

// ---------- BlueROVDocking ----------
class Docking final : public Task {
 public:
  explicit Docking(const Simulation& sim)
      : chaser_(sim, "chaser"), target_(mj_name2id(sim.model(), mjOBJ_BODY, "target")) {}
  int observation_size() const override { return 15; }
  int action_size() const override { return chaser_.action_size(); }

  void Reset(Simulation& sim, std::mt19937_64& rng) override {
    sim.Reset(0);  // also releases the docking connection
    chaser_.Randomise(sim, rng, 0.2, 0.1);
    mjData* d = sim.data();
    const int q = sim.model()->jnt_qposadr[sim.model()->body_jntadr[target_]];
    d->qpos[q + 1] = Uniform(rng, -0.3, 0.3);
    d->qpos[q + 2] = -2 + Uniform(rng, -0.3, 0.3);
    chaser_.Place(sim, Vec3(-1.2 + Uniform(rng, -0.3, 0.3), Uniform(rng, -0.3, 0.3), -2 + Uniform(rng, -0.3, 0.3)),
                  Uniform(rng, -0.3, 0.3));
    chaser_.ResetController();
    docked_ = false;
    approach_ = false;
    if (sensors_) {
      sensors_->Reset();
      RestartSensors(sim.model(), sim.data());  // first samples at the placed start
    }
    sim.Forward();
  }
  void ApplyAction(Simulation& sim, const float* action) override { chaser_.Apply(sim, action); }
  int action_actuator(int j) const override { return chaser_.actuator(j); }
  void Observe(const Simulation& sim, float* obs) const override {
    Vec3 p_ref;
    Eigen::Quaterniond q_ref;
    DockPose(sim, &p_ref, &q_ref);
    chaser_.State(sim, p_ref, obs, q_ref);
    const Vec3 dv = BodyRotation(sim.data(), chaser_.body()).transpose() * RelativeVelocity(sim);
    for (int i = 0; i < 3; ++i) obs[12 + i] = static_cast<float>(dv[i]);
  }
  float Reward(Simulation& sim, const float* action) override {
    float s[15];
    Observe(sim, s);
    float r = -(SquaredNorm(s, 3) + 0.3f * SquaredNorm(s + 3, 3) + 0.05f * SquaredNorm(s + 12, 3) +
                0.01f * SquaredNorm(action, action_size()) / static_cast<float>(action_size()));
    // dock when the ports meet, aligned and slowly: the connection holds from then on
    if (!docked_ && SquaredNorm(s, 3) < kDockPosition * kDockPosition &&
        SquaredNorm(s + 3, 3) < kDockAngle * kDockAngle && SquaredNorm(s + 12, 3) < kDockSpeed * kDockSpeed) {
      sim.Connect("uk:dock");
      docked_ = true;
      r += 20;
    }
    return r;
  }
  bool Terminated(const Simulation& sim) const override {
    float s[15];
    Observe(sim, s);
    return docked_ || SquaredNorm(s, 3) > 16;
  }
  void ScriptedAction(Simulation& sim, double period, float* action) override {
    Vec3 p_ref;
    Eigen::Quaterniond q_ref;
    Target(sim, &p_ref, &q_ref);
    chaser_.Scripted(sim.model(), feedback(sim), p_ref, period, action, q_ref);
  }
  int controlled_body() const override { return chaser_.body(); }
  void References(Simulation& sim, int count, std::vector<Pose>* poses) override {
    Pose pose;
    Target(sim, &pose.position, &pose.attitude);
    poses->assign(static_cast<size_t>(count), pose);
  }
  void UseSensors(const Simulation& sim, const TaskSpec& spec, const std::string& model) override {
    sensors_ = std::make_unique<DockingSensors>(sim, chaser_.body(), target_, kOffset, spec.id, model);
  }
  int sensor_observation_size() const override { return DockingSensors::kSize; }
  void ObserveSensors(const Simulation& sim, float* obs) override {
    sensors_->Update(sim);
    sensors_->Observe(obs);
  }
  mjData* feedback(Simulation& sim) override { return sensors_ ? sensors_->estimate() : sim.data(); }
  bool docked() const { return docked_; }

 private:
  // The pose the scripted PID steers the chaser to now: the docking pose on the truth;
  // with sensors, what the camera gave (below), or a search turn before the first detection
  void Target(Simulation& sim, Vec3* p_ref, Eigen::Quaterniond* q_ref) {
    if (!sensors_) {
      DockPose(sim, p_ref, q_ref);
    } else if (sensors_->has_dock()) {
      // the docking pose the camera gave, approached along its axis: from kStandOff behind
      // it until aligned within kAligned across it (the marker stays in view); backing off
      // to that point when the marker has been lost
      *q_ref = sensors_->dock_attitude();
      const Vec3 axis = *q_ref * Vec3::UnitX();
      const Vec6 e = PoseError(feedback(sim), chaser_.body(), sensors_->dock_position(), *q_ref);
      const double across = std::hypot(e[1], e[2]);
      approach_ = across < kAligned || (approach_ && across < 2 * kAligned);  // with hysteresis
      if (sensors_->since_detection(sim.data()->time) > DockingSensors::kLostAfter) approach_ = false;
      *p_ref = sensors_->dock_position() - (approach_ ? 0.0 : kStandOff) * axis;
    } else {  // the marker not yet seen: hold the depth, level, and turn to look for it
      *p_ref = BodyPosition(feedback(sim), chaser_.body());
      const double yaw = sensors_->heading() + kSearchTurn;
      *q_ref = Eigen::Quaterniond(Eigen::AngleAxisd(yaw, Vec3::UnitZ()));
    }
  }
  // where the chaser's origin must be to dock: kOffset behind the target, aligned with it
  void DockPose(const Simulation& sim, Vec3* p, Eigen::Quaterniond* q) const {
    const Mat3 R = BodyRotation(sim.data(), target_);
    *p = BodyPosition(sim.data(), target_) + R * Vec3(-kOffset, 0, 0);
    *q = Eigen::Quaterniond(R);
  }
  Vec3 RelativeVelocity(const Simulation& sim) const {  // target minus chaser, world
    const mjData* d = sim.data();
    const int a = FreeJointDof(sim.model(), chaser_.body()), b = FreeJointDof(sim.model(), target_);
    return Vec3(d->qvel[b] - d->qvel[a], d->qvel[b + 1] - d->qvel[a + 1], d->qvel[b + 2] - d->qvel[a + 2]);
  }
  static constexpr double kOffset = 0.5;          // m between the origins when docked
  static constexpr float kDockPosition = 0.03f;   // m
  static constexpr float kDockAngle = 0.05f;      // rad
  static constexpr float kDockSpeed = 0.1f;       // m/s
  static constexpr double kSearchTurn = 0.3;      // rad ahead of the heading while searching
  static constexpr double kStandOff = 0.2;        // m: the approach point behind the docking pose
  static constexpr double kAligned = 0.03;        // m across the approach axis
  ThrusterVehicle chaser_;
  int target_;
  bool docked_ = false;
  std::unique_ptr<DockingSensors> sensors_;  // with the "sensors" observation
  bool approach_ = false;                    // the scripted PID on the sensors: closing in
};

}  // namespace

const std::vector<TaskSpec>& Tasks() {
  static const std::vector<TaskSpec> tasks = {
      {"BlueROV2StationKeeping-v0", "bluerov2_heavy/bluerov2_heavy.xml",
       "Hold the BlueROV2 Heavy at (0, 0, -2) m, level, heading north, in a random current. "
       "Observation (12): body-frame position error (3, m), attitude error as a rotation "
       "vector (3, rad), body-frame linear (3, m/s) and angular (3, rad/s) velocity. Action "
       "(8): thruster commands in [-1, 1], the fraction of each T200's reachable forward "
       "(> 0) or reverse (< 0) thrust. Reward: -(|e_p|^2 + 0.3 |e_theta|^2 + 0.1 |nu|^2 + "
       "0.01 mean(a^2)). Terminates when 3 m away or diverged; truncated after 500 steps of "
       "20 ms (10 s). Randomised per episode: current 0-0.5 m/s in a random horizontal "
       "direction, added mass and damping x U(0.8, 1.2), start offset U(-0.5, 0.5) m per "
       "axis and yaw U(-0.5, 0.5) rad. Scripted baseline: the cascaded PID (seed 002 "
       "Table A.1 gains) with allocation. Observation \"sensors\" (22; the model "
       "bluerov2_heavy_sensors.xml, readings at their rates and latency): depth (1, m), IMU "
       "specific force (3, m/s^2) and rates (3, rad/s), heading (1, rad), DVL velocity (3, m/s, "
       "DVL frame) and status (1: 0 no lock, 1 bottom, 2 water), acoustic fix (3, m, world), "
       "its valid flag (1) and age (1, s; -1 before the first), target - latest fix (3, m), "
       "target depth - depth (1, m), target heading - heading (1, rad); the scripted PID then "
       "acts on the sensor-derived state.",
       4, 500, [](const Simulation& sim) { return std::make_unique<StationKeeping>(sim); },
       ConstraintMethod::kMuJoCo, "bluerov2_heavy/bluerov2_heavy_sensors.xml",
       // the best of the station-keeping table (docs/rl.md): the full model, 0.1 s, N = 20
       {.control_period = 0.1, .horizon = 20}},
      {"RaybotQuayWall-v0", "raybot/raybot.xml",
       "Follow the Raybot quay-wall zig-zag (5 vertical strokes of 3 m, 1 m apart, points "
       "every 0.1 m; docs/quay_wall.md). Observation (16): body-frame error to the current "
       "path point (3, m), attitude error (3, rad), body velocity (6), body-frame step to "
       "the next point (3, m), progress along the path in [0, 1] (1). Action (8): thruster "
       "commands in [-1, 1] of the -28/+36 N range. Reward: +1 per path point reached, "
       "-2 (cross-track distance)^2, -0.1 |e_theta|^2, -0.01 mean(a^2). Terminates at the "
       "last point, 2 m off the path, or diverged; truncated after 6000 steps of 20 ms. "
       "Randomised: current 0-0.2 m/s, added mass and damping x U(0.9, 1.1), start offset "
       "U(-0.1, 0.1) m. Scripted baseline: the cascaded PID chasing the path points. "
       "Observation \"sensors\" (26; the model raybot_nav.xml: IMU, Bar30 depth, DVL A50, "
       "USBL fixes at 1 Hz with 0.3 s latency): the 22 of BlueROV2StationKeeping's with the "
       "current path point as the target and heading north, then the step to the next "
       "point (3, m, world frame) and the progress (1); the path advances on the true "
       "position, and the scripted PID acts on the sensor-derived state.",
       4, 6000, [](const Simulation& sim) { return std::make_unique<QuayWall>(sim); },
       ConstraintMethod::kMuJoCo, "raybot/raybot_nav.xml",
       // seed 002's own settings for its zig-zag (the full model at 0.1 s takes seconds a
       // plan for the Raybot)
       {.control_period = 0.5, .horizon = 15, .seed_prediction = true}},
      {"BlueROVDocking-v0", "docking/bluerov_docking.xml",
       "Dock a BlueROV (chaser, six T200) nose to tail with a passive BlueROV (target). "
       "Observation (15): the chaser's body-frame error to the docking pose (0.5 m behind "
       "the target, aligned with it) (3, m), attitude error (3, rad), body velocity (6), "
       "the target's velocity relative to the chaser in the chaser's frame (3, m/s). "
       "Action (6): thruster commands in [-1, 1]. Reward: -(|e_p|^2 + 0.3 |e_theta|^2 + "
       "0.05 |dv|^2 + 0.01 mean(a^2)), +20 on docking. Docking: within 3 cm, 0.05 rad and "
       "0.1 m/s the runtime connection `uk:dock` is made (Simulation::Connect: UK "
       "constraint with an impulsive, momentum-conserving velocity projection) and the "
       "episode terminates; it also terminates 4 m away or diverged; truncated after 1500 "
       "steps of 20 ms. Randomised: target offset +-0.3 m, chaser start 1.2 +- 0.3 m behind "
       "with +-0.3 rad of yaw, current 0-0.2 m/s, added mass and damping x U(0.9, 1.1). "
       "Scripted baseline: the cascaded PID towards the docking pose. Observation \"sensors\" "
       "(22; the model bluerov_docking_sensors.xml: a camera that sees the marker on the target's "
       "stern at 10 Hz with 0.1 s latency, an IMU, a Bar30): depth (1, m), IMU specific force (3, "
       "m/s^2) and rates (3, rad/s), heading (1, rad), the marker's pose in the camera frame (3, m; "
       "3, rad rotation vector), its valid flag (1) and the age of the latest detection (1, s; -1 "
       "before the first), then the error to the docking pose from the sensor-derived state (3, m "
       "and 3, rad, chaser frame; 0 before the first detection); the scripted PID acts on that "
       "state and turns to look for the marker until it first sees it.",
       4, 1500, [](const Simulation& sim) { return std::make_unique<Docking>(sim); },
       ConstraintMethod::kUK, "docking/bluerov_docking_sensors.xml",
       // 1 m/s and 1 rad/s allowed in the plan: with 0.5 most of the approach's plans failed
       // their QPs and fell back
       {.control_period = 0.1, .horizon = 20, .velocity_limit = 1.0}},
  };
  return tasks;
}

}  // namespace nereid::rl
