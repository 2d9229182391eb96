// Copyright Nereid authors.
#include "common/sensor_base.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/plugin_base.h"
#include "nereid/error.h"
#include "nereid/plugins.h"

namespace nereid {

namespace {

// A Nereid sensor's element that sets MuJoCo's delay, interval or noise: refused, naming
// `where` (the plugin instance), the sensor element, the attribute and its value.
void RefuseMuJoCoTiming(const std::string& where, const std::string& sensor, double delay, double interval,
                        double noise) {
  auto refuse = [&](const char* attribute, double value, const char* instead) {
    char text[64];
    std::snprintf(text, sizeof(text), "%g", value);
    throw ConfigError(where + ": sensor '" + sensor + "' sets MuJoCo's " + attribute + "=\"" + text +
                      "\"; Nereid's sensors take their " + instead + " from the plugin's own keys (docs/sensors.md)");
  };
  if (delay != 0) refuse("delay", delay, "latency");
  if (interval != 0) refuse("interval", interval, "rate");
  if (noise != 0) refuse("noise", noise, "noise");
}

std::string SpecText(const mjString* text) {
  const char* c = text ? mjs_getString(text) : nullptr;
  return c ? c : "";
}

}  // namespace

void CheckSensorSpecs(mjSpec* spec) {
  for (mjsElement* e = mjs_firstElement(spec, mjOBJ_SENSOR); e; e = mjs_nextElement(spec, e)) {
    const mjsSensor* sensor = mjs_asSensor(e);
    if (!sensor || sensor->type != mjSENS_PLUGIN) continue;
    // the plugin: named on the element, or the instance's (<plugin instance="..."/>)
    const std::string instance = SpecText(sensor->plugin.name);
    std::string plugin = SpecText(sensor->plugin.plugin_name);
    if (plugin.empty() && !instance.empty()) {
      if (mjsElement* i = mjs_findElement(spec, mjOBJ_PLUGIN, instance.c_str())) {
        if (const mjsPlugin* p = mjs_asPlugin(i)) plugin = SpecText(p->plugin_name);
      }
    }
    if (plugin.rfind("nereid.", 0) != 0) continue;
    RefuseMuJoCoTiming(plugin + " instance '" + instance + "'", SpecText(mjs_getName(e)), sensor->delay,
                       sensor->interval[0], sensor->noise);
  }
}

bool ExactSensorsRequested() {
  const char* v = std::getenv("NEREID_EXACT_SENSORS");
  return v && *v && std::strcmp(v, "0") != 0;
}

void SensorBase::ReadCommon(const mjModel* m, int instance, const ConfigReader& config,
                            const ConfigKey& rate_key, int dim) {
  namespace k = sensor_keys;
  name_ = PluginInstanceName(m, instance);
  dim_ = dim;
  const std::optional<std::string> site = config.Raw(k::kSite);
  if (!site) config.FailMissing(k::kSite, "the name of the site the sensor sits on");
  site_ = mj_name2id(m, mjOBJ_SITE, site->c_str());
  if (site_ < 0) config.Fail(k::kSite, "no site of that name in the model");

  const double rate = config.Number(rate_key);
  const double physics_rate = 1.0 / m->opt.timestep;
  if (!(rate > 0)) config.Fail(rate_key, "must be > 0 (Hz)");
  if (RateAbovePhysics(rate, m->opt.timestep)) {
    char limit[64];
    std::snprintf(limit, sizeof(limit), "%g Hz", physics_rate);
    config.Fail(rate_key, std::string("is above the physics rate 1/timestep = ") + limit +
                              ": a sensor samples at most once per step");
  }
  const double latency = config.Number(k::kLatency);
  if (!(latency >= 0 && latency <= k::kMaxLatency)) config.Fail(k::kLatency, "must be in [0, 60] (s)");
  const double seed = config.Number(k::kSeed);
  if (!(seed >= 0 && seed <= 4294967295.0 && seed == std::floor(seed))) {
    config.Fail(k::kSeed, "must be an integer in [0, 4294967295]");
  }
  key_seed_ = static_cast<uint64_t>(seed);

  // the sensor element that shows the reading: exactly one
  for (int j = 0; j < m->nsensor; ++j) {
    if (m->sensor_type[j] != mjSENS_PLUGIN || m->sensor_plugin[j] != instance) continue;
    if (sensor_ >= 0) {
      throw ConfigError(config.where() + ": more than one <sensor><plugin instance=\"" + name_ +
                        "\"/> element refers to it; one sensor element per instance");
    }
    sensor_ = j;
  }
  if (sensor_ < 0) {
    throw ConfigError(config.where() + ": no sensor element refers to it; add <sensor><plugin name=\"" +
                      name_ + "\" instance=\"" + name_ + "\"/></sensor>");
  }
  // one mechanism for rates, latency and noise: the plugin's keys
  const char* sensor_name = mj_id2name(m, mjOBJ_SENSOR, sensor_);
  RefuseMuJoCoTiming(config.where(), sensor_name ? sensor_name : "", m->sensor_delay[sensor_],
                     m->sensor_interval[2 * sensor_], m->sensor_noise[sensor_]);
  adr_ = m->sensor_adr[sensor_];

  exact_ = ExactSensorsRequested();
  clock_ = sensors::SampleClock(rate, latency);
  Reseed(0);
}

void SensorBase::Reseed(uint64_t run_seed) {
  stream_ = sensors::Stream(sensors::Mix(key_seed_ ^ sensors::Mix(run_seed)), sensors::StreamId(name_));
}

}  // namespace nereid
