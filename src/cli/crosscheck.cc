// Copyright Nereid authors.
#include "cli/crosscheck.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <mujoco/mujoco.h>
#include <nlohmann/json.hpp>

#include "cli/arguments.h"
#include "cli/python.h"
#include "json_reader.h"
#include "nereid/error.h"
#include "nereid/simulation.h"
#include "nereid/uk.h"
#include "uk/constraint_set.h"
#include "uk/rigid_connection.h"

namespace nereid::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using uk::Quat;
using uk::Vec3;

struct Wrench {
  std::string body;
  Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
  bool body_frame = true;
};

struct Scenario {
  std::string path, model;
  double duration = 10, dt = 0;
  std::optional<Integrator> integrator;
  double solref[2] = {0.02, 1};                        // MuJoCo's defaults
  double solimp[5] = {0.9, 0.95, 0.001, 0.5, 2};       // MuJoCo's defaults
  UKOptions uk;
  std::vector<Wrench> wrenches;
  std::string peak_body;
  int peak_axis = 0;
  json reference;
  int record_every = 10;
  std::vector<std::string> methods = {"uk", "weld", "merged"};
};

[[noreturn]] void Bad(const Scenario& s, const std::string& key, const std::string& what) {
  throw ConfigError(s.path + ": '" + key + "': " + what);
}

Vec3 ReadVec3(const Scenario& s, const json& j, const std::string& key) {
  if (!j.is_array() || j.size() != 3 || !j[0].is_number() || !j[1].is_number() ||
      !j[2].is_number()) {
    Bad(s, key, "expected [x, y, z] numbers, got " + detail::Excerpt(j));
  }
  return Vec3(j[0].get<double>(), j[1].get<double>(), j[2].get<double>());
}

Scenario ReadScenario(const std::string& path) {
  Scenario s;
  s.path = path;
  std::ifstream f(path);
  if (!f) throw ConfigError(path + ": cannot open the scenario file");
  std::stringstream text;
  text << f.rdbuf();
  const json j = detail::ParseJson(text.str(), path);
  if (!j.is_object()) throw ConfigError(path + ": /: expected an object (got " + detail::Excerpt(j) + ")");
  static const char* kKeys[] = {"model", "duration", "dt", "integrator", "weld", "uk", "wrenches",
                                "peak", "reference", "record_every", "methods", "description"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (std::find_if(std::begin(kKeys), std::end(kKeys),
                     [&](const char* k) { return it.key() == k; }) == std::end(kKeys)) {
      Bad(s, it.key(), "unknown key");
    }
  }
  if (!j.contains("model") || !j["model"].is_string()) Bad(s, "model", "required (an MJCF path)");
  s.model = (fs::path(path).parent_path() / j["model"].get<std::string>()).lexically_normal().string();
  auto number = [&](const char* key, double* out, bool positive) {
    if (!j.contains(key)) return;
    if (!j[key].is_number() || (positive && !(j[key].get<double>() > 0))) {
      Bad(s, key, std::string("expected a ") + (positive ? "positive " : "") + "number, got " +
                      detail::Excerpt(j[key]));
    }
    *out = j[key].get<double>();
  };
  number("duration", &s.duration, true);
  number("dt", &s.dt, true);
  if (j.contains("integrator")) {
    Integrator i;
    if (!j["integrator"].is_string() || !ParseIntegrator(j["integrator"].get<std::string>(), &i)) {
      Bad(s, "integrator", "expected euler, rk4 or implicitfast, got " + detail::Excerpt(j["integrator"]));
    }
    s.integrator = i;
  }
  if (j.contains("record_every")) {
    if (!j["record_every"].is_number_integer() || j["record_every"].get<int>() < 1) {
      Bad(s, "record_every", "expected an integer >= 1, got " + detail::Excerpt(j["record_every"]));
    }
    s.record_every = j["record_every"].get<int>();
  }
  if (j.contains("weld")) {
    const json& w = j["weld"];
    if (w.contains("solref")) {
      if (!w["solref"].is_array() || w["solref"].size() != 2) Bad(s, "weld.solref", "expected 2 numbers");
      for (int i = 0; i < 2; ++i) s.solref[i] = w["solref"][static_cast<size_t>(i)].get<double>();
    }
    if (w.contains("solimp")) {
      if (!w["solimp"].is_array() || w["solimp"].size() != 5) Bad(s, "weld.solimp", "expected 5 numbers");
      for (int i = 0; i < 5; ++i) s.solimp[i] = w["solimp"][static_cast<size_t>(i)].get<double>();
    }
  }
  if (j.contains("uk")) {
    const json& u = j["uk"];
    s.uk.baumgarte_omega = u.value("baumgarte_omega", s.uk.baumgarte_omega);
    s.uk.baumgarte_zeta = u.value("baumgarte_zeta", s.uk.baumgarte_zeta);
    s.uk.project = u.value("project", s.uk.project);
    s.uk.dense = u.value("dense", s.uk.dense);
  }
  if (j.contains("wrenches")) {
    if (!j["wrenches"].is_array()) Bad(s, "wrenches", "expected a list");
    for (size_t i = 0; i < j["wrenches"].size(); ++i) {
      const json& w = j["wrenches"][i];
      const std::string key = "wrenches[" + std::to_string(i) + "]";
      Wrench x;
      if (!w.contains("body") || !w["body"].is_string()) Bad(s, key + ".body", "required");
      x.body = w["body"].get<std::string>();
      if (w.contains("force")) x.force = ReadVec3(s, w["force"], key + ".force");
      if (w.contains("torque")) x.torque = ReadVec3(s, w["torque"], key + ".torque");
      const std::string frame = w.value("frame", std::string("body"));
      if (frame != "body" && frame != "world") Bad(s, key + ".frame", "expected body or world, got '" + frame + "'");
      x.body_frame = frame == "body";
      s.wrenches.push_back(x);
    }
  }
  if (j.contains("peak")) {
    s.peak_body = j["peak"].value("body", std::string());
    const std::string axis = j["peak"].value("axis", std::string("x"));
    if (axis != "x" && axis != "y" && axis != "z") Bad(s, "peak.axis", "expected x, y or z");
    s.peak_axis = axis[0] - 'x';
  }
  if (j.contains("reference")) s.reference = j["reference"];
  if (j.contains("methods")) {
    s.methods.clear();
    for (const json& m : j["methods"]) {
      const std::string name = m.get<std::string>();
      if (name != "uk" && name != "weld" && name != "merged") {
        Bad(s, "methods", "expected uk, weld or merged, got '" + name + "'");
      }
      s.methods.push_back(name);
    }
  }
  return s;
}

