// Copyright Nereid authors.
// Reinforcement-learning environments on Nereid's engine.
//
// A Task says what a vehicle should do (reset distribution with domain randomisation,
// action mapping, observation, reward, termination); the explicit registry Tasks() lists
// them. An Env steps one Simulation with one Task; a BatchEnv steps many over a thread
// pool into flat buffers (observations, rewards, flags) that Python views without
// copying. Results are bitwise identical whatever the thread count: each environment
// owns its simulation and its random stream (seeded from the batch seed and its index).
// A diverging state ends the episode with the `diverged` flag; nothing aborts.
#ifndef NEREID_RL_H_
#define NEREID_RL_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "nereid/names.h"
#include "nereid/paths.h"
#include "nereid/simulation.h"

namespace nereid::rl {

// What an environment observes: "state", the true state (the default), or "sensors", the
// readings of the vehicle's sensor plugins (depth, IMU, DVL, acoustic fix, at their rates
// and with their latency) and the task's target in terms of them (docs/rl.md).
enum class Observation { kState, kSensors };
inline constexpr std::array<Named<Observation>, 2> kObservationNames{
    {{Observation::kState, "state"}, {Observation::kSensors, "sensors"}}};
inline std::string_view ToString(Observation o) { return NameOf(kObservationNames, o); }
// Throws ConfigError naming the value and the choices.
Observation ParseObservation(std::string_view text);

struct TaskSpec;

class Task {
 public:
  virtual ~Task() = default;
  virtual int observation_size() const = 0;
  virtual int action_size() const = 0;
  // Draws the episode (domain randomisation, initial state) from `rng`.
  virtual void Reset(Simulation& sim, std::mt19937_64& rng) = 0;
  // Applies an action (each component in [-1, 1]; clipped) as actuator commands.
  virtual void ApplyAction(Simulation& sim, const float* action) = 0;
  // The actuator that action component j commands (-1 if none), named in the error for a
  // NaN or infinite action.
  virtual int action_actuator(int /*j*/) const { return -1; }
  virtual void Observe(const Simulation& sim, float* observation) const = 0;
  // Reward for the step that just ended under `action` (a task may act on the simulation
  // here, e.g. connect a docking port).
  virtual float Reward(Simulation& sim, const float* action) = 0;
  // Reward, then, when `observation` is not null, Observe, in one call (Env's step with the
  // "state" observation): a task whose reward reads its observation's quantities
  // overrides it to compute them once. The default calls the two.
  virtual float RewardAndObserve(Simulation& sim, const float* action, float* observation) {
    const float reward = Reward(sim, action);
    if (observation) Observe(sim, observation);
    return reward;
  }
  virtual bool Terminated(const Simulation& sim) const = 0;
  // A scripted baseline policy's action for the current state (e.g. the cascaded PID).
  // `period`: the environment step (frame_skip x the model's time step), s
  virtual void ScriptedAction(Simulation& sim, double period, float* action) = 0;

  // ---- what a model-based baseline steers towards (the MPC policy of nereid/mpc.h) ----
  struct Pose {
    Vec3 position = Vec3::Zero();                                  // world, m
    Eigen::Quaterniond attitude = Eigen::Quaterniond::Identity();  // world from body
  };
  // The body the actions drive (its id in the task's model).
  virtual int controlled_body() const = 0;
  // The poses to steer that body through from now on, as the scripted policy steers it
  // (from feedback(sim): the truth, or the sensor-derived state): (*poses)[k] for
  // k = 0..count-1 is the k-th reference from now. A task that holds a pose (station
  // keeping, docking) repeats it; the quay wall lists its path's points from the next
  // unreached one on, the last repeated. A task may update its bookkeeping here, as in ScriptedAction.
  virtual void References(Simulation& sim, int count, std::vector<Pose>* poses) = 0;

