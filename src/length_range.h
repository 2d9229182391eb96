// Copyright Nereid authors.
// MuJoCo's actuator length-range computation (a muscle's, by default), run by Nereid after
// the compile instead of inside it. MuJoCo 3.14's compiler simulates each such actuator
// pushed both ways until <compiler><lengthrange inttotal> (10 s); once that simulation
// diverges, MuJoCo resets the data inside the step and the time never reaches the end, so the
// compile never returns (its own "Unstable lengthrange simulation" check looks for a time of
// 0, which the step has already advanced). Nereid compiles with the computation off, then
// calls MuJoCo's own mj_setLengthRange on the compiled model with the options MuJoCo's
// compiler sets and automatic reset off; a bad state on the way is an error
// (docs/robustness.md). Internal to libnereid.
#ifndef NEREID_SRC_LENGTH_RANGE_H_
#define NEREID_SRC_LENGTH_RANGE_H_

#include <string>

#include <mujoco/mujoco.h>

#include "nereid/mujoco_log.h"

namespace nereid {

// The most steps a length-range simulation may take (inttotal / timestep), for each actuator
// and direction: 100 times MuJoCo's default (10 s in steps of 0.01 s).
inline constexpr double kMaxLengthRangeSteps = 1e5;

// What the spec asked of the compiler that now happens after it: the length-range options,
// and the <statistic> values the user gave (MuJoCo's compiler computes the ranges before it
// puts them in the model: the solvers' tolerances scale with meaninertia). (The compiler's
// own test step, whose data it discards, then runs with the computed statistics: only its
// warnings could differ.)
struct LengthRangeRequest {
  mjLROpt options;
  mjStatistic statistic;
};

// Takes the request out of the spec: its length-range mode is set to "none" and its
// <statistic> values to undefined, so that mj_compile leaves both to ComputeLengthRanges.
LengthRangeRequest TakeLengthRangeRequest(mjSpec* spec);

// What MuJoCo 3.14's compiler does at the end of a compile (mjCModel::LengthRange, then the
// <statistic> values): the actuators it selects get their length range from
// mj_setLengthRange, with friction loss, contacts, springs, dampers, gravity, actuation and
// sleep off and options.timestep as the step (when positive), and also automatic reset off;
// m->opt is put back afterwards, then the user's statistics go into m->stat. Throws
// LoadError naming `name` and the actuator when a simulation goes bad (its first MuJoCo
// warning quoted) or MuJoCo finds no range (its own message), and ConfigError when one would
// take more than kMaxLengthRangeSteps steps.
void ComputeLengthRanges(mjModel* m, const LengthRangeRequest& request, const std::string& name,
                         MuJoCoWarnings* warnings);

}  // namespace nereid

#endif  // NEREID_SRC_LENGTH_RANGE_H_