// ---------------------------------------------------------------- the merged rigid body

struct Edge { int a, b; uk::ConnectionGeometry g; };

// Builds the model with every group of "uk:"-welded bodies combined into one body: the
// root (the group's lowest body id) keeps its free joint, the others become jointless
// children at their welded relative pose (mjSpec: delete, then attach a copy without its
// free joint). Returns MJCF text, or "" with `why` set when the topology does not allow it.
std::string BuildMerged(const std::string& model_path, const mjModel* m, std::string* why) {
  const std::vector<int> welds = uk::FindUKWelds(m, model_path);
  std::vector<Edge> edges;
  for (int eq : welds) {
    if (!m->eq_active0[eq]) continue;
    const mjtNum* d = m->eq_data + mjNEQDATA * eq;
    Edge e{m->eq_obj1id[eq], m->eq_obj2id[eq], {}};
    e.g.r2 = Vec3(d[0], d[1], d[2]);
    e.g.r1 = Vec3(d[3], d[4], d[5]);
    e.g.q_rel = Quat(d[6], d[7], d[8], d[9]).normalized();
    edges.push_back(e);
  }
  if (edges.empty()) { *why = "no active uk: welds"; return ""; }
  // pose of each body relative to its group's root (breadth-first over the welds)
  std::map<int, std::pair<Vec3, Quat>> pose;  // body -> (position, orientation) in root
  std::map<int, int> root_of;
  std::vector<int> bodies;
  for (const Edge& e : edges) { bodies.push_back(e.a); bodies.push_back(e.b); }
  std::sort(bodies.begin(), bodies.end());
  bodies.erase(std::unique(bodies.begin(), bodies.end()), bodies.end());
  for (int r : bodies) {
    if (root_of.count(r)) continue;
    root_of[r] = r;
    pose[r] = {Vec3::Zero(), Quat::Identity()};
    std::vector<int> queue = {r};
    for (size_t qi = 0; qi < queue.size(); ++qi) {
      const int x = queue[qi];
      for (const Edge& e : edges) {
        int y = -1;
        Vec3 p = Vec3::Zero();
        Quat q = Quat::Identity();
        const auto& [px, qx] = pose[x];
        if (e.a == x) {  // y = body2: q2 = q1 q_rel, p2 = p1 + R1 r1 - R2 r2
          y = e.b;
          q = qx * e.g.q_rel;
          p = px + qx * e.g.r1 - q * e.g.r2;
        } else if (e.b == x) {  // y = body1: q1 = q2 q_rel^*, p1 = p2 + R2 r2 - R1 r1
          y = e.a;
          q = qx * e.g.q_rel.conjugate();
          p = px + qx * e.g.r2 - q * e.g.r1;
        }
        if (y < 0 || root_of.count(y)) continue;
        root_of[y] = r;
        pose[y] = {p, q.normalized()};
        queue.push_back(y);
      }
    }
  }
  char error[1024] = "";
  mjSpec* spec = mj_parseXML(model_path.c_str(), nullptr, error, sizeof(error));
  mjSpec* source = mj_parseXML(model_path.c_str(), nullptr, error, sizeof(error));
  if (!spec || !source) throw LoadError(model_path + ": " + error);
  auto cleanup = [&]() { mj_deleteSpec(spec); mj_deleteSpec(source); };
  auto delete_all = [](mjSpec* s, mjtObj type) {
    for (mjsElement* e = mjs_firstElement(s, type); e; e = mjs_firstElement(s, type)) {
      if (mjs_delete(s, e) != 0) break;
    }
  };
  // the copy source must not bring keyframes, equalities or plugin instances along
  for (mjtObj t : {mjOBJ_KEY, mjOBJ_EQUALITY, mjOBJ_PLUGIN}) delete_all(source, t);
  for (mjtObj t : {mjOBJ_KEY}) delete_all(spec, t);
  for (int eq : welds) {
    mjsElement* e = mjs_findElement(spec, mjOBJ_EQUALITY, mj_id2name(m, mjOBJ_EQUALITY, eq));
    if (e) mjs_delete(spec, e);
  }
  // first strip the copies' free joints (a UK-connected body moves by exactly one joint,
  // its free joint: FindUKWelds), then attach them
  for (const auto& [body, root] : root_of) {
    if (body == root) continue;
    mjsBody* copy = mjs_findBody(source, mj_id2name(m, mjOBJ_BODY, body));
    if (!copy) continue;
    if (mjsElement* joint = mjs_firstChild(copy, mjOBJ_JOINT, 0)) mjs_delete(source, joint);
  }
  for (const auto& [body, root] : root_of) {
    if (body == root) continue;
    const char* name = mj_id2name(m, mjOBJ_BODY, body);
    const char* root_name = mj_id2name(m, mjOBJ_BODY, root);
    mjsBody* target = mjs_findBody(spec, root_name);
    mjsBody* old = mjs_findBody(spec, name);
    mjsBody* copy = mjs_findBody(source, name);
    if (!target || !old || !copy || !name) { cleanup(); *why = "unnamed body"; return ""; }
    mjs_delete(spec, old->element);
    const auto& [p, q] = pose[body];
    for (int i = 0; i < 3; ++i) copy->pos[i] = p[i];
    copy->quat[0] = q.w(); copy->quat[1] = q.x(); copy->quat[2] = q.y(); copy->quat[3] = q.z();
    copy->alt.type = mjORIENTATION_QUAT;
    mjsFrame* frame = mjs_addFrame(target, nullptr);
    if (!frame || !mjs_attach(frame->element, copy->element, "", "")) {
      *why = std::string("mjs_attach failed: ") + mjs_getError(spec);
      cleanup();
      return "";
    }
  }
  mjModel* merged = mj_compile(spec, nullptr);
  if (!merged) {
    *why = std::string("the merged model does not compile: ") + mjs_getError(spec);
    cleanup();
    return "";
  }
  std::vector<char> xml(1 << 22);
  const int n = mj_saveXMLString(spec, xml.data(), static_cast<int>(xml.size()), error, sizeof(error));
  mj_deleteModel(merged);
  cleanup();
  if (n != 0) { *why = std::string("cannot write the merged MJCF: ") + error; return ""; }
  // MuJoCo 3.14 writes the attached copy's (empty) default class as a nameless nested
  // <default/>, which its own parser rejects; it carries nothing, so drop it
  std::string text(xml.data());
  // MuJoCo 3.14's XML writer keeps <plugin plugin="..."/> but drops the instances and
  // their <config>: put the model's own <extension> block back (instances name their
  // bodies, and every body keeps its name in the merged model)
  std::ifstream in(model_path);
  const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t o0 = original.find("<extension>"), o1 = original.find("</extension>");
  const size_t t0 = text.find("<extension>"), t1 = text.find("</extension>");
  if (o0 != std::string::npos && o1 != std::string::npos && t0 != std::string::npos &&
      t1 != std::string::npos) {
    text.replace(t0, t1 - t0, original.substr(o0, o1 - o0));
  }
  if (const char* dump = std::getenv("NEREID_CROSSCHECK_DUMP_MERGED")) std::ofstream(dump) << text;
  for (size_t at = text.find("<default/>"); at != std::string::npos; at = text.find("<default/>")) {
    text.erase(at, std::string("<default/>").size());
  }
  return text;
}

