// Copyright Nereid authors.
// ExpandTethers: the lumped tether's bodies generated from its compact spec, before compile.
//
// The spec is compiled once as it is, to read the instances' <config> (validated by
// tether::Config::FromModel) and to place the anchor and the vehicle site in the world at
// qpos0 and at each keyframe. The chain is then added under the anchor body (the world or a
// named body), one capsule body per segment with a ball joint at its start (and a slide
// joint along it when axial_stiffness > 0), laid out so that its far end is exactly at the
// vehicle site; a `connect` equality closes it there. With coordinates = maximal the same
// segments are free bodies of the world, placed at their world poses and joined by
// `connect` equalities (to the anchor, to each other, to the site). Keyframes that give a
// qpos get the tether's joint values for their own vehicle pose.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "nereid/error.h"
#include "nereid/mujoco_log.h"
#include "nereid/plugins.h"
#include "nereid/tether.h"
#include "tether/tether_plugin.h"

namespace nereid {
namespace {

using Quat = Eigen::Quaterniond;

struct ModelDeleter { void operator()(mjModel* m) const { mj_deleteModel(m); } };
struct DataDeleter { void operator()(mjData* d) const { mj_deleteData(d); } };

// MuJoCo's soft-constraint parameters of the connect at the vehicle: the stiffest time
// constant MuJoCo accepts at the model's step (2 dt), critically damped, and an impedance
// close to 1, so that the steady stretch of the joint under the tether's pull is small
// (about (1 - d) tc^2 F / m_end; docs/tether.md).
constexpr double kConnectImpedance[] = {0.99, 0.999, 0.001, 0.5, 2};

Quat WorldQuat(const mjData* d, int body) {
  return Quat(d->xquat[4 * body], d->xquat[4 * body + 1], d->xquat[4 * body + 2],
              d->xquat[4 * body + 3]);
}

struct Layout {
  std::vector<Quat> orientation;  // world orientation of each segment (x along it)
};

// Segments from the anchor a to the site b (or hanging down from a for a free end): a V
// (even count) or a trapezoid (odd count) in the vertical plane through a and b, sagging
// along gravity, whose end is exactly b. Throws if the tether is shorter than |b - a|.
Layout LayOut(const tether::Config& c, const Vec3& a, const Vec3* b, const Vec3& down,
              const std::string& where) {
  const int n = c.segments;
  const double l = c.segment_length();
  std::vector<Vec3> directions;
  if (!b) {
    directions.assign(static_cast<size_t>(n), down);
  } else {
    const Vec3 ab = *b - a;
    const double distance = ab.norm();
    if (distance > c.length * (1 + 1e-9)) {
      char buffer[128];
      std::snprintf(buffer, sizeof(buffer), "key 'length' = '%g': shorter than the distance %g m",
                    c.length, distance);
      throw ConfigError(std::string(kTetherPlugin) + " instance '" + c.name + "': " + buffer +
                        " from the anchor to site '" + c.site + "' " + where);
    }
    const Vec3 u = distance > 0 ? Vec3(ab / distance) : down;
    Vec3 s = down - down.dot(u) * u;
    if (s.norm() < 1e-9) {  // anchor straight above or below the site: sag along world x
      s = Vec3::UnitX() - Vec3::UnitX().dot(u) * u;
      if (s.norm() < 1e-9) s = Vec3::UnitY() - Vec3::UnitY().dot(u) * u;
    }
    s.normalize();
    const int k = n / 2, middle = n % 2;
    if (k == 0) {
      directions.push_back(u);
    } else {
      const double cos_t = std::clamp((distance - middle * l) / (2 * k * l), -1.0, 1.0);
      const double sin_t = std::sqrt(std::max(0.0, 1 - cos_t * cos_t));
      for (int i = 0; i < k; ++i) directions.push_back(cos_t * u + sin_t * s);
      if (middle) directions.push_back(u);
      for (int i = 0; i < k; ++i) directions.push_back(cos_t * u - sin_t * s);
    }
  }
  Layout layout;
  for (const Vec3& t : directions) {
    layout.orientation.push_back(Quat::FromTwoVectors(Vec3::UnitX(), t.normalized()));
  }
  return layout;
}

void SetString(mjString* s, const std::string& text) { mjs_setString(s, text.c_str()); }

std::string KeyframeWhere(size_t index, const mjsKey* key) {
  const char* name = mjs_getString(mjs_getName(key->element));
  return "in keyframe " + std::to_string(index) + (name[0] ? " '" + std::string(name) + "'" : "");
}

std::string SegmentName(const tether::Config& c, int k) { return c.name + "_seg" + std::to_string(k); }

// A stiff connect between two named objects: the time constant and impedance of the one at
// the vehicle (kConnectImpedance), at the model's step
void AddConnect(mjSpec* spec, double timestep, const std::string& name, mjtObj type,
                const std::string& name1, const std::string& name2) {
  mjsEquality* eq = mjs_addEquality(spec, nullptr);
  mjs_setName(eq->element, name.c_str());
  eq->type = mjEQ_CONNECT;
  eq->objtype = type;
  SetString(eq->name1, name1);
  SetString(eq->name2, name2);
  eq->active = 1;
  for (int j = 0; j < 3; ++j) eq->data[j] = 0;  // body1's origin (a segment's start)
  eq->solref[0] = 2 * timestep;
  eq->solref[1] = 1;
  for (int j = 0; j < mjNIMP; ++j) eq->solimp[j] = kConnectImpedance[j];
}

// The lumped tethers of one spec that still need their bodies, with the unexpanded model
// compiled once to place their anchors and sites: adds the bodies, then the keyframes'
// values for them.
class TetherExpansion {
 public:
  // nullptr when there is nothing to expand (or the spec does not compile: the caller's
  // compile reports that)
  static std::unique_ptr<TetherExpansion> Prepare(mjSpec* spec);

