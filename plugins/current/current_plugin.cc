// Copyright Nereid authors.
#include "current/current_plugin.h"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
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

// The key a rule of WaveField::RegularRule / SeaStateRule is about.
const ConfigKey& RuleKey(const std::string& rule) {
  using namespace current_keys;
  const auto has = [&](const char* word) { return rule.find(word) != std::string::npos; };
  if (has("breaks")) return kWaveHeight;  // the steepness H / L the height sets
  if (has("period")) return kWavePeriod;
  if (has("gamma")) return kWaveGamma;
  if (has("spreading")) return kWaveSpreading;
  if (has("components")) return kWaveComponents;
  return kWaveHeight;
}

// An integer in [low, high] from a key (its default if absent).
long Integer(const ConfigReader& config, const ConfigKey& key, double low, double high) {
  const double value = config.Number(key);
  if (!(value >= low && value <= high) || value != std::floor(value)) {
    std::ostringstream limits;
    limits << "expected an integer in " << low << ".." << high;
    config.Fail(key, limits.str());
  }
  return static_cast<long>(value);
}

// The wave keys (none without wave_type, or with wave_type none).
waves::WaveField WavesFromModel(const ConfigReader& config) {
  using namespace current_keys;
  const std::string type = *config.Text(kWaveType);
  if (type == "none") {
    for (const ConfigKey& key : kWaves) {
      if (std::string_view(key.name) != kWaveType.name && config.Has(key)) {
        config.Fail(key, "a wave key needs wave_type regular, jonswap or pm");
      }
    }
    return {};
  }
  if (type != "regular" && type != "jonswap" && type != "pm") {
    config.Fail(kWaveType, "expected none, regular, jonswap or pm");
  }
  if (!config.Has(kWaveHeight)) config.FailMissing(kWaveHeight, "required with waves");
  if (!config.Has(kWavePeriod)) config.FailMissing(kWavePeriod, "required with waves");
  const double height = config.Number(kWaveHeight);
  const double period = config.Number(kWavePeriod);
  const double direction = config.Number(kWaveDirection);
  const double depth = config.Number(kWaterDepth);
  if (!(depth >= 0)) config.Fail(kWaterDepth, "must be >= 0 m (0: deep water)");
  if (type == "regular") {
    for (const ConfigKey& key : {kWaveGamma, kWaveSpreading, kWaveComponents, kWaveSeed}) {
      if (config.Has(key)) config.Fail(key, "applies to an irregular sea (jonswap or pm), not a regular wave");
    }
    const std::string rule = waves::WaveField::RegularRule(height, period, depth);
    if (!rule.empty()) config.Fail(RuleKey(rule), rule);
    return waves::WaveField::Regular(height, period, direction, depth);
  }
  waves::SeaState sea;
  sea.kind = type == "pm" ? waves::SpectrumKind::kPiersonMoskowitz : waves::SpectrumKind::kJonswap;
  sea.significant_height = height;
  sea.peak_period = period;
  sea.direction = direction;
  if (type == "pm" && config.Has(kWaveGamma)) config.Fail(kWaveGamma, "applies to jonswap only (pm has gamma 1)");
  sea.gamma = type == "pm" ? 1.0 : config.Number(kWaveGamma);
  sea.spreading = config.Number(kWaveSpreading);
  sea.components = static_cast<int>(Integer(config, kWaveComponents, 1, waves::kMaxComponents));
  sea.seed = static_cast<std::uint64_t>(Integer(config, kWaveSeed, 0, 9007199254740992.0));  // 2^53
  const std::string rule = waves::WaveField::SeaStateRule(sea, depth);
  if (!rule.empty()) config.Fail(RuleKey(rule), rule);
  return waves::WaveField::Irregular(sea, depth);
}

// The steady current: one of velocity, time_profile, depth_profile.
CurrentField SteadyCurrent(const ConfigReader& config) {
  using Kind = CurrentField::Kind;
  int given = 0;
  for (const ConfigKey& key : current_keys::kCurrent) given += config.Has(key);
  if (given > 1) {
    throw ConfigError(config.where() +
                      ": give only one of 'velocity', 'time_profile', 'depth_profile'");
  }
  std::vector<double> knots;
  std::vector<Vec3> velocities;
  for (const Kind kind : {Kind::kTime, Kind::kDepth}) {
    const ConfigKey& key = current_keys::kCurrent[static_cast<size_t>(kind)];
    if (!config.Has(key)) continue;
    ReadProfile(config, key, &knots, &velocities);
    const std::string where = config.where() + ": key '" + key.name + "'";
    return kind == Kind::kTime ? CurrentField::TimeProfile(knots, velocities, where)
                               : CurrentField::DepthProfile(knots, velocities, where);
  }
  return CurrentField::Constant(*config.Vector3(current_keys::kVelocity));
}

}  // namespace

waves::WaveField WavesFromKeys(const std::string& where, const KeyText& text, const KeyFail& fail) {
  return WavesFromModel(ConfigReader(where, text, fail));
}

CurrentField CurrentFromModel(const mjModel* m, int instance) {
  ConfigReader config(m, instance, kCurrentPlugin);
  CurrentField field = SteadyCurrent(config);
  field.SetWaves(WavesFromModel(config));
  return field;
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
  plugin->trackers.resize(static_cast<size_t>(m->nbody));
  return plugin;
}

const CurrentField* CurrentPlugin::Field(const mjData* d, int instance) {
  const CurrentPlugin* plugin = instance >= 0 ? PluginObject<CurrentPlugin>(d, instance) : nullptr;
  return plugin ? &plugin->field : nullptr;
}

namespace {
// the waves at body `body`'s origin now, from its tracker
const waves::LocalWaves& BodyWaves(CurrentPlugin* plugin, const mjData* d, int body) {
  const mjtNum* x = d->xpos + 3 * body;
  return plugin->trackers[static_cast<size_t>(body)].Sample(plugin->field.shared_waves(), Vec3(x[0], x[1], x[2]),
                                                            d->time);
}
}  // namespace

std::optional<CurrentSample> CurrentPlugin::OnBody(const mjData* d, int instance, int body, const Vec3& p) {
  CurrentPlugin* plugin = instance >= 0 ? PluginObject<CurrentPlugin>(d, instance) : nullptr;
  if (!plugin) return std::nullopt;
  if (!plugin->field.waves() || body < 0 || static_cast<size_t>(body) >= plugin->trackers.size()) {
    return plugin->field.Evaluate(d->time, p);
  }
  CurrentSample s = plugin->field.Evaluate(d->time, p.z());
  const waves::Kinematics w = BodyWaves(plugin, d, body).Near(p);
  s.velocity += w.velocity;
  s.d_dt += w.acceleration;
  s.d_dx = w.gradient;
  s.elevation = w.elevation;
  return s;
}

std::optional<Vec3> CurrentPlugin::VelocityOnBody(const mjData* d, int instance, int body, const Vec3& p) {
  CurrentPlugin* plugin = instance >= 0 ? PluginObject<CurrentPlugin>(d, instance) : nullptr;
  if (!plugin) return std::nullopt;
  if (!plugin->field.waves() || body < 0 || static_cast<size_t>(body) >= plugin->trackers.size()) {
    return plugin->field.Velocity(d->time, p);
  }
  return plugin->field.Evaluate(d->time, p.z()).velocity + BodyWaves(plugin, d, body).VelocityNear(p);
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