// ---------------------------------------------------------------- one run

struct Sample {
  double t;
  std::vector<double> pos_err, ang_err;      // per connection (m, rad)
  std::vector<Vec3> force, torque;           // per connection, on body1 at the point
  Vec3 com;                                  // the assembly's centre of mass
};

struct RunResult {
  std::string method;
  bool ran = false;
  std::string skipped;
  std::vector<Sample> samples;
  double ns_per_step = 0;
  std::optional<double> first_peak;
  long steps = 0;
};

void Progress(const std::string& label, long step, long total) {
  static const bool tty = isatty(fileno(stderr)) != 0;
  if (total < 2000 || !tty) return;
  const long every = total / 100;
  if (step % every != 0 && step != total) return;
  const int width = 40;
  const int filled = static_cast<int>(width * step / total);
  std::fprintf(stderr, "\r  %-7s [%s%s] %3ld%%", label.c_str(), std::string(static_cast<size_t>(filled), '#').c_str(),
               std::string(static_cast<size_t>(width - filled), ' ').c_str(), 100 * step / total);
  if (step == total) std::fprintf(stderr, "\n");
}

double AxisAngle(const mjData* d, int body, int axis) {
  const mjtNum* R = d->xmat + 9 * body;  // row-major world-from-body
  switch (axis) {
    case 0: return std::atan2(R[7], R[8]);   // roll
    case 1: return std::asin(std::clamp(-R[6], -1.0, 1.0));  // pitch
    default: return std::atan2(R[3], R[0]);  // yaw
  }
}