  // ---- the "sensors" observation (Observation::kSensors) ----
  // Switches the task to observe its model's sensors. Throws ConfigError naming the task,
  // the model and the missing sensor (or field) if the model lacks one; the default
  // refuses (a task without a sensor observation).
  virtual void UseSensors(const Simulation& sim, const TaskSpec& spec, const std::string& model);
  virtual int sensor_observation_size() const { return 0; }
  // Reads the sensors after a reset or a step (once each: it keeps the time each reading
  // arrived and, once feedback has been read, the sensor-derived state) and writes the
  // observation.
  virtual void ObserveSensors(const Simulation& /*sim*/, float* /*observation*/) {}
  // The data a controller reads its state from: the simulation's (the truth), or, with
  // sensors, a copy holding the state derived from the sensors (see docs/rl.md: it is kept
  // from its first read on; read first after an episode's first step, it starts again
  // from that moment's readings, as at a reset).
  virtual mjData* feedback(Simulation& sim) { return sim.data(); }
};

struct TaskSpec {
  std::string id;           // e.g. "BlueROV2StationKeeping-v0"
  std::string model;        // MJCF path relative to the models folder
  std::string description;  // observation, action, reward, termination, randomisation
  int frame_skip = 4;       // physics steps per environment step
  int max_episode_steps = 500;
  std::function<std::unique_ptr<Task>(const Simulation&)> make;
  // who enforces the model's "uk:" connections (docking uses UK)
  ConstraintMethod constraints = ConstraintMethod::kMuJoCo;
  // the MJCF of the "sensors" observation (the model with its sensor suite), relative to
  // the models folder; empty: `model`
  std::string sensors_model;
  // The model-predictive controller's settings on this task (`nereid baselines`,
  // MpcPolicy::DefaultsFor; docs/rl.md "Baselines"): a plan every control_period s over
  // `horizon` periods, predicting with seed 002's 3-DOF model (seed_prediction) or the
  // vehicle's full model, with |u v w| (m/s) and |p q r| (rad/s) below velocity_limit.
  struct MpcSettings {
    double control_period = 0.1;
    int horizon = 20;
    bool seed_prediction = false;
    double velocity_limit = 0.5;
  };
  MpcSettings mpc;
  const std::string& ModelFor(Observation o) const {
    return o == Observation::kSensors && !sensors_model.empty() ? sensors_model : model;
  }
};

// The task registry (explicit, in src/rl/tasks.cc).
const std::vector<TaskSpec>& Tasks();
// Throws ConfigError listing the known ids if `id` is unknown.
const TaskSpec& FindTask(const std::string& id);
using nereid::DefaultModelDir;  // nereid/paths.h

struct StepOutcome {
  float reward = 0;
  bool terminated = false, truncated = false, diverged = false;
};

class Env {
 public:
  // Loads the task's model for `observation` (its own mjModel and mjData).
  Env(const TaskSpec& spec, const std::string& model_dir, Observation observation = Observation::kState);
  // Steps its own mjData of `model` (the task's model for `observation`), which is shared
  // (read-only while stepping; see Simulation::Attach) and must outlive the Env: BatchEnv
  // compiles its task's model once.
  Env(const TaskSpec& spec, mjModel* model, Observation observation = Observation::kState);
  ~Env();
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;
  int observation_size() const {
    return observation_ == Observation::kSensors ? task_->sensor_observation_size() : task_->observation_size();
  }
  int action_size() const { return task_->action_size(); }
  Observation observation() const { return observation_; }
  // Starts an episode from the env's random stream (reseeded when seed is given).
  void Reset(float* observation, const uint64_t* seed = nullptr);
  // frame_skip physics steps under `action`; writes the next observation. Throws
  // ConfigError, before stepping, if a component is NaN or infinite.
  StepOutcome Step(const float* action, float* observation);
  // Step for an action already checked (BatchEnv checks the whole batch first).
  StepOutcome StepChecked(const float* action, float* observation);
  void ScriptedAction(float* action) {
    task_->ScriptedAction(*sim_, spec_.frame_skip * sim_->model()->opt.timestep, action);
  }
  // What a controller reads its state from (Task::feedback): the truth, or with sensor
  // observations the sensor-derived state.
  mjData* feedback() { return task_->feedback(*sim_); }
  Simulation& simulation() { return *sim_; }
  const Task& task() const { return *task_; }
  // Task::References for this environment's present state.
  void References(int count, std::vector<Task::Pose>* poses) { task_->References(*sim_, count, poses); }
  const TaskSpec& spec() const { return spec_; }

