// Copyright Nereid authors.
// Bad input gets a clear error naming the file, element, key and value, and never aborts.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

#include "nereid/error.h"
#include "nereid/plugins.h"
#include "nereid/runner.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "test_util.h"

namespace nereid {
namespace {

// Loads `xml` (named "vehicle.xml") and returns the error text; fails if it loads.
template <class E>
std::string LoadFailure(const std::string& xml) {
  try {
    Simulation::LoadString(xml, {}, "vehicle.xml");
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("unexpected exception type: " << e.what());
  }
  FAIL("the model loaded");
  return "";
}

std::string HydroError(const std::string& added_mass, const std::string& linear,
                       const std::string& quadratic, const std::string& extra = "") {
  return LoadFailure<ConfigError>(test::SingleBody(test::Hydro(added_mass, linear, quadratic, extra)));
}

const char kZero6[] = "0 0 0 0 0 0";

// Both engines refuse `xml` (loaded as `name`) with an E whose message contains `text`.
template <class E>
void CheckBothEnginesRefuse(const std::string& xml, const std::string& name, const std::string& text) {
  for (Engine engine : {Engine::kNereid, Engine::kMuJoCo}) {
    SimulationOptions options;
    options.engine = engine;
    CHECK_THROWS_WITH_AS(Simulation::LoadString(xml, options, name), doctest::Contains(text.c_str()), E);
  }
}

TEST_SUITE("errors") {

TEST_CASE("hydrodynamics: missing required key") {
  const std::string xml = test::SingleBody(
      "    <plugin plugin='nereid.hydrodynamics'><instance name='rov_hydro'>\n"
      "      <config key='body' value='b'/>\n"
      "      <config key='linear_damping' value='0 0 0 0 0 0'/>\n"
      "      <config key='quadratic_damping' value='0 0 0 0 0 0'/>\n"
      "    </instance></plugin>\n");
  const std::string e = LoadFailure<ConfigError>(xml);
  CHECK(e.find("vehicle.xml: nereid.hydrodynamics instance 'rov_hydro': missing required key "
               "'added_mass'") == 0);
}

TEST_CASE("hydrodynamics: unknown key is refused by MuJoCo's compiler, naming the key") {
  const std::string e = LoadFailure<nereid::LoadError>(test::SingleBody(
      test::Hydro(kZero6, kZero6, kZero6, "      <config key='addedmass' value='1'/>\n")));
  CHECK(e.find("vehicle.xml") == 0);
  CHECK(e.find("addedmass") != std::string::npos);
  CHECK(e.find("nereid.hydrodynamics") != std::string::npos);
}

TEST_CASE("hydrodynamics: negative damping names the coefficient and its value") {
  const std::string e = HydroError(kZero6, "1 -2 0 0 0 0", kZero6);
  CHECK(e.find("key 'linear_damping' = '1 -2 0 0 0 0': coefficient 1 (sway) is negative (-2)") !=
        std::string::npos);
  const std::string q = HydroError(kZero6, kZero6, "0 0 0 0 0 -0.5");
  CHECK(q.find("key 'quadratic_damping'") != std::string::npos);
  CHECK(q.find("(yaw) is negative (-0.5)") != std::string::npos);
  const std::string a = HydroError("1 1 -1 0 0 0", kZero6, kZero6);
  CHECK(a.find("key 'added_mass'") != std::string::npos);
  CHECK(a.find("(heave) is negative (-1)") != std::string::npos);
}

TEST_CASE("hydrodynamics: non-symmetric and non-positive-definite added mass") {
  std::string m36;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) m36 += (i == j ? "1 " : (i == 0 && j == 1 ? "0.5 " : "0 "));
  }
  const std::string e = HydroError(m36, kZero6, kZero6);
  CHECK(e.find("key 'added_mass'") != std::string::npos);
  CHECK(e.find("not symmetric") != std::string::npos);
  // symmetric, positive diagonal, indefinite: [[1, 2], [2, 1]] block
  std::string indefinite;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      indefinite += (i == j ? "1 " : ((i == 0 && j == 1) || (i == 1 && j == 0) ? "2 " : "0 "));
    }
  }
  const std::string p = HydroError(indefinite, kZero6, kZero6);
  CHECK(p.find("not positive semi-definite (smallest eigenvalue -1)") != std::string::npos);
}

TEST_CASE("hydrodynamics: wrong number of values, non-numbers, bad enums, unknown body") {
  CHECK(HydroError("1 2 3 4 5", kZero6, kZero6)
            .find("key 'added_mass' = '1 2 3 4 5': expected 6 numbers (diagonal) or 36 "
                  "(row-major 6x6), got 5") != std::string::npos);
  CHECK(HydroError(kZero6, kZero6, "1 2 3")
            .find("key 'quadratic_damping' = '1 2 3': expected 6 numbers, got 3") != std::string::npos);
  CHECK(HydroError("1 2 x 4 5 6", kZero6, kZero6).find("'x' is not a finite number") != std::string::npos);
  CHECK(HydroError("1 2 nan 4 5 6", kZero6, kZero6).find("'nan' is not a finite number") != std::string::npos);
  CHECK(HydroError(kZero6, kZero6, kZero6, "      <config key='frame' value='ned'/>\n")
            .find("key 'frame' = 'ned': expected 'frd' or 'flu'") != std::string::npos);
  CHECK(HydroError(kZero6, kZero6, kZero6, "      <config key='stock_fallback' value='maybe'/>\n")
            .find("key 'stock_fallback' = 'maybe'") != std::string::npos);
  const std::string body = LoadFailure<ConfigError>(test::SingleBody(
      "    <plugin plugin='nereid.buoyancy'><instance name='float'>\n"
      "      <config key='body' value='hull'/>\n"
      "      <config key='volume' value='0.01'/>\n"
      "      <config key='center_of_buoyancy' value='0 0 0'/>\n"
      "    </instance></plugin>\n"));
  CHECK(body.find("nereid.buoyancy instance 'float': key 'body' = 'hull': no body of that name") !=
        std::string::npos);
}