RunResult RunOne(const Scenario& s, const std::string& method, const std::string& merged_xml,
                 const mjModel* original, const std::vector<int>& welds,
                 const std::vector<std::string>& assembly) {
  RunResult r;
  r.method = method;
  SimulationOptions o;
  o.integrator = s.integrator;
  if (s.dt > 0) o.timestep = s.dt;
  if (method == "uk") {
    o.constraints = ConstraintMethod::kUK;
    o.uk = s.uk;
  }
  std::unique_ptr<Simulation> sim =
      method == "merged" ? Simulation::LoadString(merged_xml, o, s.model + " (merged)")
                         : Simulation::LoadFile(s.model, o);
  mjModel* m = sim->mutable_model();
  mjData* d = sim->data();
  if (method == "weld") {
    for (int eq : welds) {
      for (int i = 0; i < 2; ++i) m->eq_solref[2 * eq + i] = s.solref[i];
      for (int i = 0; i < 5; ++i) m->eq_solimp[5 * eq + i] = s.solimp[i];
    }
  }
  if (method == "merged") {
    // the same initial state: every free joint from the original body of the same name
    mjData* d0 = mj_makeData(original);
    if (original->nkey > 0) mj_resetDataKeyframe(original, d0, 0); else mj_resetData(original, d0);
    for (int b = 1; b < m->nbody; ++b) {
      const int j = m->body_jntadr[b];
      if (m->body_jntnum[b] != 1 || m->jnt_type[j] != mjJNT_FREE) continue;
      const int b0 = mj_name2id(original, mjOBJ_BODY, mj_id2name(m, mjOBJ_BODY, b));
      if (b0 < 0) continue;
      const int j0 = original->body_jntadr[b0];
      mju_copy(d->qpos + m->jnt_qposadr[j], d0->qpos + original->jnt_qposadr[j0], 7);
      mju_copy(d->qvel + m->jnt_dofadr[j], d0->qvel + original->jnt_dofadr[j0], 6);
    }
    mj_deleteData(d0);
  } else if (m->nkey > 0) {
    sim->Reset(0);
  }
  sim->Forward();
  std::vector<int> wrench_body;
  for (const Wrench& w : s.wrenches) {
    const int b = mj_name2id(m, mjOBJ_BODY, w.body.c_str());
    if (b < 0) throw ConfigError(s.path + ": 'wrenches': no body named '" + w.body + "' in " + s.model);
    wrench_body.push_back(b);
  }
  std::vector<int> asm_body;
  for (const std::string& n : assembly) asm_body.push_back(mj_name2id(m, mjOBJ_BODY, n.c_str()));
  const int peak_body = s.peak_body.empty() ? -1 : mj_name2id(m, mjOBJ_BODY, s.peak_body.c_str());
  if (!s.peak_body.empty() && peak_body < 0) {
    throw ConfigError(s.path + ": 'peak.body': no body named '" + s.peak_body + "'");
  }

  auto record = [&]() {
    sim->Forward();  // current forces (UK multipliers, MuJoCo's efc_force) at this state
    Sample x;
    x.t = d->time;
    double mass = 0;
    x.com.setZero();
    for (int b : asm_body) {
      if (b < 0) continue;
      mass += m->body_mass[b];
      x.com += m->body_mass[b] * Vec3(d->xipos[3 * b], d->xipos[3 * b + 1], d->xipos[3 * b + 2]);
    }
    if (mass > 0) x.com /= mass;
    if (method == "merged") { r.samples.push_back(x); return; }
    const std::vector<ConnectionReport> reports = sim->ConnectionReports();
    std::vector<mjtNum> f(static_cast<size_t>(d->nefc)), q(static_cast<size_t>(m->nv));
    for (size_t k = 0; k < welds.size(); ++k) {
      const int eq = welds[k];
      const int b1 = m->eq_obj1id[eq], b2 = m->eq_obj2id[eq];
      const int a1 = m->jnt_qposadr[m->body_jntadr[b1]], a2 = m->jnt_qposadr[m->body_jntadr[b2]];
      const int v1 = m->jnt_dofadr[m->body_jntadr[b1]], v2 = m->jnt_dofadr[m->body_jntadr[b2]];
      const mjtNum* e = original->eq_data + mjNEQDATA * eq;
      uk::ConnectionGeometry g;
      g.r2 = Vec3(e[0], e[1], e[2]);
      g.r1 = Vec3(e[3], e[4], e[5]);
      g.q_rel = Quat(e[6], e[7], e[8], e[9]).normalized();
      const uk::FreeBodyState s1 = uk::ReadFreeBody(d->qpos, d->qvel, a1, v1);
      const uk::FreeBodyState s2 = uk::ReadFreeBody(d->qpos, d->qvel, a2, v2);
      const uk::ConnectionRows rows = uk::EvaluateConnection(g, s1, s2);
      x.pos_err.push_back(rows.c.head<3>().norm());
      x.ang_err.push_back(rows.c.tail<3>().norm());
      Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
      if (method == "uk") {
        for (const ConnectionReport& c : reports) {
          if (c.equality == eq) { force = c.force; torque = c.torque; }
        }
      } else {
        // MuJoCo: J^T f of this weld's rows, on body1's free dofs -> wrench at the point
        std::fill(f.begin(), f.end(), 0.0);
        for (int i = 0; i < d->nefc; ++i) {
          if (d->efc_type[i] == mjCNSTR_EQUALITY && d->efc_id[i] == eq) f[static_cast<size_t>(i)] = d->efc_force[i];
        }
        mj_mulJacTVec(m, d, q.data(), f.data());
        force = Vec3(q[static_cast<size_t>(v1)], q[static_cast<size_t>(v1 + 1)], q[static_cast<size_t>(v1 + 2)]);
        const Vec3 tb(q[static_cast<size_t>(v1 + 3)], q[static_cast<size_t>(v1 + 4)], q[static_cast<size_t>(v1 + 5)]);
        const Vec3 point = s1.p + s1.R * g.r1;
        torque = s1.R * tb - (point - s1.p).cross(force);
      }
      x.force.push_back(force);
      x.torque.push_back(torque);
    }
    r.samples.push_back(x);
  };

  const long steps = std::lround(s.duration / m->opt.timestep);
  r.steps = steps;
  record();
  double ns = 0;
  std::vector<double> angle;
  std::vector<double> time;
  if (peak_body >= 0) { angle.push_back(AxisAngle(d, peak_body, s.peak_axis)); time.push_back(d->time); }
  for (long i = 1; i <= steps; ++i) {
    for (size_t k = 0; k < s.wrenches.size(); ++k) {
      const Wrench& w = s.wrenches[k];
      const int b = wrench_body[k];
      const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->xmat + 9 * b);
      const Vec3 f = w.body_frame ? Vec3(R * w.force) : w.force;
      const Vec3 t = w.body_frame ? Vec3(R * w.torque) : w.torque;
      for (int c = 0; c < 3; ++c) {
        d->xfrc_applied[6 * b + c] = f[c];
        d->xfrc_applied[6 * b + 3 + c] = t[c];
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::string error;
    const bool ok = sim->TryStep(&error);
    ns += static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now() - t0).count());
    if (!ok) throw DivergenceError(error);
    if (peak_body >= 0) {
      mj_kinematics(m, d);
      angle.push_back(AxisAngle(d, peak_body, s.peak_axis));
      time.push_back(d->time);
    }
    if (i % s.record_every == 0 || i == steps) record();
    Progress(method, i, steps);
  }
  r.ns_per_step = steps ? ns / static_cast<double>(steps) : 0;
  // first peak: the first extremum of the angle after the start (parabola through 3 points)
  for (size_t i = 1; i + 1 < angle.size(); ++i) {
    const double a = angle[i] - angle[i - 1], b = angle[i + 1] - angle[i];
    if (std::abs(a) < 1e-12 || a * b > 0) continue;
    const double h = time[i] - time[i - 1];
    const double denom = angle[i - 1] - 2 * angle[i] + angle[i + 1];
    const double shift = std::abs(denom) > 0 ? 0.5 * (angle[i - 1] - angle[i + 1]) / denom : 0;
    r.first_peak = time[i] + shift * h;
    break;
  }
  r.ran = true;
  return r;
}

