// Copyright Nereid authors.
// The sensor plugins' public read-outs (include/nereid/plugins.h): their fields' names, their
// mounts (site, clock, a DVL's beams: what the viewer draws), reseeding them from a run's
// seed or making them exact, and the engine's view of them (their stage, whether MuJoCo's acceleration-stage
// preparation is needed).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "acoustic/acoustic.h"
#include "altimeter/altimeter.h"
#include "common/plugin_base.h"
#include "dvl/dvl.h"
#include "imu/imu.h"
#include "marker/marker.h"
#include "nereid/plugins.h"
#include "pressure/pressure.h"

namespace nereid {
namespace {

// Calls f.template operator()<T>() with the sensor class whose plugin is `name`; false if none.
template <class F>
bool WithSensorType(const char* name, F&& f) {
  if (!name) return false;
  if (std::strcmp(name, kPressurePlugin) == 0) return f.template operator()<Pressure>(), true;
  if (std::strcmp(name, kImuPlugin) == 0) return f.template operator()<Imu>(), true;
  if (std::strcmp(name, kDvlPlugin) == 0) return f.template operator()<Dvl>(), true;
  if (std::strcmp(name, kAcousticPlugin) == 0) return f.template operator()<Acoustic>(), true;
  if (std::strcmp(name, kAltimeterPlugin) == 0) return f.template operator()<Altimeter>(), true;
  if (std::strcmp(name, kMarkerPlugin) == 0) return f.template operator()<Marker>(), true;
  return false;
}

const char* PluginName(const mjModel* m, int instance) {
  if (instance < 0 || instance >= m->nplugin) return nullptr;
  const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[instance]);
  return plugin ? plugin->name : nullptr;
}

}  // namespace

std::vector<std::string> SensorFieldNames(const mjModel* m, int sensor) {
  std::vector<std::string> names;
  if (sensor < 0 || sensor >= m->nsensor) return names;
  if (m->sensor_type[sensor] == mjSENS_PLUGIN) {
    WithSensorType(PluginName(m, m->sensor_plugin[sensor]), [&]<class T>() {
      for (const char* field : T::kFields) names.emplace_back(field);
    });
  }
  if (names.empty()) {
    for (int i = 0; i < m->sensor_dim[sensor]; ++i) names.push_back(std::to_string(i));
  }
  return names;
}

int SensorFieldIndex(const mjModel* m, int sensor, std::string_view field) {
  const std::vector<std::string> names = SensorFieldNames(m, sensor);
  const auto at = std::find(names.begin(), names.end(), field);
  return at == names.end() ? -1 : static_cast<int>(at - names.begin());
}

std::optional<SensorMount> SensorMountOf(const mjModel* m, const mjData* d, int instance) {
  if (instance < 0 || instance >= m->nplugin || !d->plugin_data[instance]) return std::nullopt;
  std::optional<SensorMount> mount;
  WithSensorType(PluginName(m, instance), [&]<class T>() {
    const T* sensor = PluginObject<T>(d, instance);
    mount.emplace();
    mount->plugin = T::kName;
    mount->site = sensor->site();
    mount->period = sensor->period();
    mount->latency = sensor->latency();
    if constexpr (std::is_same_v<T, Dvl>) {
      mount->beams = sensor->beams();
      mount->max_altitude = sensor->max_altitude();
    }
  });
  if (!mount) return std::nullopt;
  for (int s = 0; s < m->nsensor; ++s) {
    if (m->sensor_type[s] == mjSENS_PLUGIN && m->sensor_plugin[s] == instance) {
      mount->sensor = s;
      break;
    }
  }
  return mount;
}

