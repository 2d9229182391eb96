// Copyright Nereid authors.
#include "length_range.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>

#include "nereid/error.h"
#include "nereid/object_names.h"

namespace nereid {
namespace {

// mj_setLengthRange's own selection by the options' mode: the actuators it does anything for
bool Selected(const mjModel* m, const mjLROpt& opt, int i) {
  const bool muscle = m->actuator_gaintype[i] == mjGAIN_MUSCLE || m->actuator_biastype[i] == mjBIAS_MUSCLE;
  const bool user = m->actuator_gaintype[i] == mjGAIN_USER || m->actuator_biastype[i] == mjBIAS_USER;
  return opt.mode == mjLRMODE_ALL || (opt.mode == mjLRMODE_MUSCLE && muscle) ||
         (opt.mode == mjLRMODE_MUSCLEUSER && (muscle || user));
}

// Of those, the ones it simulates: not with useexisting and a range given, nor with uselimit
// and a limited joint or tendon, whose range it copies. MuJoCo 3.14 looks that joint or
// tendon up at actuator_trnid[i], not [2 i]: the same lookup here, so that the same
// actuators count (one it would read out of bounds counts as simulated).
bool Simulated(const mjModel* m, const mjLROpt& opt, int i) {
  const int out = m->actuator_outadr[i];
  const bool given = m->actuator_lengthrange[2 * out] < m->actuator_lengthrange[2 * out + 1];
  if (!Selected(m, opt, i) || (opt.useexisting && given)) return false;
  if (opt.uselimit) {
    const int id = m->actuator_trnid[i];
    const int type = m->actuator_trntype[i];
    if ((type == mjTRN_JOINT || type == mjTRN_JOINTINPARENT) && id >= 0 && id < m->njnt && m->jnt_limited[id]) {
      return false;
    }
    if (type == mjTRN_TENDON && id >= 0 && id < m->ntendon && m->tendon_limited[id]) return false;
  }
  return true;
}

std::string ActuatorLabel(const mjModel* m, int i) { return "actuator " + QuotedNameOrId(m, mjOBJ_ACTUATOR, i); }

// MuJoCo's compiler's statistics override: the values the user defined (NaN: not defined)
void ApplyStatistic(mjModel* m, const mjStatistic& stat) {
  if (!std::isnan(stat.extent)) m->stat.extent = stat.extent;
  if (!std::isnan(stat.meaninertia)) m->stat.meaninertia = stat.meaninertia;
  if (!std::isnan(stat.meanmass)) m->stat.meanmass = stat.meanmass;
  if (!std::isnan(stat.meansize)) m->stat.meansize = stat.meansize;
  if (!std::isnan(stat.center[0])) std::memcpy(m->stat.center, stat.center, sizeof(m->stat.center));
}

// The computation for the actuators it simulates; the reason it fails, or empty
std::string Compute(mjModel* m, const mjLROpt& opt, const std::string& name, MuJoCoWarnings* warnings) {
  bool selected = false, simulated = false;
  for (int i = 0; i < m->nactuator; ++i) {
    selected = selected || Selected(m, opt, i);
    simulated = simulated || Simulated(m, opt, i);
  }
  if (!selected) return "";
  // each actuator and direction is simulated for inttotal: bounded, as a count from the user
  const double step = opt.timestep > 0 ? opt.timestep : m->opt.timestep;
  const double steps = std::ceil(opt.inttotal / step);
  if (simulated && !(steps <= kMaxLengthRangeSteps)) {
    std::ostringstream why;
    why << name << ": <compiler><lengthrange inttotal=\"" << opt.inttotal << "\" timestep=\"" << opt.timestep
        << "\">: the length-range simulation would take " << steps << " steps of " << step
        << " s for each actuator and direction; at most " << kMaxLengthRangeSteps
        << " (MuJoCo's default is 1000: inttotal 10 s, timestep 0.01 s)";
    throw ConfigError(why.str());
  }
  // MuJoCo's compiler's options (assigned, not added), and no automatic reset: a simulation
  // that goes bad runs on to inttotal instead of starting again from the same state, which
  // in MuJoCo's compiler repeats the same path forever
  struct RestoreOptions {
    mjModel* m;
    mjOption saved;
    ~RestoreOptions() { m->opt = saved; }
  } restore{m, m->opt};
  m->opt.disableflags = mjDSBL_FRICTIONLOSS | mjDSBL_CONTACT | mjDSBL_SPRING | mjDSBL_DAMPER | mjDSBL_GRAVITY |
                        mjDSBL_ACTUATION | mjDSBL_AUTORESET;
  m->opt.enableflags &= ~mjENBL_SLEEP;
  if (opt.timestep > 0) m->opt.timestep = opt.timestep;
  std::string fatal;
  mjData* made = nullptr;
  if (!CallMuJoCo([&] { made = mj_makeData(m); }, warnings, &fatal) || !made) {
    return "MuJoCo cannot make the data for the length-range computation" + (fatal.empty() ? "" : ": " + fatal);
  }
  const std::unique_ptr<mjData, void (*)(mjData*)> d(made, mj_deleteData);
  for (int i = 0; i < m->nactuator; ++i) {
    if (!Selected(m, opt, i)) continue;
    char error[512] = "";
    int ok = 1;
    mjData* data = d.get();
    // this actuator's warnings: each direction starts with mj_resetData, which clears the
    // data's warning counts, so MuJoCo reports a bad state once in each direction
    MuJoCoWarnings own;
    if (!CallMuJoCo([&] { ok = mj_setLengthRange(m, data, i, &opt, error, sizeof(error)); }, &own, &fatal)) {
      if (warnings) warnings->Add(own);
      return ActuatorLabel(m, i) + ": MuJoCo error in its length-range computation: " + fatal;
    }
    if (warnings) warnings->Add(own);
    if (!own.first_bad_state().empty()) {
      return ActuatorLabel(m, i) + ": MuJoCo's length-range simulation became unstable (" + own.first_bad_state() +
             "), where MuJoCo 3.14's compiler would loop forever; give the actuator a lengthrange (with "
             "<compiler><lengthrange useexisting=\"true\">, the default), or change <compiler><lengthrange> "
             "(timestep, accel, inttotal; mode=\"none\" computes none)";
    }
    if (!ok) return ActuatorLabel(m, i) + ": " + error;
    const int out = m->actuator_outadr[i];
    if (!std::isfinite(m->actuator_lengthrange[2 * out]) || !std::isfinite(m->actuator_lengthrange[2 * out + 1])) {
      std::ostringstream why;
      why << ActuatorLabel(m, i) << ": MuJoCo's length-range computation gave (" << m->actuator_lengthrange[2 * out]
          << ", " << m->actuator_lengthrange[2 * out + 1] << "); give the actuator a lengthrange";
      return why.str();
    }
  }
  return "";
}

}  // namespace

LengthRangeRequest TakeLengthRangeRequest(mjSpec* spec) {
  const LengthRangeRequest request{spec->compiler.LRopt, spec->stat};
  spec->compiler.LRopt.mode = mjLRMODE_NONE;
  const double undefined = std::numeric_limits<double>::quiet_NaN();
  spec->stat.meaninertia = spec->stat.meanmass = spec->stat.meansize = spec->stat.extent = undefined;
  for (double& c : spec->stat.center) c = undefined;
  return request;
}

void ComputeLengthRanges(mjModel* m, const LengthRangeRequest& request, const std::string& name,
                         MuJoCoWarnings* warnings) {
  const std::string why = Compute(m, request.options, name, warnings);
  if (!why.empty()) throw LoadError(name + ": " + why);
  ApplyStatistic(m, request.statistic);
}

}  // namespace nereid