TEST_CASE("buoyancy and current: missing or out-of-range values") {
  CHECK(LoadFailure<ConfigError>(test::SingleBody(test::Buoyancy(-0.01, "0 0 0")))
            .find("key 'volume' = '-0.010000': must be > 0 (m^3)") != std::string::npos);
  CHECK(LoadFailure<ConfigError>(test::SingleBody(test::Buoyancy(0.01, "0 0")))
            .find("key 'center_of_buoyancy' = '0 0': expected 3 numbers, got 2") != std::string::npos);
  CHECK(LoadFailure<ConfigError>(test::SingleBody(
            test::Buoyancy(0.01, "0 0 0", "      <config key='fluid_density' value='-1000'/>\n")))
            .find("key 'fluid_density' = '-1000': must be > 0") != std::string::npos);
  CHECK(LoadFailure<ConfigError>(test::SingleBody(
            "    <plugin plugin='nereid.current'><instance name='c'>\n"
            "      <config key='time_profile' value='0 0 0 0 5 1 0'/>\n"
            "    </instance></plugin>\n"))
            .find("key 'time_profile' = '0 0 0 0 5 1 0': expected groups of 4 numbers") !=
        std::string::npos);
  std::string second = test::Current("0.1 0 0");
  second.replace(second.find("name='current'"), 14, "name='tide'");
  CHECK(LoadFailure<ConfigError>(test::SingleBody(test::Current() + second))
            .find("at most one is allowed") != std::string::npos);
}

TEST_CASE("a load that fails in a later plugin instance leaves no plugin object behind") {
  const long before = LivePluginObjects();
  // current and buoyancy initialise, then hydrodynamics refuses its damping
  const std::string xml = test::SingleBody(test::Current() + test::Buoyancy(0.01, "0 0 0") +
                                           test::Hydro(kZero6, "1 1 -1 1 1 1"));
  for (int i = 0; i < 3; ++i) CHECK(LoadFailure<ConfigError>(xml).find("linear_damping") != std::string::npos);
  CHECK(LivePluginObjects() == before);
  {
    auto sim = Simulation::LoadString(test::SingleBody(test::Current() + test::Buoyancy(0.01, "0 0 0")));
    CHECK(LivePluginObjects() == before + 2);  // one per instance of the live mjData
  }
  CHECK(LivePluginObjects() == before);
}

TEST_CASE("malformed or missing MJCF") {
  try {
    Simulation::LoadString("<mujoco><worldbody><body></mujoco>", {}, "broken.xml");
    FAIL("loaded");
  } catch (const nereid::LoadError& e) {
    CHECK(std::string(e.what()).find("broken.xml: ") == 0);
  }
  CHECK_THROWS_WITH_AS(Simulation::LoadFile("/nonexistent/model.xml"),
                       doctest::Contains("/nonexistent/model.xml"), nereid::LoadError);
}

TEST_CASE("MuJoCo 3.14's discrete integrator is refused by both engines, naming the model and the attribute") {
  const std::string xml =
      "<mujoco><option integrator='discrete'/><worldbody><body><freejoint/><geom size='0.1'/></body></worldbody>"
      "</mujoco>";
  CheckBothEnginesRefuse<ConfigError>(xml, "discrete.xml",
                                      "discrete.xml: <option integrator=\"discrete\">: MuJoCo's discrete step map is "
                                      "not supported; use integrator euler, rk4, implicit or implicitfast");
}

