// Copyright Nereid authors.
// The plugin library in stock MuJoCo: loaded with mj_loadPluginLibrary by a program that
// does not link Nereid, stepped with plain mj_step. Force terms act; added mass follows
// stock_fallback (drop by default, or refuse with a message).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>
#include <cstdlib>
#include <string>

#include <doctest/doctest.h>
#include <mujoco/mujoco.h>

namespace {

// loads the plugin library once (the path comes from ctest)
void LoadPlugins() {
  static const bool loaded = [] {
    const char* path = std::getenv("NEREID_PLUGIN_LIBRARY");
    if (path) mj_loadPluginLibrary(path);
    return path != nullptr;
  }();
  REQUIRE_MESSAGE(loaded, "NEREID_PLUGIN_LIBRARY is not set");
}

std::string Model(const std::string& fallback) {
  return "<mujoco><option gravity='0 0 -9.81'/><extension>"
         "<plugin plugin='nereid.hydrodynamics'><instance name='h'>"
         "<config key='body' value='b'/><config key='added_mass' value='2.6 18.5 13.3 0.054 0.0173 0.28'/>"
         "<config key='linear_damping' value='4 6 5 0.1 0.1 0.1'/>"
         "<config key='quadratic_damping' value='0 0 0 0 0 0'/>" + fallback +
         "</instance></plugin>"
         "<plugin plugin='nereid.buoyancy'><instance name='f'><config key='body' value='b'/>"
         "<config key='volume' value='0.005'/><config key='center_of_buoyancy' value='0 0 -0.02'/>"
         "</instance></plugin></extension>"
         "<worldbody><body name='b' pos='0 0 -3'><freejoint/>"
         "<inertial pos='0 0 0' mass='5' diaginertia='0.1 0.1 0.1'/>"
         "<geom type='box' size='0.2 0.1 0.1' contype='0' conaffinity='0'/></body></worldbody></mujoco>";
}

mjModel* Compile(const std::string& xml, std::string* error) {
  char buffer[1024] = "";
  mjSpec* spec = mj_parseXMLString(xml.c_str(), nullptr, buffer, sizeof(buffer));
  if (!spec) { *error = buffer; return nullptr; }
  mjModel* m = mj_compile(spec, nullptr);
  if (!m) *error = mjs_getError(spec);
  mj_deleteSpec(spec);
  return m;
}

TEST_SUITE("stock_mujoco") {

TEST_CASE("plugins load into stock MuJoCo; force terms act, added mass is dropped") {
  LoadPlugins();
  std::string error;
  mjModel* m = Compile(Model(""), &error);
  REQUIRE_MESSAGE(m, error);
  mjData* d = mj_makeData(m);
  // buoyancy 1000 * 0.005 * 9.81 = 49.05 N against a weight of 49.05 N: neutral
  for (int k = 0; k < 10000; ++k) {  // 20 s, 24 time constants m / Y_v
    d->xfrc_applied[6 + 1] = 12;  // sway push
    mj_step(m, d);
  }
  // terminal sway velocity F / Y_v = 12 / 6 = 2 m/s with damping alone
  CHECK(d->qvel[1] == doctest::Approx(2.0).epsilon(1e-9));
  CHECK(std::abs(d->qvel[2]) < 1e-6);
  // with added mass dropped, the initial acceleration is F / m (not F / (m + Y_vdot))
  mj_resetData(m, d);
  d->xfrc_applied[6 + 1] = 12;
  mj_forward(m, d);
  CHECK(d->qacc[1] == doctest::Approx(12.0 / 5).epsilon(1e-12));
  mj_deleteData(d);
  mj_deleteModel(m);
}

TEST_CASE("stock_fallback=refuse: the model does not load, and the message says why") {
  LoadPlugins();
  std::string error;
  mjModel* m = Compile(Model("<config key='stock_fallback' value='refuse'/>"), &error);
  CHECK(m == nullptr);
  CHECK(error.find("plugin->init failed") != std::string::npos);
}

TEST_CASE("every shipped model loads and steps in stock MuJoCo") {
  LoadPlugins();
  // every MJCF file under models/, except a lumped tether's: its segment bodies are made by
  // nereid::ExpandTethers before compiling (plugins/tether/README.md, "In stock MuJoCo";
  // tests/tether checks that stock MuJoCo refuses it with a message saying so)
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(NEREID_SOURCE_MODEL_DIR)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".xml") continue;
    if (entry.path().parent_path().filename() == "bluerov2_heavy_tether") continue;
    paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  CHECK(paths.size() >= 17);
  for (const std::string& path : paths) {
    CAPTURE(path);
    char error[1024] = "";
    mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof(error));
    REQUIRE_MESSAGE(m, error);
    mjData* d = mj_makeData(m);
    if (m->nkey > 0) {
      mj_resetDataKeyframe(m, d, 0);
    } else {
      mj_resetData(m, d);
    }
    for (int k = 0; k < 500; ++k) mj_step(m, d);
    for (int i = 0; i < m->nv; ++i) CHECK(std::isfinite(d->qvel[i]));
    CHECK(d->warning[mjWARN_BADQACC].number == 0);
    mj_deleteData(d);
    mj_deleteModel(m);
  }
}

}  // TEST_SUITE
}  // namespace
