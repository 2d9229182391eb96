// Copyright Nereid authors.
#include "nereid/rollout.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "nereid/error.h"

namespace nereid {
namespace {

// The first error of a rollout, kept with its kind so that the caller gets the same type.
struct Failure {
  enum class Kind { kNone, kDivergence, kMuJoCo, kOther } kind = Kind::kNone;
  std::string message;
};

struct Worker {
  mjData* d = nullptr;
  std::unique_ptr<Simulation> sim;
  ~Worker() {
    sim.reset();  // before its data
    if (d) mj_deleteData(d);
  }
};

}  // namespace

RolloutSizes RolloutSizesOf(const mjModel* m) {
  return {mj_stateSize(m, kRolloutState), static_cast<int>(m->nu), static_cast<int>(m->nsensordata)};
}

void Rollout(mjModel* m, long nroll, long nstep, const mjtNum* initial_state, const mjtNum* control,
             mjtNum* state, mjtNum* sensordata, int nthread, const SimulationOptions& options) {
  if (nroll < 0 || nroll > kMaxRollouts) {
    throw ConfigError("rollout: " + std::to_string(nroll) + " rollouts; 0 to " + std::to_string(kMaxRollouts));
  }
  if (nstep < 0 || nstep > kMaxRolloutSteps) {
    throw ConfigError("rollout: " + std::to_string(nstep) + " steps; 0 to " + std::to_string(kMaxRolloutSteps));
  }
  if (nthread < 1 || nthread > kMaxRolloutThreads) {
    throw ConfigError("rollout: nthread " + std::to_string(nthread) + "; 1 to " + std::to_string(kMaxRolloutThreads));
  }
  if (options.integrator || options.timestep) {
    throw ConfigError("rollout: set the integrator and time step on the model, not in the options "
                      "(the threads share it)");
  }
  const RolloutSizes n = RolloutSizesOf(m);
  if (n.nu > 0 && !control && nstep > 0) throw ConfigError("rollout: the model has controls (nu > 0): controls are required");
  if (control && n.nu > 0) {  // before any thread starts: MuJoCo would zero such controls silently
    const long total = nroll * nstep * n.nu;
    for (long i = 0; i < total; ++i) {
      if (std::abs(control[i]) <= mjMAXVAL) continue;  // false for NaN
      const long r = i / (nstep * n.nu), k = i / n.nu % nstep;
      CheckControls(m, control + (i - i % n.nu),
                    "rollout: control[" + std::to_string(r) + ", " + std::to_string(k) + "]");
    }
  }
  if (nroll == 0 || nstep == 0) return;
  const int threads = static_cast<int>(std::min<long>(nthread, nroll));

  // the threads' data and engines, made here (attaching may touch the model: UK's set-up)
  std::vector<Worker> workers(static_cast<size_t>(threads));
  for (Worker& w : workers) {
    w.d = Simulation::MakeData(m, options.engine, "rollout");
    w.sim = Simulation::Attach(m, w.d, options, "rollout");
  }

  std::vector<Failure> failures(static_cast<size_t>(nroll));
  auto run = [&](int t) {
    Worker& w = workers[static_cast<size_t>(t)];
    mjData* d = w.d;
    for (long r = t; r < nroll; r += threads) {
      Failure& failure = failures[static_cast<size_t>(r)];
      try {
        w.sim->Reset();
        mj_setState(m, d, initial_state + r * n.nstate, kRolloutState);
        for (long k = 0; k < nstep; ++k) {
          if (n.nu > 0) mju_copy(d->ctrl, control + (r * nstep + k) * n.nu, n.nu);
          w.sim->Step();
          mj_getState(m, d, state + (r * nstep + k) * n.nstate, kRolloutState);
          if (sensordata && n.nsensordata > 0) {
            mju_copy(sensordata + (r * nstep + k) * n.nsensordata, d->sensordata, n.nsensordata);
          }
        }
      } catch (const DivergenceError& e) {
        failure = {Failure::Kind::kDivergence, e.what()};
      } catch (const MuJoCoError& e) {
        failure = {Failure::Kind::kMuJoCo, e.what()};
      } catch (const std::exception& e) {
        failure = {Failure::Kind::kOther, e.what()};
      }
    }
  };
  if (threads == 1) {
    run(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(run, t);
    for (std::thread& th : pool) th.join();
  }
  for (long r = 0; r < nroll; ++r) {
    const Failure& f = failures[static_cast<size_t>(r)];
    const std::string message = "rollout " + std::to_string(r) + ": " + f.message;
    switch (f.kind) {
      case Failure::Kind::kNone: continue;
      case Failure::Kind::kDivergence: throw DivergenceError(message);
      case Failure::Kind::kMuJoCo: throw MuJoCoError(message);
      case Failure::Kind::kOther: throw Error(message);
    }
  }
}

}  // namespace nereid
