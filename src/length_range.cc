// Copyright Nereid authors.
#include "length_range.h"

#include <cmath>
#include <sstream>

#include "nereid/error.h"

namespace nereid {
namespace {

// mj_setLengthRange's own selection: the actuators whose range it computes under opt's mode
bool Selected(const mjModel* m, const mjLROpt& opt, int i) {
  const bool muscle = m->actuator_gaintype[i] == mjGAIN_MUSCLE || m->actuator_biastype[i] == mjBIAS_MUSCLE;
  const bool user = m->actuator_gaintype[i] == mjGAIN_USER || m->actuator_biastype[i] == mjBIAS_USER;
  switch (opt.mode) {
    case mjLRMODE_NONE: return false;
    case mjLRMODE_MUSCLE: return muscle;
    case mjLRMODE_MUSCLEUSER: return muscle || user;
    default: return true;
  }
}

std::string ActuatorLabel(const mjModel* m, int i) {
  const char* name = mj_id2name(m, mjOBJ_ACTUATOR, i);
  return name ? "actuator '" + std::string(name) + "'" : "actuator #" + std::to_string(i);
}

}  // namespace

mjLROpt TakeLengthRangeOptions(mjSpec* spec) {
  const mjLROpt opt = spec->compiler.LRopt;
  spec->compiler.LRopt.mode = mjLRMODE_NONE;
  return opt;
}

void ComputeLengthRanges(mjModel* m, const mjLROpt& opt, const std::string& name, MuJoCoWarnings* warnings) {
  bool any = false;
  for (int i = 0; i < m->nactuator && !any; ++i) any = Selected(m, opt, i);
  if (!any) return;
  // each actuator and direction is simulated for inttotal: bounded, as a count from the user
  const double step = opt.timestep > 0 ? opt.timestep : m->opt.timestep;
  const double steps = std::ceil(opt.inttotal / step);
  if (!(steps <= kMaxLengthRangeSteps)) {
    std::ostringstream why;
    why << name << ": <compiler><lengthrange inttotal=\"" << opt.inttotal << "\" timestep=\"" << opt.timestep
        << "\">: the length-range simulation would take " << steps << " steps of " << step
        << " s for each actuator and direction; at most " << kMaxLengthRangeSteps
        << " (MuJoCo's default is 1000: inttotal 10 s, timestep 0.01 s)";
    throw ConfigError(why.str());
  }
  const mjOption saved = m->opt;
  // MuJoCo's compiler's options, and no automatic reset: a simulation that diverges runs on
  // to inttotal instead of starting again forever (any reset would repeat the same path,
  // so on a model whose computation MuJoCo finishes, none happens and the result is MuJoCo's)
  m->opt.disableflags = mjDSBL_FRICTIONLOSS | mjDSBL_CONTACT | mjDSBL_SPRING | mjDSBL_DAMPER | mjDSBL_GRAVITY |
                        mjDSBL_ACTUATION | mjDSBL_AUTORESET;
  m->opt.enableflags &= ~mjENBL_SLEEP;
  if (opt.timestep > 0) m->opt.timestep = opt.timestep;
  std::string why;
  std::string fatal;
  mjData* d = nullptr;
  if (!CallMuJoCo([&] { d = mj_makeData(m); }, warnings, &fatal) || !d) {
    why = "MuJoCo cannot make the data for the length-range computation" + (fatal.empty() ? "" : ": " + fatal);
  }
  for (int i = 0; d && why.empty() && i < m->nactuator; ++i) {
    char error[512] = "";
    int ok = 1;
    mjData* data = d;
    if (!CallMuJoCo([&] { ok = mj_setLengthRange(m, data, i, &opt, error, sizeof(error)); }, warnings, &fatal)) {
      why = ActuatorLabel(m, i) + ": MuJoCo error in its length-range computation: " + fatal;
      break;
    }
    // a bad state is counted in the data and kept through its resets
    for (const int kind : {mjWARN_BADQACC, mjWARN_BADQVEL, mjWARN_BADQPOS}) {  // (the order they arise in)
      if (d->warning[kind].number == 0 || !why.empty()) continue;
      why = ActuatorLabel(m, i) + ": MuJoCo's length-range simulation became unstable (" +
            mju_warningText(kind, static_cast<size_t>(d->warning[kind].lastinfo)) +
            "), where MuJoCo 3.14's compiler would loop forever; give the actuator a lengthrange, or "
            "change <compiler><lengthrange> (timestep, accel, inttotal)";
    }
    if (why.empty() && !ok) why = ActuatorLabel(m, i) + ": " + error;
  }
  if (d) mj_deleteData(d);
  m->opt = saved;
  if (!why.empty()) throw LoadError(name + ": " + why);
}

}  // namespace nereid