TEST_CASE("Nereid's RK4 refuses actuator delays and sleeping, naming the model; the others run them") {
  const std::string delayed =
      "<mujoco><option integrator='RK4'/><worldbody><body><joint name='j'/><geom size='0.1'/>"
      "</body></worldbody><actuator><motor joint='j' delay='0.01' nsample='4'/></actuator></mujoco>";
  const std::string sleeping =
      "<mujoco><option integrator='RK4'><flag sleep='enable'/></option><worldbody><body>"
      "<freejoint/><geom size='0.1'/></body></worldbody></mujoco>";
  CHECK_THROWS_WITH_AS(Simulation::LoadString(delayed, {}, "delay.xml"),
                       doctest::Contains("delay.xml: integrator rk4: Nereid's RK4 (added mass in every stage) "
                                         "does not support actuator or sensor delays"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(Simulation::LoadString(sleeping, {}, "sleep.xml"),
                       doctest::Contains("sleep.xml: integrator rk4: Nereid's RK4 (added mass in every stage) "
                                         "does not support sleeping"),
                       ConfigError);
  for (const std::string& xml : {delayed, sleeping}) {
    SimulationOptions euler;
    euler.integrator = Integrator::kEuler;
    CHECK(Simulation::LoadString(xml, euler)->TryStep());
    SimulationOptions stock;
    stock.engine = Engine::kMuJoCo;
    CHECK(Simulation::LoadString(xml, stock)->TryStep());
  }
}

TEST_CASE("springs and dampers both disabled would silently drop the marine forces: refused") {
  const std::string xml =
      "<mujoco><option><flag spring='disable' damper='disable'/></option><extension>"
      "<plugin plugin='nereid.buoyancy'><instance name='b'><config key='body' value='v'/>"
      "<config key='volume' value='0.01'/><config key='center_of_buoyancy' value='0 0 0'/></instance></plugin>"
      "</extension><worldbody>"
      "<body name='v'><freejoint/><geom size='0.1'/></body></worldbody></mujoco>";
  CHECK_THROWS_WITH_AS(Simulation::LoadString(xml, {}, "flags.xml"),
                       doctest::Contains("flags.xml: <option><flag spring=\"disable\" damper=\"disable\">: "
                                         "with both disabled MuJoCo skips its passive stage, and with it "
                                         "every nereid.buoyancy force"),
                       ConfigError);
  // one of them disabled: the passive stage runs, buoyancy acts
  std::string one = xml;
  one.replace(one.find(" damper='disable'"), 17, "");
  auto sim = Simulation::LoadString(one);
  sim->Forward();
  CHECK(sim->data()->qfrc_passive[2] > 0);
}

TEST_CASE("options changed after loading: read at every step, or refused before stepping") {
  const std::string xml =
      "<mujoco><option timestep='0.01'/><worldbody><body><freejoint/><geom size='0.1'/>"
      "</body></worldbody></mujoco>";
  auto sim = Simulation::LoadString(xml, {}, "opt.xml");
  mjModel* m = sim->mutable_model();
  m->opt.integrator = mjINT_RK4;  // read by the next step
  CHECK(sim->integrator() == Integrator::kRK4);
  CHECK(sim->TryStep());
  const double t = sim->data()->time;
  m->opt.timestep = 0;
  CHECK_THROWS_WITH_AS(sim->TryStep(), doctest::Contains("opt.xml: mjModel.opt.timestep = 0 (changed after "
                                                           "loading): the time step must be a positive"),
                       ConfigError);
  CHECK_THROWS_AS(sim->Forward(), ConfigError);
  CHECK(sim->data()->time == t);  // nothing stepped
  m->opt.timestep = 0.01;
  m->opt.integrator = 9;
  CHECK_THROWS_WITH_AS(sim->Step(), doctest::Contains("mjModel.opt.integrator = 9 (changed after loading): not "
                                                        "an mjtIntegrator"),
                       ConfigError);
  m->opt.integrator = mjINT_EULER;
  CHECK(sim->TryStep());
  CHECK(sim->data()->time == doctest::Approx(t + 0.01));
}

TEST_CASE("a diverging state is reported, names the joint, and does not abort") {
  auto sim = Simulation::LoadString(test::SingleBody(test::Hydro(kZero6, "1 1 1 1 1 1", kZero6)),
                                    {}, "vehicle.xml");
  sim->data()->qvel[4] = std::nan("");
  std::string error;
  CHECK_FALSE(sim->TryStep(&error));
  CHECK(error.find("vehicle.xml: state diverged") == 0);
  CHECK(error.find("qvel[4] (joint 'b_free')") != std::string::npos);
  // MuJoCo reset the data: stepping continues from a finite state
  CHECK(std::isfinite(sim->data()->qvel[4]));
  sim->data()->qpos[0] = INFINITY;
  CHECK_THROWS_WITH_AS(sim->Step(), doctest::Contains("qpos[0] (joint 'b_free')"), DivergenceError);
  // a runaway acceleration (> 1e10) is caught too
  sim->data()->xfrc_applied[6 + 2] = 1e13;
  CHECK_THROWS_WITH_AS(sim->Step(), doctest::Contains("qacc"), DivergenceError);
}

TEST_CASE("a step that ends beyond the limit is not kept as a finite state") {
  // every input of the step is within MuJoCo's 1e10 (qvel 9e9, qacc about 5e9), but the
  // velocity after it (9e9 + 5e9 x 0.5 s) is not: MuJoCo itself would only see it when
  // the next step starts
  auto sim = Simulation::LoadString(test::SingleBody(test::Hydro(kZero6), 7.31, "0.1 0.16 0.16", false, "Euler", 0.5),
                                    {}, "vehicle.xml");
  const mjModel* m = sim->model();
  sim->data()->qvel[2] = 9e9;
  sim->data()->xfrc_applied[6 + 2] = 5e9 * m->body_mass[1];
  std::string error;
  CHECK_FALSE(sim->TryStep(&error));
  CHECK(error.find("qvel[2] (joint 'b_free')") != std::string::npos);
  for (int i = 0; i < m->nv; ++i) CHECK(std::abs(sim->data()->qvel[i]) <= mjMAXVAL);
}

// a box that lands on a plane at t = 0.41 s: MuJoCo's 8 KiB stack arena then overflows
constexpr const char* kSmallArena =
    "<mujoco><size memory=\"8K\"/><worldbody><geom type=\"plane\" size=\"1 1 .1\"/>"
    "<body name=\"box\" pos=\"0 0 1\"><freejoint/><geom type=\"box\" size=\".1 .1 .1\"/>"
    "</body></worldbody></mujoco>";

TEST_CASE("a MuJoCo fatal error (mju_error) in a step becomes MuJoCoError, and the data is usable") {
  for (Engine engine : {Engine::kNereid, Engine::kMuJoCo}) {
    CAPTURE(ToString(engine));
    SimulationOptions options;
    options.engine = engine;
    auto sim = Simulation::LoadString(kSmallArena, options, "small_arena.xml");
    std::string message;
    int steps = 0;
    try {
      for (; steps < 1000; ++steps) sim->Step();
    } catch (const MuJoCoError& e) {
      message = e.what();
    }
    CHECK(message.find("small_arena.xml: MuJoCo error in the step at t = 0.4") == 0);
    CHECK(message.find("mj_stackAlloc") != std::string::npos);
    CHECK(message.find("<size memory>") != std::string::npos);
    CHECK(steps == 205);  // the step from t = 0.41 s (dt 2 ms)
    // MuJoCo's stack marks were left half-way: the data was reset and steps again
    CHECK(sim->data()->time == 0);
    for (int k = 0; k < 10; ++k) sim->Step();
    CHECK(sim->data()->time == doctest::Approx(0.02));
  }
}

TEST_CASE("a MuJoCo fatal error in a forward pass or at load names the model") {
  // an arena the compiler's own pass fits in, but not Nereid's first forward pass: refused
  // at load; and one MuJoCo's compiler refuses itself (LoadError)
  auto sim = Simulation::LoadString(kSmallArena, {}, "small_arena.xml");
  mjData* d = sim->data();
  d->qpos[2] = 0.05;  // the box through the plane: contacts at once
  CHECK_THROWS_WITH_AS(sim->Forward(), doctest::Contains("small_arena.xml: MuJoCo error in forward dynamics at t = 0 s: mj_stackAlloc"),
                       MuJoCoError);
  CHECK(d->qpos[2] == 1);  // reset
  std::string xml = kSmallArena;
  xml.replace(xml.find("8K"), 2, "512");
  CHECK_THROWS_WITH_AS(Simulation::LoadString(xml, {}, "small_arena.xml"), doctest::Contains("small_arena.xml"),
                       Error);
}

TEST_CASE("MuJoCo's warnings go to the simulation, not to stdout or MUJOCO_LOG.TXT") {
  const std::filesystem::path log = std::filesystem::current_path() / "MUJOCO_LOG.TXT";
  std::filesystem::remove(log);
  auto sim = Simulation::LoadString(test::SingleBody(test::Hydro(kZero6, "1 1 1 1 1 1", kZero6)),
                                    {}, "vehicle.xml");
  sim->data()->qvel[4] = std::nan("");
  CHECK_FALSE(sim->TryStep());
  REQUIRE(sim->mujoco_warnings().count() == 1);
  CHECK(sim->mujoco_warnings().messages().front().find("QVEL") != std::string::npos);
  CHECK(sim->mujoco_warnings().first_bad_state() == sim->mujoco_warnings().messages().front());
  CHECK_FALSE(std::filesystem::exists(log));
}

TEST_CASE("MuJoCo's warnings: one collection added to another keeps the whole count and the first bad state") {
  MuJoCoWarnings load, own;
  for (int i = 0; i < 15; ++i) load.Add("Too many contacts.");
  for (int i = 0; i < 30; ++i) own.Add("Inertia matrix is too close to singular at DOF 0. Check model.");
  CHECK(own.first_bad_state().empty());
  own.Add("Nan, Inf or huge value in QACC at DOF 3. The simulation is unstable. Time = 0.2300.");
  own.Add("Nan, Inf or huge value in QPOS at DOF 0. The simulation is unstable. Time = 0.2400.");
  CHECK(own.messages().size() == MuJoCoWarnings::kKept);  // the bad states are past the kept ones
  CHECK(own.first_bad_state() == "Nan, Inf or huge value in QACC at DOF 3. The simulation is unstable. Time = 0.2300.");
  CHECK(own.count() == 32);
  load.Add(own);
  CHECK(load.count() == 47);
  CHECK(load.messages().size() == MuJoCoWarnings::kKept);
  CHECK(load.messages().back() == "Inertia matrix is too close to singular at DOF 0. Check model.");
  CHECK(load.first_bad_state() == own.first_bad_state());
  load.Clear();
  CHECK(load.first_bad_state().empty());
}

TEST_CASE("scenario: malformed JSON and bad values name the file, the JSON path and the value") {
  auto parse = [](const std::string& text) -> std::string {
    try {
      Scenario::FromString(text, "case.json", "");
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(parse("{\"model\": \"m.xml\",").find("case.json: malformed JSON") == 0);
  CHECK(parse("{}") == "case.json: /model: missing required key (path of an MJCF file)");
  CHECK(parse(R"({"model": "m.xml", "duration": "long"})") ==
        "case.json: /duration: expected a number (got \"long\")");
  CHECK(parse(R"({"model": "m.xml", "duration": -3})") == "case.json: /duration: must be > 0 (got -3)");
  CHECK(parse(R"({"model": "m.xml", "integrator": "verlet"})") ==
        "case.json: /integrator: expected \"euler\", \"rk4\" or \"implicitfast\" (got \"verlet\")");
  CHECK(parse(R"({"model": "m.xml", "duratoin": 3})").find("case.json: /duratoin: unknown key") == 0);
  CHECK(parse(R"({"model": "m.xml", "wrenches": [{"body": "b", "force": [1, 2]}]})") ==
        "case.json: /wrenches/0/force: expected an array of 3 numbers (got [1,2])");
  CHECK(parse(R"({"model": "m.xml", "current": {"time_profile": [[0, 0, 0, 0], [0, 1, 0, 0]]}})") ==
        "case.json: /current/time_profile/1/0: knots must be strictly increasing (got 0)");
  CHECK(parse(R"({"model": "m.xml", "controls": [{"actuator": "t1"}]})") ==
        "case.json: /controls/0/value: missing required key");
  // the scene (drawn by nereid-view only)
  CHECK(parse(R"({"model": "m.xml", "scene": {"wall": {}}})") == "case.json: /scene/wall/face_x: missing required key");
  CHECK(parse(R"({"model": "m.xml", "scene": {"wall": {"face_x": 1, "y": [3, 2]}}})") ==
        "case.json: /scene/wall/y: expected [y_min, y_max] with y_min < y_max (got [3,2])");
  CHECK(parse(R"({"model": "m.xml", "scene": {"wall": {"face_x": 1, "top": 0, "bottom": 1}}})") ==
        "case.json: /scene/wall/bottom: must be below the wall's top (got 1)");
  CHECK(parse(R"({"model": "m.xml", "scene": {"wall": {"face_x": 1e9}}})") ==
        "case.json: /scene/wall/face_x: must be within +-1e5 m (got 1000000000.0)");
  CHECK(parse(R"({"model": "m.xml", "scene": {"seabed_depth": -2}})") ==
        "case.json: /scene/seabed_depth: must be > 0 (got -2)");
  CHECK(parse(R"({"model": "m.xml", "scene": {"floor": 2}})").find("case.json: /scene/floor: unknown key") == 0);
}

TEST_CASE("scenario: a bad pillar path names the key and the value") {
  auto parse = [](const std::string& pillar, const std::string& extra = "") -> std::string {
    try {
      Scenario::FromString(R"({"model": "m.xml", "controller": {"type": "cascaded_pid", "body": "b", )" + extra +
                               R"("path": {"pillar": )" + pillar + "}}}",
                           "case.json", "");
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  const std::string base = R"("center": [1, 2], "z_start": -1, "z_end": -3)";
  const std::string p = "case.json: /controller/path/pillar";
  CHECK(parse("{" + base + R"(, "radius": 0.5, "standoff": 1})") == "");
  CHECK(parse("{" + base + R"(, "radius": -0.5, "standoff": 1})") == p + "/radius: must be > 0 (got -0.5)");
  CHECK(parse("{" + base + R"(, "radius": 0.5, "standoff": 0})") == p + "/standoff: must be > 0 (got 0)");
  CHECK(parse("{" + base + R"(, "radius": 0.5, "standoff": 1, "turns": 0})") ==
        p + "/turns: must be > 0 and <= 1000 (got 0)");
  CHECK(parse("{" + base + R"(, "radius": 0.5, "standoff": 1, "turns": -2})") ==
        p + "/turns: must be > 0 and <= 1000 (got -2)");
  CHECK(parse("{" + base + R"(, "radius": 0.5, "standoff": 1, "turns": 2, "pitch": 1})").find(
            p + ": give turns or pitch, not both") == 0);
  CHECK(parse(R"({"center": [1, 2], "z_start": -2, "z_end": -2, "radius": 0.5, "standoff": 1, "pitch": 1})") ==
        p + "/pitch: needs z_start != z_end (a level circle: give turns) (got 1)");
  CHECK(parse("{" + base + R"(, "radius": 0.5, "standoff": 1, "pitch": 1e-6})") ==
        p + "/pitch: gives 2000000.000000 turns; at most 1000 (got 1e-06)");
  CHECK(parse("{" + base + R"(, "radius": 0.5, "standoff": 1, "direction": "up"})") ==
        p + "/direction: expected \"ccw\" or \"cw\" (got \"up\")");
  CHECK(parse("{" + base + R"(, "radius": 0.5, "standoff": 1, "start_angle": 400})") ==
        p + "/start_angle: must be in -360..360 degrees (got 400)");
  CHECK(parse(R"({"center": [1e9, 0], "z_start": -1, "z_end": -3, "radius": 0.5, "standoff": 1})")
            .find(p + "/center: must be within +-1e5 m") == 0);
  CHECK(parse(R"({"center": [1, 2], "z_start": -1, "radius": 0.5, "standoff": 1})") ==
        p + "/z_end: missing required key");
  // 1000 turns of r = 1e5 m at 1 mm: too many points, refused before any is made
  CHECK(parse("{" + base + R"(, "radius": 1e5, "standoff": 1, "turns": 1000, "point_spacing": 0.001})")
            .find(p + ": the path would have ") == 0);
  CHECK(parse("{" + base + R"(, "radius": 0.5, "standoff": 1})", R"("orientation": [1, 0, 0, 0], )") ==
        "case.json: /controller/orientation: the pillar path faces the pillar: its attitude turns along it, give no "
        "orientation (got [1,0,0,0])");
}

TEST_CASE("scenario: names that do not exist in the model") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nereid_errors_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "m.xml") << test::SingleBody(test::Current());
  }
  Scenario s = Scenario::FromString(
      R"({"model": "m.xml", "wrenches": [{"body": "hull", "force": [1, 0, 0]}]})", "case.json",
      dir.string());
  auto sim = Simulation::LoadFile(s.model);
  CHECK_THROWS_WITH_AS(s.Apply(*sim), doctest::Contains("case.json: /wrenches/0/body: no body named 'hull'"),
                       ConfigError);
  Scenario j = Scenario::FromString(
      R"({"model": "m.xml", "initial_state": {"joints": {"elbow": {"q": 1}}}})", "case.json",
      dir.string());
  CHECK_THROWS_WITH_AS(j.Apply(*sim), doctest::Contains("/initial_state/joints/elbow: no joint named 'elbow'"),
                       ConfigError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("scenario: a control on an actuator with 0 or several controls is refused") {
  // MuJoCo 3.14: a <pid input="pos vel"> takes 2 controls, a <dcmotor input="none"> none;
  // one scenario value cannot set either (the next actuator's control would be written)
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nereid_errors_test_ctrlnum";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "m.xml") << R"(<mujoco><worldbody><body><joint name="j" type="hinge"/>
      <geom size="0.1"/></body></worldbody><actuator><pid name="servo" joint="j" kp="1" input="pos vel"/>
      <motor name="torque" joint="j"/>
      <dcmotor name="idle" joint="j" input="none" motorconst="0.01" resistance="1"/></actuator></mujoco>)";
  }
  auto sim = Simulation::LoadFile((dir / "m.xml").string());
  for (const auto& [name, count] : {std::pair{"servo", 2}, std::pair{"idle", 0}}) {
    Scenario s = Scenario::FromString(std::string(R"({"model": "m.xml", "controls": [{"actuator": ")") + name +
                                          R"(", "value": 1}]})",
                                      "case.json", dir.string());
    CHECK_THROWS_WITH_AS(s.Apply(*sim),
                         doctest::Contains((std::string("case.json: /controls/0/actuator: actuator '") + name + "' takes " +
                                            std::to_string(count) +
                                            " controls; a scenario control sets an actuator with exactly one")
                                               .c_str()),
                         ConfigError);
  }
  // the motor after the servo: actuator 1, whose control is ctrl[2]
  Scenario ok = Scenario::FromString(R"({"model": "m.xml", "controls": [{"actuator": "torque", "value": 0.5}]})",
                                     "case.json", dir.string());
  ok.Apply(*sim);
  ok.ApplyInputs(*sim, 0.0);
  CHECK(sim->data()->ctrl[0] == 0);
  CHECK(sim->data()->ctrl[1] == 0);
  CHECK(sim->data()->ctrl[2] == 0.5);
  std::filesystem::remove_all(dir);
}