  void AddBodies(mjSpec* spec) const {
    mj_resetData(m(), d());
    mj_kinematics(m(), d());
    for (size_t i = 0; i < configs_.size(); ++i) AddTether(spec, i);
  }

  void SetKeyframes(mjSpec* spec) const {
    bool all_maximal = true;
    for (const tether::Config& c : configs_) all_maximal &= c.coordinates == tether::Coordinates::kMaximal;
    if (all_maximal) {
      SetKeyframesMaximal(spec);
    } else {
      SetKeyframesRecompiled(spec);
    }
  }

 private:
  const mjModel* m() const { return m0_.get(); }
  mjData* d() const { return d0_.get(); }

  // tether i's layout between its anchor and its site in the current d ("where" for errors)
  Layout LayOutNow(size_t i, const std::string& where, Quat* anchor_quat, Vec3* anchor_out = nullptr) const {
    const tether::Config& c = configs_[i];
    const int ab = anchor_ids_[i];
    *anchor_quat = WorldQuat(d(), ab);
    const Vec3 anchor = Vec3(d()->xpos[3 * ab], d()->xpos[3 * ab + 1], d()->xpos[3 * ab + 2]) +
                        *anchor_quat * c.anchor_point;
    Vec3 site;
    if (site_ids_[i] >= 0) {
      const int s = site_ids_[i];
      site = Vec3(d()->site_xpos[3 * s], d()->site_xpos[3 * s + 1], d()->site_xpos[3 * s + 2]);
    }
    if (anchor_out) *anchor_out = anchor;
    return LayOut(c, anchor, c.site.empty() ? nullptr : &site, down_, where);
  }

  void AddTether(mjSpec* spec, size_t i) const;
  mjsBody* AddSegment(mjSpec* spec, const tether::Config& c, int k, mjsBody* parent, const Quat& parent_quat,
                      const Quat& world_quat, const Vec3& start) const;
  void SetKeyframesMaximal(mjSpec* spec) const;
  void SetKeyframesRecompiled(mjSpec* spec) const;
  void TetherQpos(const mjModel* m1, const std::string& where, std::vector<double>* qpos) const;

