// Copyright Nereid authors.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "nereid/error.h"
#include "nereid/plugins.h"
#include "nereid/rl.h"
#include "nereid/sensors.h"
#include "rl/slice_ring.h"

namespace nereid::rl {
namespace {

// Throws for a NaN or infinite action (rows x size floats), naming the environment, the
// component and the actuator `task` commands with it.
void CheckActions(const float* actions, int rows, int size, const Task& task, const mjModel* m) {
  for (int i = 0; i < rows * size; ++i) {
    if (!std::isfinite(actions[i])) {
      const int actuator = task.action_actuator(i % size);
      std::string which;
      if (actuator >= 0 && actuator < m->nactuator) {
        const char* name = mj_id2name(m, mjOBJ_ACTUATOR, actuator);
        which = std::string(" (actuator ") + (name ? "'" + Excerpt(name) + "', " : "") + "index " +
                std::to_string(actuator) + ")";
      }
      throw ConfigError("actions: environment " + std::to_string(i / size) + ", component " +
                        std::to_string(i % size) + which + " is " + std::to_string(actions[i]) +
                        "; actions must be finite (values outside [-1, 1] are clipped)");
    }
  }
}

// the engine options of a task's simulations
SimulationOptions OptionsFor(const TaskSpec& spec) {
  SimulationOptions options;
  options.constraints = spec.constraints;
  return options;
}

}  // namespace

Observation ParseObservation(std::string_view text) {
  Observation o = Observation::kState;
  if (!ParseName(kObservationNames, text, &o)) {
    throw ConfigError("observation: expected " + NameChoices(kObservationNames) + ", got '" +
                      Excerpt(std::string(text)) + "'");
  }
  return o;
}

void Task::UseSensors(const Simulation& /*sim*/, const TaskSpec& spec, const std::string& model) {
  throw ConfigError("task " + spec.id + " (model " + model + "): no \"sensors\" observation");
}

const TaskSpec& FindTask(const std::string& id) {
  std::string known;
  for (const TaskSpec& spec : Tasks()) {
    if (spec.id == id) return spec;
    known += (known.empty() ? "" : ", ") + spec.id;
  }
  throw ConfigError("unknown task '" + Excerpt(id) + "'; known tasks: " + known);
}

Env::Env(const TaskSpec& spec, const std::string& model_dir, Observation observation) : spec_(spec) {
  const SimulationOptions options = OptionsFor(spec);
  const std::string& file = spec.ModelFor(observation);
  sim_ = Simulation::LoadFile((std::filesystem::path(model_dir) / file).string(), options);
  Make(observation, file);
}

Env::Env(const TaskSpec& spec, mjModel* model, Observation observation) : spec_(spec) {
  const SimulationOptions options = OptionsFor(spec);
  const std::string& file = spec.ModelFor(observation);
  data_ = Simulation::MakeData(model, options.engine, file);
  try {
    sim_ = Simulation::Attach(model, data_, options, file);
    Make(observation, file);
  } catch (...) {
    task_.reset();
    sim_.reset();
    mj_deleteData(data_);
    throw;
  }
}

void Env::Make(Observation observation, const std::string& model) {
  task_ = spec_.make(*sim_);
  observation_ = observation;
  if (observation == Observation::kSensors) task_->UseSensors(*sim_, spec_, model);
}

void Env::Observe(float* observation) {
  if (observation_ == Observation::kSensors) {
    task_->ObserveSensors(*sim_, observation);
  } else {
    task_->Observe(*sim_, observation);
  }
}

Env::~Env() {
  task_.reset();
  sim_.reset();
  if (data_) mj_deleteData(data_);
}

void Env::Reset(float* observation, const uint64_t* seed) {
  if (seed) {
    rng_.seed(*seed);
    SeedSensors(sim_->model(), sim_->data(), *seed);  // the model's sensors' noise streams
  }
  steps_ = 0;
  task_->Reset(*sim_, rng_);
  Observe(observation);
}

StepOutcome Env::Step(const float* action, float* observation) {
  CheckActions(action, 1, action_size(), *task_, sim_->model());
  return StepChecked(action, observation);
}

StepOutcome Env::StepChecked(const float* action, float* observation) {
  StepOutcome out;
  task_->ApplyAction(*sim_, action);
  for (int k = 0; k < spec_.frame_skip; ++k) {
    if (!sim_->TryStep()) {  // no message: no allocation on the hot path
      out.diverged = out.terminated = true;
      break;
    }
  }
  ++steps_;
  // reward first: a task may advance its reference there; the state observation comes
  // with it (Task::RewardAndObserve: the same numbers as Observe after it)
  const bool with_reward = !out.diverged, state = observation_ != Observation::kSensors;
  if (with_reward) {
    out.reward = task_->RewardAndObserve(*sim_, action, state ? observation : nullptr);
    out.terminated = task_->Terminated(*sim_);
  }
  if (!with_reward || !state) Observe(observation);
  out.truncated = !out.terminated && steps_ >= spec_.max_episode_steps;
  return out;
}

// ---------------------------------------------------------------------------------------
// A fixed pool of workers. Each call gives every worker (the calling thread is worker 0) a
// slice of the environments (SliceRing, src/rl/slice_ring.h), which it claims one at a time
// from the front; a worker that has finished its own slice goes on claiming from the back
// of the others' slices, its predecessor's first. Which thread steps an environment never
// changes results (each environment owns its data and random stream), so the split can
// follow the machine: a worker that is late (its core taken by another process, or stolen
// by the host) leaves its slice to the others instead of stalling the whole batch, and the
// caller waits only for environments in progress. After each Step the slices move so that
// what a worker took over from its predecessor is its own in the next call, instead of
// going back to the other core's cache (on 2 threads, everything a thread took over; a
// batch of 256 on 2 threads gained about 1.5 % of its rate: docs/rl.md "Benchmarks").
// While the cores' speeds hold, the environments stay on their cores from call to call
// (on that host the slices' starts moved 6.5 environments per call).
//
// Hand-off: a call publishes its work by bumping `generation`; an idle worker first spins
// on it for up to kSpin, so that back-to-back calls (a training loop) start within a
// microsecond instead of a futex wake-up of tens of microseconds, then sleeps on `start`.
// A pool with more threads than the machine has cores does not spin (it would steal).
// The caller waits for `remaining` the same way. The mutex only orders sleeping against
// waking: it is taken to sleep and, empty, before a notify, so no wake-up is lost.
// A worker enters a call (`active`) before it reads the call's work, and only while the
// call is `open`; the caller closes the call and waits for `active` to drain before its
// work goes out of scope. The counters each have a cache line of their own.

namespace {

constexpr auto kSpin = std::chrono::microseconds(200);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until done() or kSpin has passed; true if done() became true. No spinning (false
// at once unless done) when spin is false.
template <class Done>
bool SpinUntil(bool spin, Done&& done) {
  if (!spin) return done();
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (done()) return true;
    CpuRelax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > deadline) return false;
  }
}

constexpr size_t kCacheLine = 64;

}  // namespace