// ---------------------------------------------------------------- report

json Summary(const RunResult& r, const std::vector<std::string>& names, const RunResult* merged) {
  json j = {{"method", r.method}, {"ran", r.ran}};
  if (!r.ran) { j["skipped"] = r.skipped; return j; }
  j["steps"] = r.steps;
  j["ns_per_step"] = r.ns_per_step;
  if (r.first_peak) j["first_peak_s"] = *r.first_peak;
  json conns = json::array();
  for (size_t k = 0; k < names.size() && r.method != "merged"; ++k) {
    double pe = 0, ae = 0, fmax = 0, tmax = 0;
    for (const Sample& x : r.samples) {
      pe = std::max(pe, x.pos_err[k]);
      ae = std::max(ae, x.ang_err[k]);
      fmax = std::max(fmax, x.force[k].norm());
      tmax = std::max(tmax, x.torque[k].norm());
    }
    conns.push_back({{"name", names[k]}, {"max_position_drift_mm", 1e3 * pe},
                     {"max_angle_drift_deg", ae * 180 / M_PI}, {"max_force_N", fmax},
                     {"max_torque_Nm", tmax}});
  }
  if (r.method != "merged") j["connections"] = conns;
  if (merged && merged->ran && r.method != "merged") {
    double dmax = 0, dend = 0;
    for (size_t i = 0; i < std::min(r.samples.size(), merged->samples.size()); ++i) {
      dend = (r.samples[i].com - merged->samples[i].com).norm();
      dmax = std::max(dmax, dend);
    }
    j["com_difference_vs_merged_max_m"] = dmax;
    j["com_difference_vs_merged_final_m"] = dend;
  }
  const Sample& last = r.samples.back();
  j["final_com"] = {last.com.x(), last.com.y(), last.com.z()};
  return j;
}

