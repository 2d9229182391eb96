// Copyright Nereid authors.
// Scenarios (docs/scenarios.md): the file read and its top level (model, stepping, initial
// state, controls, navigation, wrenches, nereid crosscheck's keys), with the water and scene
// (scenario_world.cc) and the controllers (scenario_control.cc) read by their own files;
// then applied to a simulation: Apply, ApplyInputs and the controllers made.
#include "nereid/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/plugins.h"
#include "scenario_read.h"
#include "vms/vms_config.h"

namespace nereid {
namespace {

using scenario_read::json;
using scenario_read::Reader;
using scenario_read::CheckWaterDepth;
using scenario_read::Position;
using scenario_read::ReadController;
using scenario_read::ReadCurrent;
using scenario_read::ReadInt;
using scenario_read::ReadScene;
using scenario_read::ReadStabilize;
using scenario_read::ReadWaves;

// nereid crosscheck's keys of a scenario (docs/crosscheck.md)
Scenario::Crosscheck ReadCrosscheck(const Reader& r, const json& root) {
  using Method = Scenario::Crosscheck::Method;
  Scenario::Crosscheck c;
  if (root.contains("weld")) {
    const json& w = root["weld"];
    r.Keys(w, "/weld", detail::kWeldKeys);
    c.solver_key = "/weld";
    if (w.contains("solref")) {
      const std::vector<double> x = r.Numbers(w["solref"], "/weld/solref", 2);
      std::copy(x.begin(), x.end(), c.solref.begin());
    }
    if (w.contains("solimp")) {
      const std::vector<double> x = r.Numbers(w["solimp"], "/weld/solimp", 5);
      std::copy(x.begin(), x.end(), c.solimp.begin());
    }
  }
  if (root.contains("uk")) {
    const json& u = root["uk"];
    r.Keys(u, "/uk", detail::kUkKeys);
    if (c.solver_key.empty()) c.solver_key = "/uk";
    c.uk.baumgarte_omega = r.Number(u, "/uk", "baumgarte_omega", c.uk.baumgarte_omega);
    c.uk.baumgarte_zeta = r.Number(u, "/uk", "baumgarte_zeta", c.uk.baumgarte_zeta);
    if (u.contains("project")) c.uk.project = r.Bool(u["project"], "/uk/project");
    if (u.contains("dense")) c.uk.dense = r.Bool(u["dense"], "/uk/dense");
  }
  if (root.contains("peak")) {
    const json& pk = root["peak"];
    r.Keys(pk, "/peak", detail::kPeakKeys);
    if (pk.contains("body")) c.peak_body = r.String(pk["body"], "/peak/body");
    const std::string axis = pk.contains("axis") ? r.Choice(pk["axis"], "/peak/axis", detail::kPeakKeys.At("axis")) : "x";
    c.peak_axis = axis[0] - 'x';
  }
  if (root.contains("reference")) c.reference = root["reference"].dump();
  if (root.contains("record_every")) c.record_every = ReadInt(r, root["record_every"], "/record_every", 1, 1000000000);
  if (root.contains("methods")) {
    const json& list = root["methods"];
    if (!list.is_array() || list.empty()) {
      r.Fail("/methods", "expected a non-empty array of " + NameChoices(Scenario::Crosscheck::kMethodNames), &list);
    }
    c.methods.clear();
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = "/methods/" + std::to_string(i);
      Method method = Method::kUK;
      if (!ParseName(Scenario::Crosscheck::kMethodNames, r.String(list[i], p), &method)) {
        r.Fail(p, "expected " + NameChoices(Scenario::Crosscheck::kMethodNames), &list[i]);
      }
      if (std::find(c.methods.begin(), c.methods.end(), method) != c.methods.end()) r.Fail(p, "given twice", &list[i]);
      c.methods.push_back(method);
    }
  }
  return c;
}

Scenario::MpcFactory& MpcFactorySlot() {
  static Scenario::MpcFactory factory = nullptr;
  return factory;
}

// The model's path: at most 1024 characters, no NUL, relative to the scenario's folder.
std::string ReadModelPath(const Reader& r, const json& root, const std::string& base_dir) {
  const std::string model_text = r.String(root["model"], "/model");
  if (model_text.size() > 1024) {
    r.Fail("/model", "a path of " + std::to_string(model_text.size()) + " characters; at most 1024");
  }
  if (const size_t nul = model_text.find('\0'); nul != std::string::npos) {
    r.Fail("/model", NulInPathRule(nul), &root["model"]);
  }
  std::filesystem::path model = model_text;
  if (model.is_relative() && !base_dir.empty()) model = std::filesystem::path(base_dir) / model;
  return model.lexically_normal().string();
}

// Top-level key `key`, when given: one of an enum's names (`parse` reads them), "expected
// a, b or c" otherwise.
template <class T, class Names>
void ReadNamed(const Reader& r, const json& root, const char* key, bool (*parse)(std::string_view, T*),
               const Names& names, std::optional<T>* out) {
  if (!root.contains(key)) return;
  const std::string path = std::string("/") + key;
  T value;
  if (!parse(r.String(root[key], path), &value)) r.Fail(path, "expected " + NameChoices(names), &root[key]);
  *out = value;
}

// How the run steps: duration, dt, integrator, engine, constraints, keyframe.
void ReadStepping(const Reader& r, const json& root, Scenario* s) {
  if (root.contains("duration")) s->duration = r.Positive(root["duration"], "/duration");
  if (root.contains("dt")) s->dt = r.Positive(root["dt"], "/dt");
  ReadNamed(r, root, "integrator", &ParseIntegrator, kIntegratorNames, &s->integrator);
  ReadNamed(r, root, "engine", &ParseEngine, kEngineNames, &s->engine);
  ReadNamed(r, root, "constraints", &ParseConstraintMethod, kConstraintMethodNames, &s->constraints);
  if (root.contains("keyframe")) {
    // bounded before the conversion (4294967296 wrapped to 0); the model's count is checked in Apply
    s->keyframe = ReadInt(r, root["keyframe"], "/keyframe", 0, std::numeric_limits<int>::max());
  }
}

// initial_state: the free bodies' poses and velocities, the joints' q and qd.
void ReadInitialState(const Reader& r, const json& init, Scenario* s) {
  r.Keys(init, "/initial_state", detail::kInitialStateKeys);
  if (init.contains("bodies")) {
    const json& bodies = init["bodies"];
    if (!bodies.is_object()) r.Fail("/initial_state/bodies", "expected an object keyed by body name", &bodies);
    for (auto it = bodies.begin(); it != bodies.end(); ++it) {
      const std::string p = "/initial_state/bodies/" + it.key();
      r.Keys(*it, p, detail::kBodyStateKeys);
      Scenario::BodyState b{it.key(), p, {}, {}, {}, {}};
      if (it->contains("position")) b.position = Position(r, (*it)["position"], p + "/position");
      if (it->contains("quaternion")) {
        std::vector<double> q = r.Numbers((*it)["quaternion"], p + "/quaternion", 4);
        Eigen::Vector4d v(q[0], q[1], q[2], q[3]);
        if (v.norm() < 1e-9) r.Fail(p + "/quaternion", "must not be zero", &(*it)["quaternion"]);
        b.quaternion = v.normalized();
      }
      if (it->contains("velocity")) b.velocity = r.Vector3((*it)["velocity"], p + "/velocity");
      if (it->contains("angular_velocity")) {
        b.angular_velocity = r.Vector3((*it)["angular_velocity"], p + "/angular_velocity");
      }
      s->bodies.push_back(b);
    }
  }
  if (init.contains("joints")) {
    const json& joints = init["joints"];
    if (!joints.is_object()) r.Fail("/initial_state/joints", "expected an object keyed by joint name", &joints);
    for (auto it = joints.begin(); it != joints.end(); ++it) {
      const std::string p = "/initial_state/joints/" + it.key();
      r.Keys(*it, p, detail::kJointStateKeys);
      Scenario::JointState js{it.key(), p, {}, {}};
      if (it->contains("q")) js.q = r.Number((*it)["q"], p + "/q");
      if (it->contains("qd")) js.qd = r.Number((*it)["qd"], p + "/qd");
      s->joints.push_back(js);
    }
  }
}

// controls: each actuator's control from its time on, in time order.
std::vector<Scenario::Control> ReadControls(const Reader& r, const json& list) {
  if (!list.is_array()) r.Fail("/controls", "expected an array", &list);
  std::vector<Scenario::Control> controls;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/controls/" + std::to_string(i);
    r.Keys(list[i], p, detail::kControlKeys);
    Scenario::Control c;
    c.path = p;
    c.actuator = r.String(list[i]["actuator"], p + "/actuator");
    c.value = r.Number(list[i]["value"], p + "/value");
    if (list[i].contains("time")) c.time = r.Number(list[i]["time"], p + "/time");
    controls.push_back(c);
  }
  std::stable_sort(controls.begin(), controls.end(),
                   [](const Scenario::Control& a, const Scenario::Control& b) { return a.time < b.time; });
  return controls;
}