struct BatchEnv::Pool {
  Pool(int num_envs, int workers) : ring(num_envs, workers) {}
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::condition_variable start, done;
  // the current call: set by the caller before `open`, read by workers after it
  void (*work)(void* context, int env) = nullptr;  // no std::function: no allocation
  void* context = nullptr;
  SliceRing ring;  // the workers' slices, kept from call to call
  alignas(kCacheLine) std::atomic<uint64_t> generation{0};
  alignas(kCacheLine) std::atomic<bool> open{false};
  std::atomic<bool> stop{false};
  alignas(kCacheLine) std::atomic<int> remaining{0};  // environments not finished in this call
  alignas(kCacheLine) std::atomic<int> active{0};     // workers inside this call
  // the error of the lowest-numbered environment that failed in this call (the same
  // whatever the thread count)
  std::mutex error_mutex;
  int error_env = -1;
  std::exception_ptr error;
  bool spin = true;  // false when there are more threads than cores: spinning would steal

  void Wake(std::condition_variable& cv) {
    { std::lock_guard<std::mutex> lock(mutex); }  // a thread about to sleep has re-checked
    cv.notify_all();
  }

  // Steps environment i under the call's work, keeping its error if it fails.
  void RunOne(int i) {
    try {
      work(context, i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (error_env < 0 || i < error_env) {
        error_env = i;
        error = std::current_exception();
      }
    }
  }

  // Worker w's share of the call: its own slice from the front, then the others' from
  // their backs, its predecessor's first (the environments next to its own slice's start)
  void Claim(int w) {
    const int workers = ring.workers();
    int finished = 0;
    for (int i; (i = ring.ClaimFront(w)) >= 0; ++finished) RunOne(i);
    for (int k = 1; k < workers; ++k) {
      const int victim = (w - k + workers) % workers;
      for (int i; (i = ring.ClaimBack(victim)) >= 0; ++finished) RunOne(i);
    }
    // publishes the environments' results; the last one wakes the caller
    if (finished > 0 && remaining.fetch_sub(finished, std::memory_order_acq_rel) == finished) Wake(done);
  }
};

BatchEnv::BatchEnv(const std::string& task_id, int num_envs, int num_threads,
                   const std::string& model_dir, Observation observation) {
  if (num_envs < 1 || num_envs > kMaxBatchEnvs) {
    throw ConfigError("num_envs must be in 1.." + std::to_string(kMaxBatchEnvs) + ", got " + std::to_string(num_envs));
  }
  if (num_threads < 1 || num_threads > kMaxBatchThreads) {
    throw ConfigError("num_threads must be in 1.." + std::to_string(kMaxBatchThreads) + ", got " +
                      std::to_string(num_threads));
  }
  const TaskSpec& spec = FindTask(task_id);
  const SimulationOptions options = OptionsFor(spec);
  model_.reset(Simulation::CompileFile((std::filesystem::path(model_dir) / spec.ModelFor(observation)).string(), options));
  for (int i = 0; i < num_envs; ++i) envs_.push_back(std::make_unique<Env>(spec, model_.get(), observation));
  obs_size_ = envs_.front()->observation_size();
  act_size_ = envs_.front()->action_size();
  const auto n = static_cast<size_t>(num_envs);
  observations_.assign(n * static_cast<size_t>(obs_size_), 0.f);
  final_observations_.assign(n * static_cast<size_t>(obs_size_), 0.f);
  rewards_.assign(n, 0.f);
  terminated_.assign(n, 0);
  truncated_.assign(n, 0);
  diverged_.assign(n, 0);
  num_threads_ = std::min(num_threads, num_envs);
  pool_ = std::make_unique<Pool>(num_envs, num_threads_);
  const unsigned cores = std::thread::hardware_concurrency();
  pool_->spin = cores == 0 || static_cast<unsigned>(num_threads_) <= cores;
  for (int w = 1; w < num_threads_; ++w) pool_->threads.emplace_back([this, w] { WorkerLoop(w); });
}

BatchEnv::~BatchEnv() {
  pool_->stop.store(true, std::memory_order_release);
  pool_->Wake(pool_->start);
  for (std::thread& t : pool_->threads) t.join();
}

void BatchEnv::WorkerLoop(int worker) {
  Pool& pool = *pool_;
  uint64_t seen = 0;
  for (;;) {
    auto ready = [&] {
      return pool.stop.load(std::memory_order_acquire) ||
             pool.generation.load(std::memory_order_acquire) != seen;
    };
    if (!SpinUntil(pool.spin, ready)) {
      std::unique_lock<std::mutex> lock(pool.mutex);
      pool.start.wait(lock, ready);
    }
    if (pool.stop.load(std::memory_order_acquire)) return;
    seen = pool.generation.load(std::memory_order_acquire);
    // enter, then look: the caller closes, then waits for active to drain (both seq_cst),
    // so either it sees this worker or this worker sees the call closed
    pool.active.fetch_add(1, std::memory_order_seq_cst);
    if (pool.open.load(std::memory_order_seq_cst)) pool.Claim(worker);
    if (pool.active.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        !pool.open.load(std::memory_order_seq_cst)) {
      pool.Wake(pool.done);  // a caller may be waiting for this worker to leave
    }
  }
}

template <class F>
void BatchEnv::ParallelFor(F&& per_env, bool rebalance) {
  Pool& pool = *pool_;
  const int n = num_envs();
  pool.work = [](void* f, int i) { (*static_cast<std::remove_reference_t<F>*>(f))(i); };
  pool.context = &per_env;
  pool.error_env = -1;
  pool.error = nullptr;
  if (num_threads_ == 1) {
    for (int i = 0; i < n; ++i) pool.RunOne(i);
  } else {
    pool.ring.Open();
    pool.remaining.store(n, std::memory_order_relaxed);
    pool.open.store(true, std::memory_order_seq_cst);         // publishes the call to workers that enter
    pool.generation.fetch_add(1, std::memory_order_release);  // and wakes the idle ones
    pool.Wake(pool.start);
    pool.Claim(0);  // the calling thread: the first slice, then what the others left
    auto wait = [&](auto&& finished) {
      if (!SpinUntil(pool.spin, finished)) {
        std::unique_lock<std::mutex> lock(pool.mutex);
        pool.done.wait(lock, finished);
      }
    };
    // all claimed: only environments a worker is stepping now are left to wait for
    wait([&] { return pool.remaining.load(std::memory_order_acquire) == 0; });
    pool.open.store(false, std::memory_order_seq_cst);
    wait([&] { return pool.active.load(std::memory_order_seq_cst) == 0; });
    // the slices follow what the workers took over in a Step (the call whose work sets
    // where the environments' data sits); a lighter call's split would mostly reflect how
    // soon the workers woke
    if (rebalance) pool.ring.Rebalance();
  }
  if (pool.error) {  // the lowest-numbered environment's error, in the calling thread
    std::exception_ptr error = pool.error;
    pool.error = nullptr;
    std::rethrow_exception(error);
  }
}

std::vector<int> BatchEnv::SliceOf(int w) const {
  if (w < 0 || w >= num_threads_) {
    throw ConfigError("thread " + std::to_string(w) + " out of range 0.." + std::to_string(num_threads_ - 1));
  }
  return pool_->ring.Slice(w);
}

void BatchEnv::Reset(uint64_t seed) {
  ParallelFor([&](int i) {
    // decorrelated per-environment seeds from one batch seed (splitmix64's finaliser)
    const uint64_t s = sensors::Mix(seed ^ sensors::Mix(static_cast<uint64_t>(i)));
    envs_[static_cast<size_t>(i)]->Reset(observations_.data() + static_cast<size_t>(i) * obs_size_, &s);
    rewards_[static_cast<size_t>(i)] = 0;
    terminated_[static_cast<size_t>(i)] = truncated_[static_cast<size_t>(i)] = diverged_[static_cast<size_t>(i)] = 0;
  }, false);
}

void BatchEnv::Step(const float* actions) {
  CheckActions(actions, num_envs(), act_size_, envs_.front()->task(),  // here, so that no worker throws
               envs_.front()->simulation().model());
  ParallelFor([&](int i) {
    const auto k = static_cast<size_t>(i);
    float* obs = observations_.data() + k * static_cast<size_t>(obs_size_);
    const StepOutcome out = envs_[k]->StepChecked(actions + k * static_cast<size_t>(act_size_), obs);
    rewards_[k] = out.reward;
    terminated_[k] = out.terminated;
    truncated_[k] = out.truncated;
    diverged_[k] = out.diverged;
    if (out.terminated || out.truncated) {
      std::copy(obs, obs + obs_size_, final_observations_.data() + k * static_cast<size_t>(obs_size_));
      envs_[k]->Reset(obs);
    }
  }, true);
}

void BatchEnv::ScriptedActions(float* actions) {
  ParallelFor([&](int i) {
    envs_[static_cast<size_t>(i)]->ScriptedAction(actions + static_cast<size_t>(i) * act_size_);
  }, false);
}

}  // namespace nereid::rl
