// Copyright Nereid authors.
// Batch rollouts with Nereid's stepper, in the spirit of mujoco.rollout: many initial states
// and control sequences of one model, stepped in C++ threads. Each rollout starts from
// reset data (UK connections as the model says) set to its initial state, so its result
// does not depend on the thread count or on which thread runs it (bitwise).
#ifndef NEREID_ROLLOUT_H_
#define NEREID_ROLLOUT_H_

#include <mujoco/mujoco.h>

#include "nereid/simulation.h"

namespace nereid {

// What one rollout state holds: MuJoCo's full physics state (time, qpos, qvel, act,
// mocap, plugin state), as mj_getState / mj_setState write and read it.
inline constexpr int kRolloutState = mjSTATE_FULLPHYSICS;

// Bounds on what a caller may ask for (messages state them).
inline constexpr long kMaxRollouts = 1000000;
inline constexpr long kMaxRolloutSteps = 100000000;
inline constexpr int kMaxRolloutThreads = 256;

struct RolloutSizes {
  int nstate = 0;       // mj_stateSize(m, kRolloutState)
  int nu = 0;           // controls per step
  int nsensordata = 0;  // sensor values per step
};
RolloutSizes RolloutSizesOf(const mjModel* m);

// Steps `nroll` rollouts of `nstep` steps each:
//   initial_state  nroll x nstate
//   control        nroll x nstep x nu (ctrl set before each step); may be null when nu = 0
//   state          nroll x nstep x nstate   (out: the state after each step)
//   sensordata     nroll x nstep x nsensordata (out, may be null: d->sensordata after each
//                  step, i.e. computed in that step's forward pass, as mj_step leaves it)
// on `nthread` threads, each with its own mjData (made for Nereid's engine) attached to
// `m` with `options` (engine and constraints; options.integrator and options.timestep
// must be unset: they would write into the shared model). The model is only read while
// the threads run. Throws ConfigError for bad sizes or a control that is not finite
// (CheckControls: before any rollout runs), and the first failing rollout's
// error (DivergenceError, MuJoCoError), naming the rollout, after all threads stopped.
void Rollout(mjModel* m, long nroll, long nstep, const mjtNum* initial_state, const mjtNum* control,
             mjtNum* state, mjtNum* sensordata, int nthread, const SimulationOptions& options = {});

}  // namespace nereid

#endif  // NEREID_ROLLOUT_H_