// MuJoCo's actuator length-range computation runs after the compile (src/length_range.h)
constexpr char kMuscleArm[] = R"(<mujoco>
  COMPILER EXTENSION
  <worldbody>
    <site name="anchor" pos="0 0.1 0"/>
    <body name="upper">
      <joint name="shoulder" type="hinge" axis="0 0 1" range="-90 90"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <site name="mid" pos="0.15 0.03 0"/>
      <body name="fore" pos="0.3 0 0">
        <joint name="elbow" type="hinge" axis="0 0 1" range="-10 120"/>
        <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.025"/>
        <site name="tip" pos="0.1 0.02 0"/>
      </body>
    </body>
  </worldbody>
  <tendon><spatial name="biceps"><site site="anchor"/><site site="mid"/><site site="tip"/></spatial></tendon>
  <actuator>
    <muscle name="m_shoulder" joint="shoulder"/>
    <muscle name="m_elbow" joint="elbow"/>
    <muscle name="m_biceps" tendon="biceps"/>
    <motor name="motor" joint="elbow"/>
  </actuator>
</mujoco>)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}

// kMuscleArm with `compiler` (and `extension`) in place of its placeholders
std::string MuscleArm(const std::string& compiler = "", const std::string& extension = "") {
  return Replace(Replace(kMuscleArm, "COMPILER", compiler), "EXTENSION", extension);
}

