// Copyright Nereid authors.
#include "thruster/thruster.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/config_reader.h"
#include "common/plugin_base.h"
#include "current/current_plugin.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/object_names.h"

namespace nereid {
namespace {

// "x0 y0 x1 y1 ..." into two lists
void ReadPairs(const ConfigReader& config, const ConfigKey& key, std::vector<double>* x,
               std::vector<double>* y) {
  const std::vector<double> values = *config.Numbers(key);
  if (values.size() % 2 != 0) {
    config.Fail(key, "expected pairs of numbers, got " + std::to_string(values.size()) + " numbers");
  }
  for (size_t i = 0; i < values.size(); i += 2) {
    x->push_back(values[i]);
    y->push_back(values[i + 1]);
  }
}

std::string ActuatorName(const mjModel* m, int a) { return NameOrId(m, mjOBJ_ACTUATOR, a); }

}  // namespace

ThrusterModel ThrusterModelFromModel(const mjModel* m, int instance) {
  namespace k = thruster_keys;
  ConfigReader config(m, instance, kThrusterPlugin);
  ThrusterModel model;
  const std::optional<std::string> input = config.Raw(k::kInput);
  if (!input) config.FailMissing(k::kInput, NameChoices(kThrusterInputNames, 0));
  if (!ParseThrusterInput(*input, &model.input)) {
    config.Fail(k::kInput, "expected " + NameChoices(kThrusterInputNames, '\''));
  }
  if (config.Has(k::kCommandMap)) ReadPairs(config, k::kCommandMap, &model.map_command, &model.map_rpm);
  if (config.Has(k::kThrustCurve)) ReadPairs(config, k::kThrustCurve, &model.curve_rpm, &model.curve_thrust);
  if (std::optional<std::vector<double>> coefficients = config.Numbers(k::kThrustCoefficient, 2)) {
    model.k_forward = (*coefficients)[0];
    model.k_reverse = (*coefficients)[1];
    if (model.k_forward <= 0 || model.k_reverse <= 0) {
      config.Fail(k::kThrustCoefficient, "both coefficients must be > 0 (N/rpm^2)");
    }
  }
  model.thrust_loss = config.Number(k::kThrustLoss);
  model.time_constant = config.Number(k::kTimeConstant);
  if (std::optional<std::vector<double>> limits = config.Numbers(k::kThrustLimits, 2)) {
    model.thrust_min = (*limits)[0];
    model.thrust_max = (*limits)[1];
  }
  if (std::optional<std::vector<double>> band = config.Numbers(k::kDeadBand, 2)) {
    model.dead_band = std::make_pair((*band)[0], (*band)[1]);
  }
  model.Validate(config.where());
  return model;
}

std::unique_ptr<Thruster> Thruster::Create(const mjModel* m, mjData*, int instance) {
  auto t = std::make_unique<Thruster>();
  t->model_ = ThrusterModelFromModel(m, instance);
  const ThrusterModel& model = t->model_;
  const std::string where = std::string(kName) + " instance '" + PluginInstanceName(m, instance) + "'";
  const int needed_act = model.time_constant > 0 ? 1 : 0;
  for (int a = 0; a < static_cast<int>(m->nactuator); ++a) {
    if (m->actuator_plugin[a] != instance) continue;
    if (m->actuator_trntype[a] != mjTRN_SITE) {
      throw ConfigError(where + ": actuator '" + ActuatorName(m, a) +
                        "' must act on a site (site=\"...\"): the thrust acts at the site");
    }
    // gear and actuator_force are per force output: a site transmission has one, at
    // actuator_outadr (an actuator before it may have several: an orientation servo 3)
    const double* gear = m->actuator_gear + 6 * m->actuator_outadr[a];
    if (std::sqrt(gear[0] * gear[0] + gear[1] * gear[1] + gear[2] * gear[2]) == 0) {
      throw ConfigError(where + ": actuator '" + ActuatorName(m, a) +
                        "': gear has no force direction (use gear=\"0 0 1 0 0 0\" for the site's +z)");
    }
    if (m->actuator_actnum[a] != needed_act) {
      throw ConfigError(where + ": actuator '" + ActuatorName(m, a) + "' has actdim=\"" +
                        std::to_string(m->actuator_actnum[a]) + "\"; it needs actdim=\"" +
                        std::to_string(needed_act) + "\" (" +
                        (needed_act ? "the motor lag's shaft speed" : "no motor lag") + ")");
    }
    t->actuators_.push_back(a);
  }
  t->current_instance_ = FindCurrentInstance(m);
  return t;
}

double Thruster::Command(const mjModel* m, const mjData* d, int a) const {
  // a plugin actuator has one control; MuJoCo places it, its ctrllimited and its ctrlrange
  // at actuator_ctrladr (an actuator before it may take 0 or several: a <pid input="pos
  // vel"> takes 2)
  const int c = m->actuator_ctrladr[a];
  double u = d->ctrl[c];
  // an ESC that receives no pulse (ctrl 0, as after mj_resetData) keeps the motor stopped
  if (model_.input == ThrusterInput::kPwm && u == 0) return std::nan("");
  // clamped to ctrlrange as MuJoCo clamps its own actuators' controls (unless the model's
  // options disable it: mjDSBL_CLAMPCTRL, read at every call)
  if (m->actuator_ctrllimited[c] && !(m->opt.disableflags & mjDSBL_CLAMPCTRL)) {
    u = std::clamp(u, m->actuator_ctrlrange[2 * c], m->actuator_ctrlrange[2 * c + 1]);
  }
  return u;
}

double Thruster::AdvanceSpeed(const mjModel* m, const mjData* d, int a) const {
  const int site = m->actuator_trnid[2 * a];
  const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->site_xmat + 9 * site);
  const mjtNum* gear = m->actuator_gear + 6 * m->actuator_outadr[a];
  const Vec3 axis = R * Vec3(gear[0], gear[1], gear[2]).normalized();
  mjtNum velocity[6];
  mj_objectVelocity(m, d, mjOBJ_SITE, site, velocity, 0);
  Vec3 v(velocity[3], velocity[4], velocity[5]);
  const mjtNum* x = d->site_xpos + 3 * site;
  if (const std::optional<Vec3> water =
          CurrentPlugin::VelocityOnBody(d, current_instance_, m->site_bodyid[site], Vec3(x[0], x[1], x[2]))) {
    v -= *water;
  }
  return v.dot(axis);
}