// feedback and navigation: the filter runs with a navigation object or on the estimate.
void ReadNavigation(const Reader& r, const json& root, Scenario* s) {
  if (root.contains("feedback")) {
    s->feedback_estimate = r.Choice(root["feedback"], "/feedback", detail::kScenarioKeys.At("feedback")) == "estimate";
  }
  if (!root.contains("navigation") && !s->feedback_estimate) return;
  Scenario::Navigation nav;
  if (root.contains("navigation")) {
    const json& n = root["navigation"];
    r.Keys(n, "/navigation", detail::kNavigationKeys);
    if (n.contains("body")) nav.body = r.String(n["body"], "/navigation/body");
    NavigationSettings& g = nav.settings;
    for (auto [key, value] : {std::pair{"initial_position_sd", &g.initial_position_sd},
                              std::pair{"initial_velocity_sd", &g.initial_velocity_sd},
                              std::pair{"initial_attitude_sd", &g.initial_attitude_sd},
                              std::pair{"initial_current_sd", &g.initial_current_sd},
                              std::pair{"current_walk", &g.current_walk}}) {
      if (n.contains(key)) *value = r.Positive(n[key], std::string("/navigation/") + key);
    }
    if (n.contains("acoustic")) g.use_acoustic = r.Bool(n["acoustic"], "/navigation/acoustic");
  }
  s->navigation = nav;
}