TEST_CASE("actuator length ranges: Nereid's load computes MuJoCo's own, bit for bit") {
  const std::string hydro =
      "<extension><plugin plugin='nereid.hydrodynamics'><instance name='h'><config key='body' value='upper'/>"
      "<config key='added_mass' value='1 2 3 0.1 0.2 0.3'/><config key='linear_damping' value='1 1 1 1 1 1'/>"
      "<config key='quadratic_damping' value='0 0 0 0 0 0'/></instance></plugin></extension>";
  struct Case {
    const char* compiler;
    std::string extension;
  };
  const Case cases[] = {
      {"", ""},
      {"<compiler><lengthrange mode='all' inttotal='5'/></compiler>", ""},
      {"<compiler usethread='false'><lengthrange mode='muscleuser' useexisting='false' timestep='0.005' "
       "tolrange='0.1'/></compiler>",
       ""},
      {"", hydro},  // a passive plugin (MuJoCo's computation switches passive forces off)
      // PGS's tolerance scales with meaninertia, which MuJoCo's compiler sets from the
      // user's <statistic> only after the computation
      {"<option solver='PGS'/><statistic meaninertia='100' extent='3' center='0 0 1'/>", ""},
  };
  for (const Case& c : cases) {
    const std::string xml = MuscleArm(c.compiler, c.extension);
    CAPTURE(xml);
    char error[512] = "";
    mjSpec* spec = mj_parseXMLString(xml.c_str(), nullptr, error, sizeof(error));
    REQUIRE(spec);
    mjModel* plain = mj_compile(spec, nullptr);  // MuJoCo's compiler computes them itself
    mj_deleteSpec(spec);
    REQUIRE(plain);
    for (Engine engine : {Engine::kNereid, Engine::kMuJoCo}) {
      SimulationOptions options;
      options.engine = engine;
      auto sim = Simulation::LoadString(xml, options, "arm.xml");
      const mjModel* m = sim->model();
      REQUIRE(m->nactuator == plain->nactuator);
      for (int k = 0; k < 2 * m->nactuator; ++k) CHECK(m->actuator_lengthrange[k] == plain->actuator_lengthrange[k]);
      CHECK(m->opt.disableflags == plain->opt.disableflags);  // put back after the computation
      CHECK(m->opt.timestep == plain->opt.timestep);
      CHECK(m->stat.meaninertia == plain->stat.meaninertia);
      CHECK(m->stat.extent == plain->stat.extent);
      for (int k = 0; k < 3; ++k) CHECK(m->stat.center[k] == plain->stat.center[k]);
    }
    CHECK(plain->actuator_lengthrange[1] - plain->actuator_lengthrange[0] > 3);  // the shoulder's ±90°, computed
    mj_deleteModel(plain);
  }
}