void WriteCsv(const fs::path& file, const RunResult& r, const std::vector<std::string>& names) {
  std::ofstream f(file);
  f << "t,com_x,com_y,com_z";
  if (r.method != "merged") {
    for (const std::string& n : names) {
      for (const char* c : {"pos_err_mm", "ang_err_deg", "fx", "fy", "fz", "tx", "ty", "tz"}) f << "," << n << ":" << c;
    }
  }
  f << "\n";
  char buf[64];
  auto put = [&](double v) { std::snprintf(buf, sizeof(buf), ",%.10g", v); f << buf; };
  for (const Sample& x : r.samples) {
    std::snprintf(buf, sizeof(buf), "%.10g", x.t);
    f << buf;
    put(x.com.x()); put(x.com.y()); put(x.com.z());
    for (size_t k = 0; k < x.pos_err.size(); ++k) {
      put(1e3 * x.pos_err[k]);
      put(x.ang_err[k] * 180 / M_PI);
      for (int c = 0; c < 3; ++c) put(x.force[k][c]);
      for (int c = 0; c < 3; ++c) put(x.torque[k][c]);
    }
    f << "\n";
  }
}

std::string PlotScript() {
  if (const char* env = std::getenv("NEREID_CROSSCHECK_PLOT")) return env;
  return (SourceRoot() / "scripts" / "crosscheck_plots.py").string();
}

}  // namespace

