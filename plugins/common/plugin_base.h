// Copyright Nereid authors.
// Registration boilerplate shared by Nereid's passive plugins: one C++ object per
// instance per mjData in d->plugin_data, created by T::Create (which throws ConfigError on
// a user mistake; init then reports it and returns -1 so the model fails to load cleanly,
// never mju_error), copied with mj_copyData, deleted with mj_deleteData.
#ifndef NEREID_PLUGINS_COMMON_PLUGIN_BASE_H_
#define NEREID_PLUGINS_COMMON_PLUGIN_BASE_H_

#include <cstdint>
#include <exception>
#include <memory>
#include <string>

#include <mujoco/mujoco.h>

namespace nereid {
namespace detail {
void ReportPluginError(const std::string& message);
// When init fails for `instance`, MuJoCo frees the mjData without calling destroy on the
// instances it had already initialised: Nereid's among them are destroyed here.
void DestroyInitialisedInstances(const mjModel* m, mjData* d, int instance);
// Live plugin objects (all Nereid plugins, all mjData), for leak checks.
void CountPluginObject(int delta);
}  // namespace detail

// T provides: kName, kAttributes (array of const char*), copy construction and assignment,
// static std::unique_ptr<T> Create(const mjModel*, mjData*, int instance),
// void Compute(const mjModel*, mjData*, int instance) noexcept, void Reset() noexcept.
template <class T>
T* PluginObject(const mjData* d, int instance) {
  return reinterpret_cast<T*>(d->plugin_data[instance]);
}

// Registers T with the given capabilities (mjPLUGIN_PASSIVE, mjPLUGIN_ACTUATOR or
// mjPLUGIN_SENSOR). An actuator plugin with activation state also provides
// void ActDot(const mjModel*, mjData*) const noexcept; a sensor plugin provides kStage (its
// mjtStage) and kDim (the size of its reading).
template <class T>
void RegisterPlugin(int capabilities) {
  mjpPlugin p;
  mjp_defaultPlugin(&p);
  p.name = T::kName;
  p.capabilityflags = capabilities;
  p.nattribute = static_cast<int>(std::size(T::kAttributes));
  p.attributes = std::data(T::kAttributes);
  p.nstate = +[](const mjModel*, int) { return 0; };
  p.init = +[](const mjModel* m, mjData* d, int instance) {
    try {
      std::unique_ptr<T> object = T::Create(m, d, instance);
      d->plugin_data[instance] = reinterpret_cast<uintptr_t>(object.release());
      detail::CountPluginObject(1);
      return 0;
    } catch (const std::exception& e) {
      detail::ReportPluginError(e.what());
      detail::DestroyInitialisedInstances(m, d, instance);
      return -1;
    }
  };
  p.destroy = +[](mjData* d, int instance) {
    if (T* object = PluginObject<T>(d, instance)) {
      delete object;
      detail::CountPluginObject(-1);
    }
    d->plugin_data[instance] = 0;
  };
  p.copy = +[](mjData* dest, const mjModel*, const mjData* src, int instance) {
    const T* from = PluginObject<T>(src, instance);
    T* to = PluginObject<T>(dest, instance);
    if (from && to && from != to) {
      *to = *from;  // dest was initialised (mj_copyData into a new mjData runs init first)
    } else if (from && !to) {
      dest->plugin_data[instance] = reinterpret_cast<uintptr_t>(new T(*from));
      detail::CountPluginObject(1);
    }
  };
  p.reset = +[](const mjModel*, mjtNum*, void* data, int) {
    if (data) static_cast<T*>(data)->Reset();
  };
  p.compute = +[](const mjModel* m, mjData* d, int instance, int) {
    if (T* object = PluginObject<T>(d, instance)) object->Compute(m, d, instance);
  };
  // a sensor plugin (mjPLUGIN_SENSOR) gives its stage and its reading's size
  if constexpr (requires { T::kStage; T::kDim; }) {
    p.needstage = T::kStage;
    p.nsensordata = +[](const mjModel*, int, int) { return static_cast<int>(T::kDim); };
  }
  if constexpr (requires(const T& t, const mjModel* m, mjData* d) { t.ActDot(m, d); }) {
    p.actuator_act_dot = +[](const mjModel* m, mjData* d, int instance) {
      if (const T* object = PluginObject<T>(d, instance)) object->ActDot(m, d);
    };
  }
  mjp_registerPlugin(&p);
}

template <class T>
void RegisterPassivePlugin() {
  RegisterPlugin<T>(mjPLUGIN_PASSIVE);
}

}  // namespace nereid

#endif  // NEREID_PLUGINS_COMMON_PLUGIN_BASE_H_
