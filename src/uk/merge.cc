// Copyright Nereid authors.
#include "uk/merge.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "nereid/mujoco_log.h"
#include "uk/constraint_set.h"

namespace nereid::uk {
namespace {

struct Edge {
  int a, b;  // body1, body2 of the weld
  ConnectionGeometry g;
};

void DeleteAll(mjSpec* s, mjtObj type) {
  for (mjsElement* e = mjs_firstElement(s, type); e; e = mjs_firstElement(s, type)) {
    if (mjs_delete(s, e) != 0) break;
  }
}

}  // namespace

std::map<int, WeldedPose> WeldedPoses(const mjModel* m, const std::string& source) {
  std::vector<Edge> edges;
  for (int eq : FindUKWelds(m, source)) {
    if (m->eq_active0[eq]) edges.push_back({m->eq_obj1id[eq], m->eq_obj2id[eq], WeldGeometry(m->eq_data + mjNEQDATA * eq)});
  }
  std::vector<int> bodies;
  for (const Edge& e : edges) {
    bodies.push_back(e.a);
    bodies.push_back(e.b);
  }
  std::sort(bodies.begin(), bodies.end());
  bodies.erase(std::unique(bodies.begin(), bodies.end()), bodies.end());
  std::map<int, WeldedPose> poses;
  for (int r : bodies) {
    if (poses.count(r)) continue;
    poses[r] = {r, Vec3::Zero(), Quat::Identity()};
    std::vector<int> queue = {r};
    for (size_t qi = 0; qi < queue.size(); ++qi) {
      const int x = queue[qi];
      for (const Edge& e : edges) {
        const WeldedPose px = poses[x];
        int y = -1;
        Vec3 p = Vec3::Zero();
        Quat q = Quat::Identity();
        if (e.a == x) {  // y = body2: q2 = q1 q_rel, p2 = p1 + R1 r1 - R2 r2
          y = e.b;
          q = px.orientation * e.g.q_rel;
          p = px.position + px.orientation * e.g.r1 - q * e.g.r2;
        } else if (e.b == x) {  // y = body1: q1 = q2 q_rel^*, p1 = p2 + R2 r2 - R1 r1
          y = e.a;
          q = px.orientation * e.g.q_rel.conjugate();
          p = px.position + px.orientation * e.g.r2 - q * e.g.r1;
        }
        if (y < 0 || poses.count(y)) continue;
        poses[y] = {r, p, q.normalized()};
        queue.push_back(y);
      }
    }
  }
  return poses;
}

namespace {

// The model parsed twice: the spec that becomes the merged model, and a second one whose
// bodies are attached to it (mj_deleteSpec on both when done).
struct Specs {
  mjSpec* spec = nullptr;
  mjSpec* copies = nullptr;
  Specs() = default;
  Specs(const Specs&) = delete;
  Specs& operator=(const Specs&) = delete;
  ~Specs() {
    if (spec) mj_deleteSpec(spec);
    if (copies) mj_deleteSpec(copies);
  }
};

// Parses model_path twice into s; the reason on failure, "" on success. MuJoCo's calls here
// run under Nereid's log handler (CallMuJoCo): their warnings repeat the model's own load's
// (the caller has loaded it through nereid::Simulation, which keeps them) and are dropped,
// not printed and not written to MUJOCO_LOG.TXT; a fatal error returns here as the reason
// the model cannot be merged.
std::string ParseTwice(const std::string& model_path, Specs* s) {
  char error[1024] = "";
  std::string fatal;
  const char* path = model_path.c_str();
  if (!CallMuJoCo([&] { s->spec = mj_parseXML(path, nullptr, error, sizeof(error)); }, nullptr, &fatal) ||
      (s->spec && !CallMuJoCo([&] { s->copies = mj_parseXML(path, nullptr, error, sizeof(error)); }, nullptr, &fatal)) ||
      !s->spec || !s->copies) {
    return model_path + ": " + (fatal.empty() ? std::string(error) : fatal);
  }
  return "";
}

// Moves every welded body under its root at its welded pose: the UK welds and keyframes go,
// and each body is replaced by its copy from the second parse (free joint stripped: a
// UK-connected body moves by exactly its free joint, FindUKWelds), attached to the root's
// body. The reason on failure, "" on success.
std::string AttachWeldedBodies(const mjModel* m, const std::string& model_path,
                               const std::map<int, WeldedPose>& poses, const Specs& s) {
  // the copies must not bring keyframes, equalities or plugin instances along
  for (mjtObj t : {mjOBJ_KEY, mjOBJ_EQUALITY, mjOBJ_PLUGIN}) DeleteAll(s.copies, t);
  DeleteAll(s.spec, mjOBJ_KEY);
  for (int eq : FindUKWelds(m, model_path)) {
    if (mjsElement* e = mjs_findElement(s.spec, mjOBJ_EQUALITY, mj_id2name(m, mjOBJ_EQUALITY, eq))) mjs_delete(s.spec, e);
  }
  // strip the copies' free joints first, then attach them
  for (const auto& [body, pose] : poses) {
    if (body == pose.root) continue;
    mjsBody* copy = mjs_findBody(s.copies, mj_id2name(m, mjOBJ_BODY, body));
    if (!copy) continue;
    if (mjsElement* joint = mjs_firstChild(copy, mjOBJ_JOINT, 0)) mjs_delete(s.copies, joint);
  }
  for (const auto& [body, pose] : poses) {
    if (body == pose.root) continue;
    const char* name = mj_id2name(m, mjOBJ_BODY, body);
    const char* root_name = mj_id2name(m, mjOBJ_BODY, pose.root);
    mjsBody* target = root_name ? mjs_findBody(s.spec, root_name) : nullptr;
    mjsBody* old = name ? mjs_findBody(s.spec, name) : nullptr;
    mjsBody* copy = name ? mjs_findBody(s.copies, name) : nullptr;
    if (!target || !old || !copy) return "unnamed body";
    mjs_delete(s.spec, old->element);
    for (int i = 0; i < 3; ++i) copy->pos[i] = pose.position[i];
    const Quat& q = pose.orientation;
    copy->quat[0] = q.w();
    copy->quat[1] = q.x();
    copy->quat[2] = q.y();
    copy->quat[3] = q.z();
    copy->alt.type = mjORIENTATION_QUAT;
    mjsFrame* frame = mjs_addFrame(target, nullptr);
    if (!frame || !mjs_attach(frame->element, copy->element, "", "")) {
      return std::string("mjs_attach failed: ") + mjs_getError(s.spec);
    }
  }
  return "";
}

// Whether the merged spec compiles; the reason if not, "" if it does. Compiled without
// MuJoCo's length-range computation, which can loop forever (length_range.h); the merged
// MJCF is loaded through nereid::Simulation, which runs it (with MuJoCo's default options:
// MuJoCo 3.14's XML writer leaves <lengthrange> out).
std::string CompileError(mjSpec* spec) {
  std::string fatal;
  const mjLROpt length_range = spec->compiler.LRopt;
  spec->compiler.LRopt.mode = mjLRMODE_NONE;
  mjModel* merged = nullptr;
  if (!CallMuJoCo([&] { merged = mj_compile(spec, nullptr); }, nullptr, &fatal)) {
    return "the merged model does not compile: " + fatal;
  }
  spec->compiler.LRopt = length_range;
  if (!merged) return std::string("the merged model does not compile: ") + mjs_getError(spec);
  mj_deleteModel(merged);
  return "";
}

// The spec written as MJCF into *text; the reason on failure, "" on success.
std::string SaveXml(mjSpec* spec, std::string* text) {
  char error[1024] = "";
  std::string fatal;
  std::vector<char> xml(1 << 22);
  int n = -1;
  char* buffer = xml.data();
  const int size = static_cast<int>(xml.size());
  if (!CallMuJoCo([&] { n = mj_saveXMLString(spec, buffer, size, error, sizeof(error)); }, nullptr, &fatal)) {
    std::snprintf(error, sizeof(error), "%s", fatal.c_str());
  }
  if (n != 0) return std::string("cannot write the merged MJCF: ") + error;
  *text = xml.data();
  return "";
}

// What MuJoCo's writer changes that the merged MJCF must not: the model's own <extension>
// block goes back in (see merge.h); MuJoCo 3.14 writes the attached copy's (empty) default
// class as a nameless nested <default/>, which its own parser rejects; it carries nothing,
// so it goes.
void RepairWrittenXml(const std::string& model_path, std::string* text) {
  std::ifstream in(model_path);
  const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t o0 = original.find("<extension>"), o1 = original.find("</extension>");
  const size_t t0 = text->find("<extension>"), t1 = text->find("</extension>");
  if (o0 != std::string::npos && o1 != std::string::npos && t0 != std::string::npos && t1 != std::string::npos) {
    text->replace(t0, t1 - t0, original.substr(o0, o1 - o0));
  }
  for (size_t at = text->find("<default/>"); at != std::string::npos; at = text->find("<default/>")) {
    text->erase(at, std::string("<default/>").size());
  }
}

}  // namespace

std::string MergedModelXml(const std::string& model_path, const mjModel* m, std::string* why) {
  const std::map<int, WeldedPose> poses = WeldedPoses(m, model_path);
  if (poses.empty()) {
    *why = "no active uk: welds";
    return "";
  }
  std::string text;
  {
    Specs s;
    *why = ParseTwice(model_path, &s);
    if (why->empty()) *why = AttachWeldedBodies(m, model_path, poses, s);
    if (why->empty()) *why = CompileError(s.spec);
    if (why->empty()) *why = SaveXml(s.spec, &text);
    if (!why->empty()) return "";
  }
  RepairWrittenXml(model_path, &text);
  return text;
}

}  // namespace nereid::uk