void Thruster::ActDot(const mjModel* m, mjData* d) const noexcept {
  if (model_.time_constant <= 0) return;
  for (int a : actuators_) {
    const int adr = m->actuator_actadr[a];
    d->act_dot[adr] = (model_.ShaftSpeed(Command(m, d, a)) - d->act[adr]) / model_.time_constant;
  }
}

void Thruster::Compute(const mjModel* m, mjData* d, int) noexcept {
  for (int a : actuators_) {
    // an actuator group disabled in the model's options (mjOption.disableactuator) gives
    // no thrust, as MuJoCo's own actuators do (it leaves plugin actuators to themselves);
    // its motor lag's shaft speed is frozen by MuJoCo's (and Nereid's RK4) advance
    if (ActuatorGroupDisabled(m, a)) {
      d->actuator_force[m->actuator_outadr[a]] = 0;
      continue;
    }
    const double n = model_.time_constant > 0 ? d->act[m->actuator_actadr[a]]
                                              : model_.ShaftSpeed(Command(m, d, a));
    const double u_a = model_.thrust_loss > 0 ? AdvanceSpeed(m, d, a) : 0.0;
    d->actuator_force[m->actuator_outadr[a]] = model_.Thrust(n, u_a);
  }
}

void Thruster::RegisterPlugin() { nereid::RegisterPlugin<Thruster>(mjPLUGIN_ACTUATOR); }

}  // namespace nereid