TEST_CASE("a muscle whose length-range simulation diverges is refused, naming the model and the actuator") {
  // MuJoCo 3.14's own compiler never returns on this model: its length-range simulation
  // diverges, the step resets the data and the time never reaches lengthrange inttotal
  const std::string xml =
      "<mujoco><option integrator='implicitfast'/><worldbody>"
      "<body name='b0' pos='0 0 1' euler='60 30 0'><joint name='j0' type='hinge'/>"
      "<geom type='capsule' fromto='-0.15 0 0 0.15 0 0' size='0.05'/></body>"
      "<body name='b1' pos='1 0 1' euler='79 0 0'><joint type='ball'/>"
      "<geom type='capsule' fromto='-0.15 0 0 0.15 0 0' size='0.05'/></body></worldbody>"
      "<actuator><muscle name='pull' joint='j0'/></actuator><equality><weld body1='b0' body2='b1'/></equality>"
      "</mujoco>";
  CheckBothEnginesRefuse<LoadError>(xml, "diverging.xml",
                                    "diverging.xml: actuator 'pull': MuJoCo's length-range simulation became unstable "
                                    "(Nan, Inf or huge value in QACC at DOF 1. The simulation is unstable. Time = "
                                    "0.8000.)");
  // given its range, the same model loads
  auto sim = Simulation::LoadString(Replace(xml, "name='pull'", "name='pull' lengthrange='-1 1'"), {}, "given.xml");
  CHECK(sim->model()->actuator_lengthrange[1] == 1.0);
  // unstable in the first direction only (a tendon limit with a huge negative stiffness):
  // each direction starts from mj_resetData, so its warning is looked for in both
  const std::string one_side =
      "<mujoco><worldbody><body><joint name='j0' axis='0 0 1' range='-100 1'/>"
      "<geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/></body></worldbody>"
      "<tendon><fixed limited='true' range='-0.5 1000' solreflimit='-1e12 0'><joint joint='j0' coef='1'/></fixed>"
      "</tendon><actuator><muscle name='pull' joint='j0'/></actuator></mujoco>";
  CHECK_THROWS_WITH_AS(Simulation::LoadString(one_side, {}, "one_side.xml"),
                       doctest::Contains("one_side.xml: actuator 'pull': MuJoCo's length-range simulation became "
                                         "unstable (Nan, Inf or huge value in QACC at DOF 0. The simulation is "
                                         "unstable. Time = 0.2300.)"),
                       LoadError);
  // MuJoCo's own refusal comes through with the actuator named
  CHECK_THROWS_WITH_AS(Simulation::LoadString(Replace(MuscleArm(), "range=\"-10 120\"", "limited=\"false\""), {},
                                              "free_elbow.xml"),
                       doctest::Contains("free_elbow.xml: actuator 'm_elbow': Lengthrange computation did not converge"),
                       LoadError);
}