// wrenches: scheduled forces and torques (a cross-check scenario's default to the body
// frame and the centre of mass).
std::vector<Scenario::Wrench> ReadWrenches(const Reader& r, const json& list, bool crosscheck) {
  if (!list.is_array()) r.Fail("/wrenches", "expected an array", &list);
  std::vector<Scenario::Wrench> wrenches;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/wrenches/" + std::to_string(i);
    r.Keys(list[i], p, detail::kWrenchKeys);
    Scenario::Wrench w;
    w.path = p;
    w.body_frame = crosscheck;
    w.at_com = crosscheck;
    if (list[i].contains("at")) {
      w.at_com = r.Choice(list[i]["at"], p + "/at", detail::kWrenchKeys.At("at")) == "com";
    }
    w.body = r.String(list[i]["body"], p + "/body");
    if (list[i].contains("start")) w.start = r.Number(list[i]["start"], p + "/start");
    if (list[i].contains("end")) w.end = r.Number(list[i]["end"], p + "/end");
    if (!(w.end > w.start)) r.Fail(p + "/end", "must be later than start", &list[i]["end"]);
    if (list[i].contains("force")) w.force = r.Vector3(list[i]["force"], p + "/force");
    if (list[i].contains("torque")) w.torque = r.Vector3(list[i]["torque"], p + "/torque");
    if (list[i].contains("frame")) {
      w.body_frame = r.Choice(list[i]["frame"], p + "/frame", detail::kWrenchKeys.At("frame")) == "body";
    }
    wrenches.push_back(w);
  }
  return wrenches;
}

}  // namespace


Scenario Scenario::FromFile(const std::string& path) {
  CheckNoNul(path);
  // a regular file of bounded size: a device (/dev/zero, or a link to it) never ends, and
  // reading it whole ended in std::bad_alloc, or took all the memory there was
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw ConfigError(Excerpt(path) + ": not a regular file (a scenario JSON file is expected)");
  }
  if (const std::uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > kMaxScenarioBytes) {
    throw ConfigError(Excerpt(path) + ": the scenario file has " + std::to_string(size) + " bytes; at most " +
                      std::to_string(kMaxScenarioBytes >> 20) + " MiB");
  }
  std::ifstream in(path);
  if (!in) throw ConfigError(Excerpt(path) + ": cannot open the scenario file");
  std::stringstream text;
  text << in.rdbuf();
  const std::string base = std::filesystem::path(path).parent_path().string();
  return FromString(text.str(), path, base);
}

