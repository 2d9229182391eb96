// Copyright Nereid authors.
#include <atomic>
#include <cstring>
#include <string>
#include <utility>

#include "nereid/plugins.h"

namespace nereid {
namespace {
thread_local int g_engine_scope_depth = 0;
thread_local std::string g_last_plugin_error;
std::atomic<long> g_plugin_objects{0};
}  // namespace

long LivePluginObjects() { return g_plugin_objects.load(); }

EngineScope::EngineScope() { ++g_engine_scope_depth; }
EngineScope::~EngineScope() { --g_engine_scope_depth; }
bool EngineScope::active() { return g_engine_scope_depth > 0; }

std::string TakeLastPluginError() { return std::exchange(g_last_plugin_error, std::string()); }

namespace detail {
// Records a plugin's configuration error; outside the engine, also prints it the way
// MuJoCo reports warnings (stock MuJoCo then fails to load the model).
void ReportPluginError(const std::string& message) {
  g_last_plugin_error = message;
  if (!EngineScope::active()) mju_warning("%s", message.c_str());
}

void DestroyInitialisedInstances(const mjModel* m, mjData* d, int instance) {
  for (int i = 0; i < instance; ++i) {
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[i]);
    if (plugin && plugin->destroy && plugin->name && std::strncmp(plugin->name, "nereid.", 7) == 0) {
      plugin->destroy(d, i);
    }
  }
}

void CountPluginObject(int delta) { g_plugin_objects += delta; }
}  // namespace detail

}  // namespace nereid