 private:
  void Observe(float* observation);
  void Make(Observation observation, const std::string& model);

  TaskSpec spec_;
  Observation observation_ = Observation::kState;
  mjData* data_ = nullptr;  // with a shared model: this env's data (freed after sim_)
  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<Task> task_;
  std::mt19937_64 rng_;
  int steps_ = 0;
};

// The most environments and threads of one BatchEnv (counts from the user are bounded,
// with the limit in the message).
inline constexpr int kMaxBatchEnvs = 65536;
inline constexpr int kMaxBatchThreads = 256;

class BatchEnv {
 public:
  BatchEnv(const std::string& task_id, int num_envs, int num_threads = 1,
           const std::string& model_dir = DefaultModelDir(), Observation observation = Observation::kState);
  ~BatchEnv();
  BatchEnv(const BatchEnv&) = delete;
  BatchEnv& operator=(const BatchEnv&) = delete;

  int num_envs() const { return static_cast<int>(envs_.size()); }
  int num_threads() const { return num_threads_; }
  int observation_size() const { return obs_size_; }
  int action_size() const { return act_size_; }
  const TaskSpec& spec() const { return envs_.front()->spec(); }
  Env& env(int i) { return *envs_.at(static_cast<size_t>(i)); }

  // Resets every environment; environment i draws from seed (seed, i).
  void Reset(uint64_t seed);
  // Steps every environment (actions: num_envs x action_size, row-major). An environment
  // whose episode ends is reset in the same call: its row of observations() starts the
  // next episode, and final_observations() keeps the last one of the ended episode.
  // Throws ConfigError, before any environment steps, if an action is NaN or infinite. If
  // an environment's step fails (MuJoCoError), the others are still stepped and the error
  // of the lowest-numbered failing environment is rethrown (whatever the thread count).
  void Step(const float* actions);
  // The scripted baseline's actions for the current states (num_envs x action_size).
  void ScriptedActions(float* actions);
  // The environments thread w (0 the calling thread) steps first in the next call, in
  // order: its slice, which follows what each thread took over from its predecessor's in
  // the last Step (src/rl/slice_ring.h). Which thread steps an environment never changes
  // results; the bench's bounds step the same slices (the even split if one is empty).
  std::vector<int> SliceOf(int w) const;

  float* observations() { return observations_.data(); }
  float* final_observations() { return final_observations_.data(); }
  float* rewards() { return rewards_.data(); }
  uint8_t* terminated() { return terminated_.data(); }
  uint8_t* truncated() { return truncated_.data(); }
  uint8_t* diverged() { return diverged_.data(); }

 private:
  // per_env(i) for every environment, over the pool: each thread starts on its own slice
  // and takes over what a late thread has not claimed (src/rl/env.cc)
  // (rebalance: the slices then follow what each thread took over: Step)
  template <class F>
  void ParallelFor(F&& per_env, bool rebalance);
  void WorkerLoop(int worker);

  // one compiled model shared by every env (each has its own mjData): compiled once, and
  // one copy in the cache however large the batch; declared first, so freed last
  struct ModelDeleter { void operator()(mjModel* m) const { mj_deleteModel(m); } };
  std::unique_ptr<mjModel, ModelDeleter> model_;
  std::vector<std::unique_ptr<Env>> envs_;
  int obs_size_ = 0, act_size_ = 0, num_threads_ = 1;
  std::vector<float> observations_, final_observations_, rewards_;
  std::vector<uint8_t> terminated_, truncated_, diverged_;
  struct Pool;
  std::unique_ptr<Pool> pool_;
};

}  // namespace nereid::rl

#endif  // NEREID_RL_H_