Scenario Scenario::FromString(const std::string& text, const std::string& source,
                              const std::string& base_dir) {
  Reader r(source);
  const json root = detail::ParseJson(text, source);
  r.Keys(root, "", detail::kScenarioKeys);
  if (root.contains("$schema")) r.String(root["$schema"], "/$schema");  // for editors; nothing else
  Scenario s;
  s.source = source;
  // a cross-check scenario (nereid crosscheck's keys): its wrenches default to the body
  // frame and the centre of mass
  bool crosscheck = false;
  for (const detail::JsonKey& k : detail::kScenarioKeys.keys) {
    crosscheck |= k.crosscheck && root.contains(std::string(k.name));
  }
  if (crosscheck) s.crosscheck = ReadCrosscheck(r, root);
  s.model = ReadModelPath(r, root, base_dir);
  ReadStepping(r, root, &s);
  if (root.contains("current")) s.current = ReadCurrent(r, root["current"], "/current");
  if (root.contains("waves")) s.waves = ReadWaves(r, root["waves"], "/waves");
  if (root.contains("initial_state")) ReadInitialState(r, root["initial_state"], &s);
  if (root.contains("controls")) s.controls = ReadControls(r, root["controls"]);

  if (root.contains("controller") && IsVmsController(root["controller"])) {
    s.vms_controller = ReadVmsController(root["controller"], source, "/controller");
  } else if (root.contains("controller")) {
    s.controller = ReadController(r, root["controller"], "/controller");
  }

  if (root.contains("scene")) s.scene = ReadScene(r, root["scene"], "/scene", base_dir);
  if (root.contains("stabilize")) s.stabilize = ReadStabilize(r, root["stabilize"], "/stabilize");
  CheckWaterDepth(r, s, root);
  if (root.contains("seed")) {
    s.seed = static_cast<uint64_t>(ReadInt(r, root["seed"], "/seed", 0, std::numeric_limits<int>::max()));
  }
  ReadNavigation(r, root, &s);
  if (root.contains("wrenches")) s.wrenches = ReadWrenches(r, root["wrenches"], crosscheck);
  return s;
}

void Scenario::Apply(Simulation& sim) {
  const mjModel* m = sim.model();
  mjData* d = sim.data();
  Reader r(source);
  if (keyframe && *keyframe >= m->nkey) {
    r.Fail("/keyframe", "the model has " + std::to_string(m->nkey) + " keyframes", nullptr);
  }
  sim.Reset(keyframe.value_or(m->nkey > 0 ? 0 : -1));
  if (current) {
    try {
      sim.SetCurrent(*current);
    } catch (const ConfigError& e) {
      r.Fail("/current", e.what());
    }
  }
  if (waves) {
    CurrentField* field = sim.current();
    if (field) {
      field->SetWaves(*waves);
    } else if (!waves->calm()) {
      r.Fail("/waves", "the model " + sim.source() + " has no nereid.current instance to carry the waves; add "
                       "<extension><plugin plugin=\"nereid.current\"><instance name=\"current\"/></plugin></extension>");
    }
  }
  for (const BodyState& b : bodies) {
    const int id = mj_name2id(m, mjOBJ_BODY, b.name.c_str());
    if (id < 0) r.Fail(b.path, "no body named '" + Excerpt(b.name) + "' in " + sim.source());
    const int jnt = m->body_jntadr[id];
    if (jnt < 0 || m->jnt_type[jnt] != mjJNT_FREE) {
      r.Fail(b.path, "body '" + Excerpt(b.name) + "' has no free joint");
    }
    mjtNum* qpos = d->qpos + m->jnt_qposadr[jnt];
    mjtNum* qvel = d->qvel + m->jnt_dofadr[jnt];
    if (b.position) for (int i = 0; i < 3; ++i) qpos[i] = (*b.position)[i];
    if (b.quaternion) for (int i = 0; i < 4; ++i) qpos[3 + i] = (*b.quaternion)[i];
    if (b.velocity) for (int i = 0; i < 3; ++i) qvel[i] = (*b.velocity)[i];
    if (b.angular_velocity) for (int i = 0; i < 3; ++i) qvel[3 + i] = (*b.angular_velocity)[i];
  }
  for (const JointState& js : joints) {
    const int id = mj_name2id(m, mjOBJ_JOINT, js.name.c_str());
    if (id < 0) r.Fail(js.path, "no joint named '" + Excerpt(js.name) + "' in " + sim.source());
    if (m->jnt_type[id] != mjJNT_HINGE && m->jnt_type[id] != mjJNT_SLIDE) {
      r.Fail(js.path, "joint '" + Excerpt(js.name) + "' is not a hinge or slide joint");
    }
    if (js.q) d->qpos[m->jnt_qposadr[id]] = *js.q;
    if (js.qd) d->qvel[m->jnt_dofadr[id]] = *js.qd;
  }
  control_ids_.clear();
  for (const Control& c : controls) {
    const int id = mj_name2id(m, mjOBJ_ACTUATOR, c.actuator.c_str());
    if (id < 0) r.Fail(c.path + "/actuator", "no actuator named '" + Excerpt(c.actuator) + "' in " + sim.source());
    if (m->actuator_ctrlnum[id] != 1) {
      r.Fail(c.path + "/actuator", "actuator '" + Excerpt(c.actuator) + "' takes " +
                                       std::to_string(m->actuator_ctrlnum[id]) +
                                       " controls; a scenario control sets an actuator with exactly one");
    }
    control_ids_.push_back(id);
  }
  wrench_ids_.clear();
  for (const Wrench& w : wrenches) {
    const int id = mj_name2id(m, mjOBJ_BODY, w.body.c_str());
    if (id <= 0) r.Fail(w.path + "/body", "no body named '" + Excerpt(w.body) + "' in " + sim.source());
    wrench_ids_.push_back(id);
  }
  ApplyInputs(sim, d->time);
  sim.Forward();
}

