// Copyright Nereid authors.
#include "current/current_plugin.h"

#include <vector>

#include "common/config_reader.h"
#include "common/plugin_base.h"
#include "nereid/error.h"

namespace nereid {
namespace {

// "k0 vx vy vz k1 vx vy vz ..." into knots and velocities
void ReadProfile(const ConfigReader& config, const ConfigKey& key, std::vector<double>* knots,
                 std::vector<Vec3>* velocities) {
  std::vector<double> values = *config.Numbers(key);
  if (values.size() % 4 != 0) {
    config.Fail(key, "expected groups of 4 numbers 'knot vx vy vz', got " +
                         std::to_string(values.size()) + " numbers");
  }
  for (size_t i = 0; i < values.size(); i += 4) {
    knots->push_back(values[i]);
    velocities->emplace_back(values[i + 1], values[i + 2], values[i + 3]);
  }
}

}  // namespace

CurrentField CurrentFromModel(const mjModel* m, int instance) {
  using Kind = CurrentField::Kind;
  ConfigReader config(m, instance, kCurrentPlugin);
  int given = 0;
  for (const ConfigKey& key : current_keys::kAll) given += config.Has(key);
  if (given > 1) {
    throw ConfigError(config.where() +
                      ": give only one of 'velocity', 'time_profile', 'depth_profile'");
  }
  std::vector<double> knots;
  std::vector<Vec3> velocities;
  for (const Kind kind : {Kind::kTime, Kind::kDepth}) {
    const ConfigKey& key = current_keys::kAll[static_cast<size_t>(kind)];
    if (!config.Has(key)) continue;
    ReadProfile(config, key, &knots, &velocities);
    const std::string where = config.where() + ": key '" + key.name + "'";
    return kind == Kind::kTime ? CurrentField::TimeProfile(knots, velocities, where)
                               : CurrentField::DepthProfile(knots, velocities, where);
  }
  return CurrentField::Constant(*config.Vector3(current_keys::kVelocity));
}

std::unique_ptr<CurrentPlugin> CurrentPlugin::Create(const mjModel* m, mjData*, int instance) {
  std::vector<int> all = FindPluginInstances(m, kCurrentPlugin);
  if (!all.empty() && all.front() != instance) {
    throw ConfigError(std::string(kCurrentPlugin) + " instance '" +
                      PluginInstanceName(m, instance) + "': the model already has current '" +
                      PluginInstanceName(m, all.front()) + "'; at most one is allowed");
  }
  auto plugin = std::make_unique<CurrentPlugin>();
  plugin->initial = CurrentFromModel(m, instance);
  plugin->field = plugin->initial;
  return plugin;
}

const CurrentField* CurrentPlugin::Field(const mjData* d, int instance) {
  const CurrentPlugin* plugin = instance >= 0 ? PluginObject<CurrentPlugin>(d, instance) : nullptr;
  return plugin ? &plugin->field : nullptr;
}

void CurrentPlugin::RegisterPlugin() { RegisterPassivePlugin<CurrentPlugin>(); }

CurrentField* MutableCurrent(mjData* d, const mjModel* m, int instance) {
  int slot = -1;
  if (instance < 0 || instance >= m->nplugin || !mjp_getPlugin(kCurrentPlugin, &slot) ||
      m->plugin[instance] != slot) {
    return nullptr;
  }
  CurrentPlugin* plugin = PluginObject<CurrentPlugin>(d, instance);
  return plugin ? &plugin->field : nullptr;
}

}  // namespace nereid