TEST_CASE("a length-range simulation longer than 1e5 steps is refused, stating the limit") {
  auto arm = [](const std::string& lengthrange) { return MuscleArm("<compiler><lengthrange " + lengthrange + "/></compiler>"); };
  // 1e9 s in steps of 0.01 s would simulate each muscle 1e11 steps each way
  for (const char* inttotal : {"1e9", "inf", "nan"}) {
    const std::string xml = arm(std::string("inttotal='") + inttotal + "'");
    CHECK_THROWS_WITH_AS(Simulation::LoadString(xml, {}, "long.xml"),
                         doctest::Contains("long.xml: <compiler><lengthrange inttotal=\""),
                         ConfigError);
    CHECK_THROWS_WITH_AS(Simulation::LoadString(xml, {}, "long.xml"), doctest::Contains("; at most 100000"),
                         ConfigError);
  }
  // 1e5 steps (1000 s at 0.01 s) are allowed; with mode none nothing is simulated
  CHECK(Simulation::LoadString(arm("inttotal='1000'"), {}, "longest.xml")->model()->actuator_lengthrange[1] > 1.5);
  CHECK(Simulation::LoadString(arm("mode='none' inttotal='1e9'"), {}, "none.xml")->model()->actuator_lengthrange[1] ==
        0);
  // uselimit: a muscle on a limited joint takes the joint's range, nothing to simulate
  const std::string limited =
      "<mujoco><compiler><lengthrange uselimit='true' inttotal='1e9'/></compiler><worldbody><body>"
      "<joint name='j' axis='0 0 1' range='-30 40'/><geom size='0.1'/></body></worldbody>"
      "<actuator><muscle joint='j'/></actuator></mujoco>";
  CHECK(Simulation::LoadString(limited, {}, "limited.xml")->model()->actuator_lengthrange[1] ==
        doctest::Approx(40 * M_PI / 180).epsilon(1e-12));
  // every range given (useexisting, the default): nothing to simulate, as in MuJoCo
  std::string given = arm("inttotal='1e9'");
  for (const char* muscle : {"m_shoulder\"", "m_elbow\"", "m_biceps\""}) {
    given = Replace(given, muscle, std::string(muscle) + " lengthrange=\"-1 2\"");
  }
  CHECK(Simulation::LoadString(given, {}, "given.xml")->model()->actuator_lengthrange[5] == 2);
}