void Scenario::SetMpcFactory(MpcFactory factory) { MpcFactorySlot() = factory; }

std::unique_ptr<PathController> Scenario::MakeController(const Simulation& sim, int* body) const {
  if (!controller) return nullptr;
  Reader r(source);
  const mjModel* m = sim.model();
  const std::string& p = controller->path_json;
  *body = mj_name2id(m, mjOBJ_BODY, controller->body.c_str());
  if (*body <= 0) r.Fail(p + "/body", "no body named '" + Excerpt(controller->body) + "' in " + sim.source());
  if (FreeJointDof(m, *body) < 0) r.Fail(p + "/body", "body '" + Excerpt(controller->body) + "' has no free joint");
  if (FindThrusters(m, *body).actuators.empty()) {
    r.Fail(p + "/body", "body '" + Excerpt(controller->body) + "' has no nereid.thruster actuators to allocate to");
  }
  if (controller->type == Controller::Type::kMpc) {
    if (!MpcFactorySlot()) {
      r.Fail(p + "/type", "this program was built without the MPC (libnereid_mpc; CMake NEREID_BUILD_MPC)");
    }
    try {
      return MpcFactorySlot()(sim, *body, *controller);
    } catch (const ConfigError& e) {
      r.Fail(p, e.what());
    }
  }
  const double period = controller->pose_rate > 0 ? 1.0 / controller->pose_rate : 0.0;
  return std::make_unique<PathFollower>(controller->path, CascadedPid(sim, *body, controller->gains),
                                        controller->reference, period, controller->latency,
                                        controller->pid_at_pose_rate);
}

std::vector<Stabilize> Scenario::MakeStabilizers(const Simulation& sim) const {
  std::vector<Stabilize> out;
  for (const StabilizeSpec& spec : stabilize) out.emplace_back(sim, spec, source);
  return out;
}

void Scenario::ApplyInputs(Simulation& sim, double t) const {
  const mjModel* m = sim.model();
  mjData* d = sim.data();
  for (size_t i = 0; i < controls.size() && i < control_ids_.size(); ++i) {
    if (controls[i].time <= t) d->ctrl[m->actuator_ctrladr[control_ids_[i]]] = controls[i].value;
  }
  if (wrenches.empty()) return;
  for (int id : wrench_ids_) mju_zero(d->xfrc_applied + 6 * id, 6);
  for (size_t i = 0; i < wrenches.size() && i < wrench_ids_.size(); ++i) {
    const Wrench& w = wrenches[i];
    if (t < w.start || t >= w.end) continue;
    const int id = wrench_ids_[i];
    Vec3 f = w.force, tau = w.torque;
    if (w.body_frame) {
      const Mat3 R = BodyRotation(d, id);
      f = R * f;
      tau = R * tau;
    }
    // xfrc_applied acts at the centre of mass; a body-origin force is the same force plus
    // the moment of the offset
    if (!w.at_com) {
      const Vec3 offset(d->xipos[3 * id] - d->xpos[3 * id], d->xipos[3 * id + 1] - d->xpos[3 * id + 1],
                        d->xipos[3 * id + 2] - d->xpos[3 * id + 2]);
      tau -= offset.cross(f);
    }
    for (int k = 0; k < 3; ++k) {
      d->xfrc_applied[6 * id + k] += f[k];
      d->xfrc_applied[6 * id + 3 + k] += tau[k];
    }
  }
}

}  // namespace nereid
