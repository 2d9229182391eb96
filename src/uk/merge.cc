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

std::string MergedModelXml(const std::string& model_path, const mjModel* m, std::string* why) {
  const std::map<int, WeldedPose> poses = WeldedPoses(m, model_path);
  if (poses.empty()) {
    *why = "no active uk: welds";
    return "";
  }
  // MuJoCo's calls here run under Nereid's log handler (CallMuJoCo): their warnings repeat
  // the model's own load's (the caller has loaded it through nereid::Simulation, which keeps
  // them) and are dropped, not printed and not written to MUJOCO_LOG.TXT; a fatal error
  // returns here as the reason the model cannot be merged
  char error[1024] = "";
  std::string fatal;
  const char* path = model_path.c_str();
  mjSpec* spec = nullptr;
  mjSpec* copies = nullptr;
  if (!CallMuJoCo([&] { spec = mj_parseXML(path, nullptr, error, sizeof(error)); }, nullptr, &fatal) ||
      (spec && !CallMuJoCo([&] { copies = mj_parseXML(path, nullptr, error, sizeof(error)); }, nullptr, &fatal)) ||
      !spec || !copies) {
    if (spec) mj_deleteSpec(spec);
    if (copies) mj_deleteSpec(copies);
    *why = model_path + ": " + (fatal.empty() ? std::string(error) : fatal);
    return "";
  }
  auto fail = [&](const std::string& reason) {
    *why = reason;
    mj_deleteSpec(spec);
    mj_deleteSpec(copies);
    return std::string();
  };
  // the bodies are moved by attaching copies from a second parse, which must not bring
  // keyframes, equalities or plugin instances along
  for (mjtObj t : {mjOBJ_KEY, mjOBJ_EQUALITY, mjOBJ_PLUGIN}) DeleteAll(copies, t);
  DeleteAll(spec, mjOBJ_KEY);
  for (int eq : FindUKWelds(m, model_path)) {
    if (mjsElement* e = mjs_findElement(spec, mjOBJ_EQUALITY, mj_id2name(m, mjOBJ_EQUALITY, eq))) mjs_delete(spec, e);
  }
  // strip the copies' free joints first (a UK-connected body moves by exactly its free
  // joint: FindUKWelds), then attach them
  for (const auto& [body, pose] : poses) {
    if (body == pose.root) continue;
    mjsBody* copy = mjs_findBody(copies, mj_id2name(m, mjOBJ_BODY, body));
    if (!copy) continue;
    if (mjsElement* joint = mjs_firstChild(copy, mjOBJ_JOINT, 0)) mjs_delete(copies, joint);
  }
  for (const auto& [body, pose] : poses) {
    if (body == pose.root) continue;
    const char* name = mj_id2name(m, mjOBJ_BODY, body);
    const char* root_name = mj_id2name(m, mjOBJ_BODY, pose.root);
    mjsBody* target = root_name ? mjs_findBody(spec, root_name) : nullptr;
    mjsBody* old = name ? mjs_findBody(spec, name) : nullptr;
    mjsBody* copy = name ? mjs_findBody(copies, name) : nullptr;
    if (!target || !old || !copy) return fail("unnamed body");
    mjs_delete(spec, old->element);
    for (int i = 0; i < 3; ++i) copy->pos[i] = pose.position[i];
    const Quat& q = pose.orientation;
    copy->quat[0] = q.w();
    copy->quat[1] = q.x();
    copy->quat[2] = q.y();
    copy->quat[3] = q.z();
    copy->alt.type = mjORIENTATION_QUAT;
    mjsFrame* frame = mjs_addFrame(target, nullptr);
    if (!frame || !mjs_attach(frame->element, copy->element, "", "")) {
      return fail(std::string("mjs_attach failed: ") + mjs_getError(spec));
    }
  }
  // compiled without MuJoCo's length-range computation, which can loop forever
  // (length_range.h); the merged MJCF is loaded through nereid::Simulation, which runs it
  // (with MuJoCo's default options: MuJoCo 3.14's XML writer leaves <lengthrange> out)
  const mjLROpt length_range = spec->compiler.LRopt;
  spec->compiler.LRopt.mode = mjLRMODE_NONE;
  mjModel* merged = nullptr;
  if (!CallMuJoCo([&] { merged = mj_compile(spec, nullptr); }, nullptr, &fatal)) {
    return fail("the merged model does not compile: " + fatal);
  }
  spec->compiler.LRopt = length_range;
  if (!merged) return fail(std::string("the merged model does not compile: ") + mjs_getError(spec));
  mj_deleteModel(merged);
  std::vector<char> xml(1 << 22);
  int n = -1;
  char* buffer = xml.data();
  const int size = static_cast<int>(xml.size());
  if (!CallMuJoCo([&] { n = mj_saveXMLString(spec, buffer, size, error, sizeof(error)); }, nullptr, &fatal)) {
    std::snprintf(error, sizeof(error), "%s", fatal.c_str());
  }
  mj_deleteSpec(spec);
  mj_deleteSpec(copies);
  if (n != 0) {
    *why = std::string("cannot write the merged MJCF: ") + error;
    return "";
  }
  std::string text(xml.data());
  // the model's own <extension> block back (see merge.h)
  std::ifstream in(model_path);
  const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t o0 = original.find("<extension>"), o1 = original.find("</extension>");
  const size_t t0 = text.find("<extension>"), t1 = text.find("</extension>");
  if (o0 != std::string::npos && o1 != std::string::npos && t0 != std::string::npos && t1 != std::string::npos) {
    text.replace(t0, t1 - t0, original.substr(o0, o1 - o0));
  }
  // MuJoCo 3.14 writes the attached copy's (empty) default class as a nameless nested
  // <default/>, which its own parser rejects; it carries nothing, so it goes
  for (size_t at = text.find("<default/>"); at != std::string::npos; at = text.find("<default/>")) {
    text.erase(at, std::string("<default/>").size());
  }
  return text;
}

}  // namespace nereid::uk
