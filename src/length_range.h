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

// The spec's length-range options; the spec's mode is set to "none", so that mj_compile
// leaves the computation to ComputeLengthRanges.
mjLROpt TakeLengthRangeOptions(mjSpec* spec);

// What MuJoCo 3.14's compiler does with `opt` (mjCModel::LengthRange): the actuators it
// selects get their length range from mj_setLengthRange, with friction loss, contacts,
// springs, dampers, gravity, actuation and sleep off and opt.timestep as the step (when
// positive), and also automatic reset off; m->opt is put back afterwards. Throws LoadError
// naming `name` and the actuator when the simulation diverges or MuJoCo finds no range (its
// own message), and ConfigError when it would take more than kMaxLengthRangeSteps steps.
void ComputeLengthRanges(mjModel* m, const mjLROpt& opt, const std::string& name, MuJoCoWarnings* warnings);

}  // namespace nereid

#endif  // NEREID_SRC_LENGTH_RANGE_H_