int Crosscheck(const std::vector<std::string>& args) {
  std::string input, out = "results/crosscheck";
  bool plots = true;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--out") {
      if (i + 1 >= args.size()) throw Usage{"--out needs a value"};
      out = args[++i];
    } else if (args[i] == "--no-plots") {
      plots = false;
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw Usage{"unknown crosscheck option '" + args[i] + "'"};
    } else if (input.empty()) {
      input = args[i];
    } else {
      throw Usage{"unexpected argument '" + args[i] + "'"};
    }
  }
  if (input.empty()) throw Usage{"crosscheck needs a SCENARIO.json"};
  const Scenario s = ReadScenario(input);
  std::unique_ptr<Simulation> probe = Simulation::LoadFile(s.model);
  const mjModel* original = probe->model();
  const std::vector<int> welds = uk::FindUKWelds(original, s.model);
  if (welds.empty()) {
    throw ConfigError(s.model + ": no <weld name=\"uk:...\"> connections to cross-check");
  }
  std::vector<std::string> names, assembly;
  for (int eq : welds) {
    names.push_back(mj_id2name(original, mjOBJ_EQUALITY, eq));
    for (int b : {original->eq_obj1id[eq], original->eq_obj2id[eq]}) {
      const std::string n = mj_id2name(original, mjOBJ_BODY, b);
      if (std::find(assembly.begin(), assembly.end(), n) == assembly.end()) assembly.push_back(n);
    }
  }
  std::string why, merged_xml;
  const bool want_merged = std::find(s.methods.begin(), s.methods.end(), "merged") != s.methods.end();
  if (want_merged) merged_xml = BuildMerged(s.model, original, &why);
  std::fprintf(stderr, "crosscheck %s: %zu connection(s), %g s\n", input.c_str(), welds.size(), s.duration);
  std::map<std::string, RunResult> results;
  for (const std::string& method : s.methods) {
    if (method == "merged" && merged_xml.empty()) {
      results[method] = RunResult{method, false, why, {}, 0, {}, 0};
      continue;
    }
    results[method] = RunOne(s, method, merged_xml, original, welds, assembly);
  }
  fs::create_directories(out);
  const RunResult* merged = results.count("merged") ? &results["merged"] : nullptr;
  json report = {{"scenario", input}, {"model", s.model}, {"duration_s", s.duration},
                 {"mujoco_version", mj_versionString()},
                 {"weld", {{"solref", {s.solref[0], s.solref[1]}},
                           {"solimp", {s.solimp[0], s.solimp[1], s.solimp[2], s.solimp[3], s.solimp[4]}}}},
                 {"uk", {{"baumgarte_omega", s.uk.baumgarte_omega}, {"baumgarte_zeta", s.uk.baumgarte_zeta},
                         {"project", s.uk.project}, {"dense", s.uk.dense}}},
                 {"connections", names}, {"assembly", assembly}, {"methods", json::object()}};
  if (!s.reference.is_null()) report["reference"] = s.reference;
  for (const auto& [name, r] : results) {
    report["methods"][name] = Summary(r, names, merged);
    if (r.ran) WriteCsv(fs::path(out) / (name + ".csv"), r, names);
  }
  if (results.count("uk") && results.count("weld") && results["uk"].ran && results["weld"].ran) {
    // constraint wrenches of (a) against (b), per connection: over the whole run, during
    // the soft weld's start-up (its reference dynamics settle within about five time
    // constants solref[0]) and after it, where the two methods should agree
    json diff = json::array();
    const RunResult& a = results["uk"];
    const RunResult& b = results["weld"];
    const double settle = s.solref[0] > 0 ? 5 * s.solref[0] : 0.1;
    for (size_t k = 0; k < names.size(); ++k) {
      double fd = 0, td = 0, fd_start = 0, td_start = 0, fd_after = 0, td_after = 0, f_after = 0;
      for (size_t i = 0; i < std::min(a.samples.size(), b.samples.size()); ++i) {
        const double f = (a.samples[i].force[k] - b.samples[i].force[k]).norm();
        const double t = (a.samples[i].torque[k] - b.samples[i].torque[k]).norm();
        fd = std::max(fd, f);
        td = std::max(td, t);
        if (a.samples[i].t < settle) {
          fd_start = std::max(fd_start, f);
          td_start = std::max(td_start, t);
        } else {
          fd_after = std::max(fd_after, f);
          td_after = std::max(td_after, t);
          f_after = std::max(f_after, a.samples[i].force[k].norm());
        }
      }
      diff.push_back({{"name", names[k]}, {"max_force_difference_N", fd}, {"max_torque_difference_Nm", td},
                      {"start_up", {{"until_s", settle}, {"max_force_difference_N", fd_start},
                                    {"max_torque_difference_Nm", td_start}}},
                      {"settled", {{"from_s", settle}, {"max_force_difference_N", fd_after},
                                   {"max_torque_difference_Nm", td_after},
                                   {"max_force_uk_N", f_after},
                                   {"relative_force_difference", f_after > 0 ? fd_after / f_after : 0.0}}}});
    }
    report["uk_vs_weld_wrench"] = diff;
    report["cost_ratio_uk_over_weld"] = results["uk"].ns_per_step / results["weld"].ns_per_step;
  }
  {
    std::ofstream f(fs::path(out) / "report.json");
    f << report.dump(2) << "\n";
  }
  std::printf("wrote %s\n", (fs::path(out) / "report.json").c_str());
  for (const auto& [name, r] : results) {
    if (!r.ran) { std::printf("  %-7s skipped: %s\n", name.c_str(), r.skipped.c_str()); continue; }
    std::printf("  %-7s %9.0f ns/step", name.c_str(), r.ns_per_step);
    if (r.first_peak) std::printf("  first peak %.4f s", *r.first_peak);
    const json& sj = report["methods"][name];
    if (sj.contains("connections")) {
      double pe = 0, ae = 0;
      for (const json& c : sj["connections"]) {
        pe = std::max(pe, c["max_position_drift_mm"].get<double>());
        ae = std::max(ae, c["max_angle_drift_deg"].get<double>());
      }
      std::printf("  drift %.3g mm %.3g deg", pe, ae);
    }
    if (sj.contains("com_difference_vs_merged_max_m")) {
      std::printf("  |com - merged| %.3g m", sj["com_difference_vs_merged_max_m"].get<double>());
    }
    std::printf("\n");
  }
  if (plots) {
    const std::string script = PlotScript();
    const std::string cmd = PythonCommand(script, {out});
    if (!fs::exists(script) || std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "warning: plots not written (needs python3 with matplotlib: %s)\n", script.c_str());
    }
  }
  return 0;
}

}  // namespace nereid::cli