bool SensorsSkipRnePost(const mjModel* m) {
  bool nereid_acc = false;
  for (int i = 0; i < m->nsensor; ++i) {
    if (m->sensor_needstage[i] != mjSTAGE_ACC) continue;
    switch (m->sensor_type[i]) {
      case mjSENS_ACCELEROMETER:
      case mjSENS_FORCE:
      case mjSENS_TORQUE:
      case mjSENS_FRAMELINACC:
      case mjSENS_FRAMEANGACC:
      case mjSENS_USER:
        return false;
      case mjSENS_PLUGIN:
        if (!WithSensorType(PluginName(m, m->sensor_plugin[i]), []<class T>() {})) return false;
        nereid_acc = true;
        break;
      default:
        break;
    }
  }
  // a sensor plugin with no sensor element is still computed at its stage
  for (int i = 0; i < m->nplugin; ++i) {
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[i]);
    if (plugin && (plugin->capabilityflags & mjPLUGIN_SENSOR) && plugin->needstage == mjSTAGE_ACC &&
        !WithSensorType(plugin->name, []<class T>() {})) {
      return false;
    }
  }
  return nereid_acc;
}

namespace {
// Applies `change` to every Nereid sensor object of d, then restarts it (its class's Reset).
template <class F>
void ChangeSensors(const mjModel* m, mjData* d, F&& change) {
  for (int i = 0; i < m->nplugin; ++i) {
    if (!d->plugin_data[i]) continue;
    WithSensorType(PluginName(m, i), [&]<class T>() {
      T* sensor = PluginObject<T>(d, i);
      change(static_cast<SensorBase&>(*sensor));
      sensor->Reset();
    });
  }
}
}  // namespace

void SeedSensors(const mjModel* m, mjData* d, uint64_t run_seed) {
  ChangeSensors(m, d, [&](SensorBase& sensor) { sensor.Reseed(run_seed); });
}

void SetSensorsExact(const mjModel* m, mjData* d, bool exact) {
  ChangeSensors(m, d, [&](SensorBase& sensor) { sensor.set_exact(exact); });
}

std::string SensorFasterThanStep(const mjModel* m, const mjData* d) {
  for (int i = 0; i < m->nplugin; ++i) {
    if (!d->plugin_data[i]) continue;
    std::string problem;
    WithSensorType(PluginName(m, i), [&]<class T>() {
      const T* sensor = PluginObject<T>(d, i);
      if (!RateAbovePhysics(1.0 / sensor->period(), m->opt.timestep)) return;
      char text[160];
      std::snprintf(text, sizeof(text), "rate %g Hz is above the physics rate 1/timestep = %g Hz",
                    1.0 / sensor->period(), 1.0 / m->opt.timestep);
      problem = std::string(PluginName(m, i)) + " instance '" + sensor->name() + "': " + text;
    });
    if (!problem.empty()) return problem;
  }
  return "";
}

std::optional<SensorCalls> NereidSensorCalls(const mjModel* m, const mjData* d) {
  for (int i = 0; i < m->nsensor; ++i) {
    if (m->sensor_type[i] != mjSENS_PLUGIN || m->sensor_cutoff[i] > 0) return std::nullopt;
  }
  SensorCalls calls;
  for (int i = 0; i < m->nplugin; ++i) {
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[i]);
    if (!plugin || !(plugin->capabilityflags & mjPLUGIN_SENSOR)) continue;
    const sensors::SampleClock* clock = nullptr;
    const bool nereid = WithSensorType(plugin->name, [&]<class T>() {
      if (const T* object = d ? PluginObject<T>(d, i) : nullptr) clock = &object->clock();
    });
    if (!nereid || !plugin->compute) return std::nullopt;
    const int stage = plugin->needstage == mjSTAGE_NONE ? mjSTAGE_POS : plugin->needstage;
    if (stage < mjSTAGE_POS || stage > mjSTAGE_ACC) return std::nullopt;
    calls[static_cast<size_t>(stage - mjSTAGE_POS)].push_back({{i, plugin->compute}, clock});
  }
  return calls;
}

int PluginsBeforeTrailingSensors(const mjModel* m, const SensorCalls& calls) {
  std::vector<bool> sensor(static_cast<size_t>(m->nplugin), false);
  for (const std::vector<SensorCall>& stage : calls) {
    for (const SensorCall& call : stage) sensor[static_cast<size_t>(call.instance)] = true;
  }
  int n = static_cast<int>(m->nplugin);
  while (n > 0 && sensor[static_cast<size_t>(n - 1)]) {
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[n - 1]);
    if (!plugin || plugin->capabilityflags != mjPLUGIN_SENSOR || plugin->advance || plugin->actuator_act_dot) break;
    --n;
  }
  return n;
}

}  // namespace nereid