  std::unique_ptr<mjModel, ModelDeleter> m0_;
  std::unique_ptr<mjData, DataDeleter> d0_;
  std::vector<tether::Config> configs_;
  std::vector<int> anchor_ids_, site_ids_;
  Vec3 down_;
};

std::unique_ptr<TetherExpansion> TetherExpansion::Prepare(mjSpec* spec) {
  // cheap exit: no lumped-capable instance in the spec
  bool any = false;
  for (mjsElement* e = mjs_firstElement(spec, mjOBJ_PLUGIN); e; e = mjs_nextElement(spec, e)) {
    const mjsPlugin* p = mjs_asPlugin(e);
    if (p && std::string(mjs_getString(p->plugin_name)) == kTetherPlugin) any = true;
  }
  if (!any) return nullptr;

  auto x = std::make_unique<TetherExpansion>();
  {
    TetherExpansionScope expanding;
    x->m0_.reset(mj_compile(spec, nullptr));
  }
  if (!x->m0_) return nullptr;  // the caller's compile reports the error
  mjModel* m0 = x->m0_.get();
  for (int instance : FindPluginInstances(m0, kTetherPlugin)) {
    tether::Config c = tether::Config::FromModel(m0, instance);
    if (c.model != tether::Model::kLumped) continue;
    if (mj_name2id(m0, mjOBJ_BODY, SegmentName(c, 0).c_str()) >= 0) continue;  // done
    x->configs_.push_back(c);
  }
  if (x->configs_.empty()) return nullptr;

  // the anchor bodies and sites, looked up before nplugin changes (the name hash depends on it)
  for (const tether::Config& c : x->configs_) {
    x->anchor_ids_.push_back(c.anchor_body.empty() ? 0 : mj_name2id(m0, mjOBJ_BODY, c.anchor_body.c_str()));
    x->site_ids_.push_back(c.site.empty() ? -1 : mj_name2id(m0, mjOBJ_SITE, c.site.c_str()));
  }
  // kinematics of the unexpanded model (its plugins are not needed for that: an mjData
  // made with nplugin = 0 skips their init; only mj_kinematics runs on it)
  m0->nplugin = 0;
  mjData* made = nullptr;
  std::string error;
  if (!CallMuJoCo([&] { made = mj_makeData(m0); }, nullptr, &error)) {
    throw ConfigError(std::string(kTetherPlugin) + ": MuJoCo error while laying out the tether: " + error);
  }
  x->d0_.reset(made);
  if (!x->d0_) throw ConfigError(std::string(kTetherPlugin) + ": could not lay out the tether");
  Vec3 down(m0->opt.gravity[0], m0->opt.gravity[1], m0->opt.gravity[2]);
  x->down_ = down.norm() > 0 ? Vec3(down.normalized()) : Vec3(-Vec3::UnitZ());
  return x;
}

// Tether i's segment bodies laid out at qpos0, their joints (or free joints and connects),
// the end site and the connect at the vehicle
void TetherExpansion::AddTether(mjSpec* spec, size_t i) const {
  const tether::Config& c = configs_[i];
  Quat anchor_quat;
  Vec3 anchor;
  const Layout layout = LayOutNow(i, "at qpos0", &anchor_quat, &anchor);
  const double l = c.segment_length();
  const bool maximal = c.coordinates == tether::Coordinates::kMaximal;
  mjsBody* world = mjs_findBody(spec, "world");
  mjsBody* anchor_body = c.anchor_body.empty() ? world : mjs_findBody(spec, c.anchor_body.c_str());
  if (!anchor_body) {
    throw ConfigError(std::string(kTetherPlugin) + " instance '" + c.name +
                      "': key 'anchor_body' = '" + c.anchor_body + "': body not found in the spec");
  }
  mjsBody* parent = anchor_body;
  Quat parent_quat = anchor_quat;
  Vec3 start = anchor;  // world position of segment k's start (maximal)
  for (int k = 0; k < c.segments; ++k) {
    const Quat& world_quat = layout.orientation[static_cast<size_t>(k)];
    // a maximal segment is a body of the world (found once here, not per segment)
    parent = AddSegment(spec, c, k, maximal ? world : parent, parent_quat, world_quat, start);
    parent_quat = world_quat;
    start += l * (world_quat * Vec3::UnitX());
  }
  mjsSite* end = mjs_addSite(parent, nullptr);
  mjs_setName(end->element, (c.name + "_end").c_str());
  end->pos[0] = l; end->pos[1] = 0; end->pos[2] = 0;
  end->size[0] = 0.5 * c.diameter;
  end->group = 2;
  if (!c.site.empty()) AddConnect(spec, m()->opt.timestep, c.name + "_connect", mjOBJ_SITE, c.name + "_end", c.site);
}

// Segment k, a child of `parent`: reduced, the previous segment (the anchor body for the
// first), placed in its frame, with a ball joint (and a slide joint when axially elastic);
// maximal, the world: a free body at its world pose, connected to the previous one.
// Returns its body.
mjsBody* TetherExpansion::AddSegment(mjSpec* spec, const tether::Config& c, int k, mjsBody* parent,
                                     const Quat& parent_quat, const Quat& world_quat, const Vec3& start) const {
  const double l = c.segment_length();
  const double area = 0.25 * M_PI * c.diameter * c.diameter;
  const double mass = (c.mass_per_metre + c.added_mass_coefficient * c.fluid_density * area) * l;
  const double transverse = mass * l * l / 12;
  // a thin rod's own-axis inertia m r^2 / 2 is tiny and nothing twists a segment (all
  // its forces act on its axis): floored at 1e-3 of the transverse one for conditioning
  const double axial = std::max(0.5 * mass * 0.25 * c.diameter * c.diameter, 1e-3 * transverse);
  const bool maximal = c.coordinates == tether::Coordinates::kMaximal;
  mjsBody* body = mjs_addBody(parent, nullptr);
  const std::string name = SegmentName(c, k);
  mjs_setName(body->element, name.c_str());
  const Vec3 pos = maximal ? start : (k == 0 ? c.anchor_point : Vec3(l, 0, 0));
  const Quat q = maximal ? world_quat : (parent_quat.conjugate() * world_quat).normalized();
  for (int j = 0; j < 3; ++j) body->pos[j] = pos[j];
  body->quat[0] = q.w(); body->quat[1] = q.x(); body->quat[2] = q.y(); body->quat[3] = q.z();
  body->explicitinertial = 1;
  body->mass = mass;
  body->ipos[0] = 0.5 * l; body->ipos[1] = 0; body->ipos[2] = 0;
  body->iquat[0] = 1; body->iquat[1] = body->iquat[2] = body->iquat[3] = 0;
  body->inertia[0] = axial; body->inertia[1] = transverse; body->inertia[2] = transverse;
  if (maximal) {
    mjsJoint* free = mjs_addJoint(body, nullptr);
    free->type = mjJNT_FREE;
    mjs_setName(free->element, (c.name + "_free" + std::to_string(k)).c_str());
    // joined to the previous segment's end (or the anchor point) at its start; MuJoCo
    // computes body2's point from this layout
    AddConnect(spec, m()->opt.timestep, c.name + "_link" + std::to_string(k), mjOBJ_BODY, name,
               k == 0 ? (c.anchor_body.empty() ? "world" : c.anchor_body) : SegmentName(c, k - 1));
  } else {
    mjsJoint* ball = mjs_addJoint(body, nullptr);
    ball->type = mjJNT_BALL;
    ball->damping[0] = c.bending_damping;
    mjs_setName(ball->element, (c.name + "_ball" + std::to_string(k)).c_str());
    if (c.axial_stiffness > 0) {
      mjsJoint* slide = mjs_addJoint(body, nullptr);
      slide->type = mjJNT_SLIDE;
      slide->axis[0] = 1; slide->axis[1] = 0; slide->axis[2] = 0;
      slide->stiffness[0] = c.axial_stiffness / l;
      mjs_setName(slide->element, (c.name + "_axial" + std::to_string(k)).c_str());
    }
  }
  mjsGeom* geom = mjs_addGeom(body, nullptr);
  geom->type = mjGEOM_CAPSULE;
  geom->fromto[0] = 0; geom->fromto[1] = 0; geom->fromto[2] = 0;
  geom->fromto[3] = l; geom->fromto[4] = 0; geom->fromto[5] = 0;
  geom->size[0] = 0.5 * c.diameter;
  geom->contype = 0;
  geom->conaffinity = 0;
  geom->group = 1;
  geom->mass = 0;
  geom->density = 0;
  geom->rgba[0] = 0.95f; geom->rgba[1] = 0.75f; geom->rgba[2] = 0.1f; geom->rgba[3] = 1;
  return body;
}

// Keyframes with maximal coordinates only need no second compile: the segments are the
// world's last children, so MuJoCo's depth-first order puts their free joints after every
// joint of the model, tether by tether, segment by segment: qpos gains (position,
// quaternion) per segment and qvel six zeros.
void TetherExpansion::SetKeyframesMaximal(mjSpec* spec) const {
  size_t index = 0;
  for (mjsElement* e = mjs_firstElement(spec, mjOBJ_KEY); e; e = mjs_nextElement(spec, e), ++index) {
    mjsKey* key = mjs_asKey(e);
    int nq = 0, nv = 0;
    const double* qpos_data = mjs_getDouble(key->qpos, &nq);
    const double* qvel_data = mjs_getDouble(key->qvel, &nv);
    const std::string where = KeyframeWhere(index, key);
    if (nq > 0 && nq != m()->nq) {
      throw ConfigError(where + ": qpos has " + std::to_string(nq) +
                        " values, the model (before the tether is added) has " + std::to_string(m()->nq));
    }
    if (nq == m()->nq && nq > 0) {
      std::vector<double> qpos(qpos_data, qpos_data + nq);
      mju_copy(d()->qpos, qpos_data, static_cast<int>(m()->nq));
      mj_kinematics(m(), d());
      for (size_t i = 0; i < configs_.size(); ++i) {
        Quat anchor_quat;
        Vec3 start;
        const Layout layout = LayOutNow(i, where, &anchor_quat, &start);
        for (const Quat& q : layout.orientation) {
          qpos.insert(qpos.end(), {start.x(), start.y(), start.z(), q.w(), q.x(), q.y(), q.z()});
          start += configs_[i].segment_length() * (q * Vec3::UnitX());
        }
      }
      mjs_setDouble(key->qpos, qpos.data(), static_cast<int>(qpos.size()));
    }
    if (nv == m()->nv && nv > 0) {
      std::vector<double> qvel(qvel_data, qvel_data + nv);
      for (const tether::Config& c : configs_) qvel.resize(qvel.size() + 6 * static_cast<size_t>(c.segments), 0.0);
      mjs_setDouble(key->qvel, qvel.data(), static_cast<int>(qvel.size()));
    }
  }
}

// The tethers' joint values in the expanded model m1's qpos for the vehicle pose now in d
void TetherExpansion::TetherQpos(const mjModel* m1, const std::string& where, std::vector<double>* qpos) const {
  for (size_t i = 0; i < configs_.size(); ++i) {
    const tether::Config& c = configs_[i];
    Quat anchor_quat;
    Vec3 start;
    const Layout layout = LayOutNow(i, where, &anchor_quat, &start);
    Quat parent_quat = anchor_quat;
    for (int k = 0; k < c.segments; ++k) {
      const int b = mj_name2id(m1, mjOBJ_BODY, SegmentName(c, k).c_str());
      const Quat& world = layout.orientation[static_cast<size_t>(k)];
      auto adr = static_cast<size_t>(m1->jnt_qposadr[m1->body_jntadr[b]]);
      Quat joint = world;  // maximal: the free joint's world pose
      if (c.coordinates == tether::Coordinates::kMaximal) {
        for (int j = 0; j < 3; ++j) (*qpos)[adr++] = start[j];
      } else {
        const Quat body_quat(m1->body_quat[4 * b], m1->body_quat[4 * b + 1], m1->body_quat[4 * b + 2],
                             m1->body_quat[4 * b + 3]);
        joint = ((parent_quat * body_quat).conjugate() * world).normalized();
      }
      (*qpos)[adr] = joint.w();
      (*qpos)[adr + 1] = joint.x();
      (*qpos)[adr + 2] = joint.y();
      (*qpos)[adr + 3] = joint.z();
      parent_quat = world;
      start += c.segment_length() * (world * Vec3::UnitX());
    }
  }
}

// Otherwise the expanded model is compiled with the keyframes' qpos/qvel set aside, to
// learn where its joints are; old joints keep their order.
void TetherExpansion::SetKeyframesRecompiled(mjSpec* spec) const {
  struct Saved { mjsKey* key; std::vector<double> qpos, qvel; };
  std::vector<Saved> saved;
  for (mjsElement* e = mjs_firstElement(spec, mjOBJ_KEY); e; e = mjs_nextElement(spec, e)) {
    mjsKey* key = mjs_asKey(e);
    int nq = 0, nv = 0;
    const double* qpos = mjs_getDouble(key->qpos, &nq);
    const double* qvel = mjs_getDouble(key->qvel, &nv);
    Saved s{key, std::vector<double>(qpos, qpos + nq), std::vector<double>(qvel, qvel + nv)};
    mjs_setDouble(key->qpos, nullptr, 0);
    mjs_setDouble(key->qvel, nullptr, 0);
    saved.push_back(std::move(s));
  }
  if (saved.empty()) return;
  std::unique_ptr<mjModel, ModelDeleter> m1(mj_compile(spec, nullptr));
  if (!m1) {  // restore; the caller's compile reports the error
    for (Saved& s : saved) {
      mjs_setDouble(s.key->qpos, s.qpos.data(), static_cast<int>(s.qpos.size()));
      mjs_setDouble(s.key->qvel, s.qvel.data(), static_cast<int>(s.qvel.size()));
    }
    return;
  }
  // old joint j -> new joint: the new joints in order, skipping the tethers' own
  std::vector<int> old_to_new;
  std::vector<bool> is_tether(static_cast<size_t>(m1->njnt), false);
  for (const tether::Config& c : configs_) {
    for (int k = 0; k < c.segments; ++k) {
      const int b = mj_name2id(m1.get(), mjOBJ_BODY, SegmentName(c, k).c_str());
      for (int j = 0; j < m1->body_jntnum[b]; ++j) {
        is_tether[static_cast<size_t>(m1->body_jntadr[b] + j)] = true;
      }
    }
  }
  for (int j = 0; j < m1->njnt; ++j) {
    if (!is_tether[static_cast<size_t>(j)]) old_to_new.push_back(j);
  }
  const mjModel* m = this->m();
  // copies joint j's coordinates (qpos: free 7, ball 4; qvel: free 6, ball 3; else 1) from
  // the old model's layout to the new one's
  auto copy_joints = [&](const std::vector<double>& from, std::vector<double>* to, bool positions) {
    const int* old_adr = positions ? m->jnt_qposadr : m->jnt_dofadr;
    const int* new_adr = positions ? m1->jnt_qposadr : m1->jnt_dofadr;
    for (int j = 0; j < m->njnt; ++j) {
      const int jn = old_to_new[static_cast<size_t>(j)];
      const int n = m->jnt_type[j] == mjJNT_FREE   ? (positions ? 7 : 6)
                    : m->jnt_type[j] == mjJNT_BALL ? (positions ? 4 : 3)
                                                   : 1;
      for (int i = 0; i < n; ++i) {
        (*to)[static_cast<size_t>(new_adr[jn] + i)] = from[static_cast<size_t>(old_adr[j] + i)];
      }
    }
  };
  for (size_t index = 0; index < saved.size(); ++index) {
    Saved& s = saved[index];
    if (s.qpos.empty() && s.qvel.empty()) continue;
    const std::string where = KeyframeWhere(index, s.key);
    std::vector<double> qpos(m1->qpos0, m1->qpos0 + m1->nq);
    std::vector<double> qvel(static_cast<size_t>(m1->nv), 0.0);
    if (s.qpos.size() == static_cast<size_t>(m->nq)) {
      copy_joints(s.qpos, &qpos, true);
      // lay the tethers out for this keyframe's vehicle pose
      mju_copy(d()->qpos, s.qpos.data(), static_cast<int>(m->nq));
      mj_kinematics(m, d());
      TetherQpos(m1.get(), where, &qpos);
    } else if (!s.qpos.empty()) {
      throw ConfigError(where + ": qpos has " + std::to_string(s.qpos.size()) +
                        " values, the model (before the tether is added) has " + std::to_string(m->nq));
    }
    if (s.qvel.size() == static_cast<size_t>(m->nv)) copy_joints(s.qvel, &qvel, false);
    if (!s.qpos.empty()) mjs_setDouble(s.key->qpos, qpos.data(), static_cast<int>(m1->nq));
    if (!s.qvel.empty()) mjs_setDouble(s.key->qvel, qvel.data(), static_cast<int>(m1->nv));
  }
}

}  // namespace

void ExpandTethers(mjSpec* spec) {
  const std::unique_ptr<TetherExpansion> expansion = TetherExpansion::Prepare(spec);
  if (!expansion) return;
  expansion->AddBodies(spec);
  expansion->SetKeyframes(spec);
}

}  // namespace nereid