TEST_CASE("malformed JSON: the message quotes a cut excerpt of the token, not all of it") {
  // an unterminated 20000-character string: nlohmann's message quotes the whole token
  const std::string text = R"({"model": "m.xml", "description": ")" + std::string(20000, 'a');
  try {
    Scenario::FromString(text, "big.json", ".");
    FAIL("no error");
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    CHECK(message.rfind("big.json: malformed JSON: ", 0) == 0);
    CHECK(message.find("missing closing quote") != std::string::npos);
    CHECK(message.size() <= 430);
  }
}

TEST_CASE("a cross-check scenario runs as a scenario: body-frame wrenches, reporting keys ignored") {
  const std::string dir = std::string(NEREID_SOURCE_MODEL_DIR) + "/multi";
  const std::string wrench = R"("wrenches": [{"body": "A", "force": [1, 0, 0]}])";
  Scenario cc = Scenario::FromString(R"({"model": "case_b_xu5.xml", "record_every": 10, "peak": {"body": "A"}, )" +
                                         wrench + "}", "cc.json", dir);
  REQUIRE(cc.wrenches.size() == 1);
  CHECK(cc.wrenches[0].body_frame);  // nereid crosscheck's convention
  Scenario run = Scenario::FromString(R"({"model": "case_b_xu5.xml", )" + wrench + "}", "run.json", dir);
  CHECK_FALSE(run.wrenches[0].body_frame);  // nereid run's default: world
  // a cross-check file's wrenches act at the centre of mass unless they say otherwise
  CHECK(cc.wrenches[0].at_com);
  CHECK_FALSE(run.wrenches[0].at_com);
  REQUIRE(cc.crosscheck.has_value());
  CHECK(cc.crosscheck->record_every == 10);
  CHECK(cc.crosscheck->peak_body == "A");
  CHECK(cc.crosscheck->methods.size() == 3);
  CHECK_FALSE(run.crosscheck.has_value());

  // its solver settings are parsed for nereid crosscheck, and refused by nereid run
  const Scenario solver = Scenario::FromString(
      R"({"model": "case_b_xu5.xml", "weld": {"solref": [0.01, 1]}, "uk": {"project": false}, "methods": ["weld"]})",
      "cc.json", dir);
  REQUIRE(solver.crosscheck.has_value());
  CHECK(solver.crosscheck->solref[0] == 0.01);
  CHECK_FALSE(solver.crosscheck->uk.project);
  CHECK(solver.crosscheck->methods == std::vector{Scenario::Crosscheck::Method::kWeld});
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "nereid_cc_solver.json";
  std::ofstream(file) << R"({"model": ")" << dir << R"(/case_b_xu5.xml", "weld": {"solref": [0.01, 1]}})";
  CHECK_THROWS_WITH_AS(ResolveInput(file.string(), std::nullopt, std::nullopt, std::nullopt, std::nullopt),
                       doctest::Contains("nereid_cc_solver.json: /weld: a solver setting of nereid crosscheck"),
                       ConfigError);
  std::filesystem::remove(file);

  // and its own keys are checked like the rest of the format
  auto parse = [&](const std::string& extra) {
    return Scenario::FromString(R"({"model": "case_b_xu5.xml", )" + extra + "}", "cc.json", dir);
  };
  CHECK_THROWS_WITH_AS(parse(R"("weld": {"solref": [0.01, "x"]})"), doctest::Contains("cc.json: /weld/solref/1: expected a number"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"("methods": ["uk", "rigid"])"), doctest::Contains("cc.json: /methods/1: expected"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"("record_every": 0)"), doctest::Contains("cc.json: /record_every: expected an integer in 1..1000000000"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"("uk": {"dense": 1})"), doctest::Contains("cc.json: /uk/dense: expected true or false"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"("peak": {"body": "A", "axis": "w"})"), doctest::Contains("cc.json: /peak/axis"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"("wrenches": [{"body": "A", "at": "tip"}])"), doctest::Contains("cc.json: /wrenches/0/at"),
                       ConfigError);
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
