// Copyright Nereid authors.
#include "tether/tether_plugin.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/config_reader.h"
#include "common/plugin_base.h"
#include "current/current_plugin.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/plugins.h"

namespace nereid {
namespace {

Vec3 Gravity(const mjModel* m) {
  if (m->opt.disableflags & mjDSBL_GRAVITY) return Vec3::Zero();
  return Vec3(m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]);
}

Vec3 Point(const mjtNum* x) { return Vec3(x[0], x[1], x[2]); }

thread_local int g_expansion_depth = 0;

// number of intervals of the composite Simpson rule over the tether's depth (eq. 3.21)
constexpr int kSimpsonIntervals = 16;

// The forces on one lumped segment from p0 along `axis` (world): Morison drag on the flow
// past its submerged part and that part's buoyancy (`wet`, at `point`, the submerged part's
// centre), and the cancelled weight of its added mass (`lift`, at `centre`). velocity(x)
// is the segment's world velocity at x.
struct SegmentForces {
  tether::DragForce drag;
  Vec3 wet, point, lift, centre;
};

template <class Velocity>
SegmentForces ForcesOnSegment(const tether::Config& config, const Vec3& g, const CurrentField* water,
                              double time, const Vec3& p0, const Vec3& axis, Velocity&& velocity_at) {
  const double L = config.segment_length();
  const Vec3 p1 = p0 + L * axis;
  double z_mid = 0;
  const double fraction = tether::SubmergedFraction(p0.z(), p1.z(), &z_mid);
  SegmentForces f;
  f.point = p0 + 0.5 * L * axis;
  if (fraction < 1 && std::abs(p1.z() - p0.z()) > 0) {
    f.point = p0 + ((z_mid - p0.z()) / (p1.z() - p0.z())) * (p1 - p0);
  }
  const Vec3 velocity = velocity_at(f.point);
  Vec3 flow = -velocity;
  if (water) flow += water->Velocity(time, f.point);
  const tether::Morison morison{config.fluid_density, config.diameter, config.cd_normal,
                                config.cd_tangential};
  f.drag = fraction > 0 ? tether::MorisonDrag(flow, axis, L * fraction, morison) : tether::DragForce{};
  f.wet = f.drag.total() + tether::CylinderBuoyancy(config.fluid_density, config.diameter, L * fraction, g);
  // the added mass is in the body's mass (inertia) but has no weight
  const double added_mass = config.added_mass_coefficient * config.fluid_density * config.area() * L;
  f.lift = -added_mass * g;
  f.centre = p0 + 0.5 * L * axis;
  return f;
}

}  // namespace

TetherExpansionScope::TetherExpansionScope() { ++g_expansion_depth; }
TetherExpansionScope::~TetherExpansionScope() { --g_expansion_depth; }
bool TetherExpansionScope::active() { return g_expansion_depth > 0; }

namespace tether {

double Config::area() const { return 0.25 * M_PI * diameter * diameter; }

double Config::wet_weight_per_metre(double g) const {
  return (mass_per_metre - fluid_density * area()) * g;
}

Config Config::FromModel(const mjModel* m, int instance) {
  ConfigReader reader(m, instance, kTetherPlugin);
  Config c;
  const char* name = mj_id2name(m, mjOBJ_PLUGIN, instance);
  if (!name || !*name) {
    throw ConfigError(reader.where() + ": the instance needs a name (<instance name=\"...\">): "
                      "the segment bodies are named after it");
  }
  c.name = name;
  namespace k = tether_keys;
  if (!ParseName(kModelNames, *reader.Text(k::kModel), &c.model)) {
    reader.Fail(k::kModel, "expected " + NameChoices(kModelNames, '\''));
  }
  if (!ParseName(kCoordinatesNames, *reader.Text(k::kCoordinates), &c.coordinates)) {
    reader.Fail(k::kCoordinates, "expected " + NameChoices(kCoordinatesNames, '\''));
  }
  c.site = reader.Raw(k::kSite).value_or("");
  if (!c.site.empty() && mj_name2id(m, mjOBJ_SITE, c.site.c_str()) < 0) {
    reader.Fail(k::kSite, "no site of that name in the model");
  }
  if (c.site.empty() && c.model == Model::kAnalytic) {
    reader.FailMissing(k::kSite, "the vehicle site the analytic tether force acts at");
  }
  c.anchor_body = *reader.Text(k::kAnchorBody);
  if (c.anchor_body != "world" && mj_name2id(m, mjOBJ_BODY, c.anchor_body.c_str()) < 0) {
    reader.Fail(k::kAnchorBody, "no body of that name in the model");
  }
  if (c.anchor_body == "world") c.anchor_body.clear();
  c.anchor_point = *reader.Vector3(k::kAnchorPoint);

  c.length = reader.Numbers(k::kLength, 1)->front();
  if (!(c.length > 0)) reader.Fail(k::kLength, "must be > 0 (m)");
  c.diameter = reader.Numbers(k::kDiameter, 1)->front();
  if (!(c.diameter > 0)) reader.Fail(k::kDiameter, "must be > 0 (m)");
  c.mass_per_metre = reader.Numbers(k::kMassPerMetre, 1)->front();
  if (!(c.mass_per_metre > 0)) reader.Fail(k::kMassPerMetre, "must be > 0 (kg/m, in air)");
  if (c.model == Model::kLumped) {
    if (!reader.Has(k::kSegments)) reader.FailMissing(k::kSegments, "1 numbers");
    const double segments = reader.Number(k::kSegments);
    const bool maximal = c.coordinates == Coordinates::kMaximal;
    const int most = maximal ? kMaxSegmentsMaximal : kMaxSegments;
    if (!(segments >= 1) || segments != std::floor(segments) || segments > most) {
      reader.Fail(k::kSegments, "must be a whole number in 1.." + std::to_string(most) +
                                    (maximal ? " with coordinates = maximal (about 1 s to load 2000)"
                                             : " (coordinates = reduced: a chain of bodies has a dense "
                                               "mass matrix, so loading and every step grow with "
                                               "segments^3, about 10 s to load 500; with coordinates = "
                                               "maximal a step grows linearly, up to " +
                                                   std::to_string(kMaxSegmentsMaximal) + ")"));
    }
    c.segments = static_cast<int>(segments);
  } else {
    c.segments = static_cast<int>(reader.Number(k::kSegments));
  }
  // non-negative coefficients with their rules
  struct Rule { const ConfigKey& key; double* value; bool positive; const char* text; };
  for (const Rule& rule : {Rule{k::kCdNormal, &c.cd_normal, false, "must be >= 0"},
                           Rule{k::kCdTangential, &c.cd_tangential, false, "must be >= 0"},
                           Rule{k::kAxialStiffness, &c.axial_stiffness, false,
                                "must be >= 0 (EA, N; 0 or absent: inextensible)"},
                           Rule{k::kBendingDamping, &c.bending_damping, false, "must be >= 0 (N m s/rad)"},
                           Rule{k::kAddedMassCoefficient, &c.added_mass_coefficient, false, "must be >= 0"},
                           Rule{k::kFluidDensity, &c.fluid_density, true, "must be > 0 (kg/m^3)"},
                           Rule{k::kAnalyticWeightFactor, &c.analytic_weight_factor, false, "must be >= 0"}}) {
    *rule.value = reader.Number(rule.key);
    if (!(rule.positive ? *rule.value > 0 : *rule.value >= 0)) reader.Fail(rule.key, rule.text);
  }
  if (c.coordinates == Coordinates::kMaximal && c.axial_stiffness > 0) {
    reader.Fail(k::kAxialStiffness, "needs coordinates = reduced (its slide joints); with "
                                    "coordinates = maximal the links are inextensible connects");
  }
  if (c.coordinates == Coordinates::kMaximal && c.bending_damping > 0) {
    reader.Fail(k::kBendingDamping, "needs coordinates = reduced (MuJoCo integrates joint damping "
                                    "implicitly; between free bodies it would be an explicit torque, "
                                    "unstable at a thin segment's inertia)");
  }
  return c;
}

}  // namespace tether

std::unique_ptr<Tether> Tether::Create(const mjModel* m, mjData*, int instance) {
  auto t = std::make_unique<Tether>();
  t->config_ = tether::Config::FromModel(m, instance);
  const tether::Config& c = t->config_;
  t->current_instance_ = FindCurrentInstance(m);
  if (!c.site.empty()) {
    t->site_ = mj_name2id(m, mjOBJ_SITE, c.site.c_str());
    t->site_body_ = m->site_bodyid[t->site_];
    t->site_free_dof_ = FreeJointDof(m, t->site_body_);
  }
  t->anchor_body_ = c.anchor_body.empty() ? 0 : mj_name2id(m, mjOBJ_BODY, c.anchor_body.c_str());
  if (c.model == tether::Model::kAnalytic) return t;

  for (int k = 0; k < c.segments; ++k) {
    const std::string body = c.name + "_seg" + std::to_string(k);
    const int id = mj_name2id(m, mjOBJ_BODY, body.c_str());
    if (id < 0 && TetherExpansionScope::active()) {  // being expanded: stay dormant
      t->segments_.clear();
      t->inertial_mass_.clear();
      t->dormant_ = true;
      return t;
    }
    if (id < 0) {
      throw ConfigError(std::string(kName) + " instance '" + c.name + "': key 'model' = "
                        "'lumped': the segment body '" + body + "' is missing: the tether's "
                        "bodies are generated before compile by nereid::ExpandTethers (which "
                        "nereid::Simulation and `nereid run` call). In stock MuJoCo call it "
                        "on the mjSpec before mj_compile, or use model=analytic.");
    }
    t->segments_.push_back(id);
    const double mass_tether = c.mass_per_metre * c.segment_length();
    t->inertial_mass_.push_back(m->body_mass[id] > mass_tether ? m->body_mass[id] : mass_tether);
  }
  t->end_site_ = mj_name2id(m, mjOBJ_SITE, (c.name + "_end").c_str());
  t->equality_ = mj_name2id(m, mjOBJ_EQUALITY, (c.name + "_connect").c_str());
  if (c.coordinates == tether::Coordinates::kMaximal) {
    for (int b : t->segments_) {
      t->segment_dofs_.push_back(FreeJointDof(m, b));
      if (t->segment_dofs_.back() < 0) {
        throw ConfigError(std::string(kName) + " instance '" + c.name + "': segment body '" +
                          mj_id2name(m, mjOBJ_BODY, b) + "' has no free joint (coordinates = maximal)");
      }
    }
  } else {
    for (int b = t->segments_.back(); b > 0; b = m->body_parentid[b]) t->chain_.push_back(b);
  }
  t->drag_.assign(t->segments_.size(), {});
  t->applied_.assign(t->segments_.size(), Vec3::Zero());
  return t;
}

void Tether::Reset() noexcept {
  std::fill(drag_.begin(), drag_.end(), tether::DragForce{});
  std::fill(applied_.begin(), applied_.end(), Vec3::Zero());
  analytic_force_.setZero();
}

void Tether::Compute(const mjModel* m, mjData* d, int) noexcept {
  if (dormant_) return;
  if (config_.model == tether::Model::kAnalytic) {
    ComputeAnalytic(m, d);
  } else if (config_.coordinates == tether::Coordinates::kMaximal) {
    ComputeMaximal(m, d);
  } else {
    ComputeLumped(m, d);
  }
}

void Tether::ComputeMaximal(const mjModel* m, mjData* d) noexcept {
  const Vec3 g = Gravity(m);
  const CurrentField* water = CurrentPlugin::Field(d, current_instance_);
  // each segment's forces go straight to its own free joint (world-frame linear,
  // body-frame angular dofs)
  for (size_t i = 0; i < segments_.size(); ++i) {
    const int b = segments_[i];
    const int dof = segment_dofs_[i];
    const Mat3 R = BodyRotation(d, b);
    const Vec3 p0 = Point(d->xpos + 3 * b);
    const Vec3 omega = R * Point(d->qvel + dof + 3);
    const SegmentForces f = ForcesOnSegment(config_, g, water, d->time, p0, R.col(0), [&](const Vec3& x) {
      return Vec3(Point(d->qvel + dof) + omega.cross(x - p0));
    });
    drag_[i] = f.drag;
    applied_[i] = f.wet + f.lift;
    ApplyWrench(m, d, b, dof, f.wet, Vec3::Zero(), f.point, d->qfrc_passive);
    ApplyWrench(m, d, b, dof, f.lift, Vec3::Zero(), f.centre, d->qfrc_passive);
  }
}

void Tether::ComputeLumped(const mjModel* m, mjData* d) noexcept {
  const Vec3 g = Gravity(m);
  const CurrentField* water = CurrentPlugin::Field(d, current_instance_);
  const Vec3 c = Point(d->subtree_com + 3 * m->body_rootid[segments_.front()]);

  // every force of one segment as a world wrench about c: [torque; force]
  Vec6 total = Vec6::Zero();
  size_t next = segments_.size();  // segments_ are visited from the far end down
  for (int b : chain_) {
    if (next > 0 && b == segments_[next - 1]) {
      const size_t i = --next;
      const Vec3 p0 = Point(d->xpos + 3 * b);
      const Vec3 axis(d->xmat[9 * b], d->xmat[9 * b + 3], d->xmat[9 * b + 6]);
      const mjtNum* cvel = d->cvel + 6 * b;
      const SegmentForces f = ForcesOnSegment(config_, g, water, d->time, p0, axis, [&](const Vec3& x) {
        return Vec3(Point(cvel + 3) + Point(cvel).cross(x - c));
      });
      drag_[i] = f.drag;
      applied_[i] = f.wet + f.lift;
      total.head<3>() += (f.point - c).cross(f.wet) + (f.centre - c).cross(f.lift);
      total.tail<3>() += applied_[i];
    }
    const int adr = m->body_dofadr[b];
    for (int k = 0; k < m->body_dofnum[b]; ++k) {
      const mjtNum* cdof = d->cdof + 6 * (adr + k);
      d->qfrc_passive[adr + k] += Point(cdof).dot(total.head<3>()) +
                                  Point(cdof + 3).dot(total.tail<3>());
    }
  }
}

void Tether::ComputeAnalytic(const mjModel* m, mjData* d) noexcept {
  const int b = site_body_;
  const Mat3 R = BodyRotation(d, b);
  Vec3 velocity;  // world velocity of the vehicle's origin
  if (site_free_dof_ >= 0) {
    velocity = Point(d->qvel + site_free_dof_);
  } else {
    velocity = R * BodyVelocity(m, d, b).head<3>();
  }
  const Vec3 site = Point(d->site_xpos + 3 * site_);
  Vec3 anchor = config_.anchor_point;
  if (anchor_body_ > 0) anchor = BodyPosition(d, anchor_body_) + BodyRotation(d, anchor_body_) * anchor;
  const double h = std::max(0.0, anchor.z() - site.z());
  const CurrentField* water = CurrentPlugin::Field(d, current_instance_);
  double ix = 0, iy = 0;
  if (h > 0) {
    for (int k = 0; k <= kSimpsonIntervals; ++k) {
      const double z = site.z() + h * k / kSimpsonIntervals;
      const double w = (k == 0 || k == kSimpsonIntervals) ? 1 : (k % 2 ? 4 : 2);
      Vec3 relative = velocity;
      if (water) relative -= water->Velocity(d->time, Vec3(site.x(), site.y(), z));
      const Vec3 body = R.transpose() * relative;
      ix += w * std::abs(body.x()) * body.x();
      iy += w * std::abs(body.y()) * body.y();
    }
    ix *= h / (3.0 * kSimpsonIntervals);
    iy *= h / (3.0 * kSimpsonIntervals);
  }
  const double g = Gravity(m).norm();
  const Vec3 f = tether::AnalyticTetherForce(config_.fluid_density, config_.diameter,
                                             config_.cd_normal, ix, iy,
                                             config_.wet_weight_per_metre(g), h,
                                             config_.analytic_weight_factor);
  analytic_force_ = R * Vec3(f.x(), f.y(), 0) - Vec3(0, 0, f.z());
  ApplyWrench(m, d, b, site_free_dof_, analytic_force_, Vec3::Zero(), site, d->qfrc_passive);
}

void Tether::RegisterPlugin() { RegisterPassivePlugin<Tether>(); }

namespace tether {

Readout Read(const mjModel* m, mjData* d, int instance) {
  int slot = -1;
  if (instance < 0 || instance >= m->nplugin || !mjp_getPlugin(kTetherPlugin, &slot) ||
      m->plugin[instance] != slot) {
    throw ConfigError("plugin instance " + std::to_string(instance) + " is not a " +
                      kTetherPlugin + " instance");
  }
  const Tether* t = PluginObject<Tether>(d, instance);
  Readout r;
  if (!t) return r;
  if (t->config().model == Model::kAnalytic) {
    r.vehicle_force = t->last_analytic_force();
    return r;
  }
  const std::vector<int>& segments = t->segment_bodies();
  if (segments.empty()) return r;
  // the constraint force on the tether's end (obj1 of the connect); the vehicle gets -f
  Vec3 end_force = Vec3::Zero();
  if (t->equality() >= 0) {
    int row = 0;
    for (int e = 0; e < d->nefc && row < 3; ++e) {
      if (d->efc_type[e] == mjCNSTR_EQUALITY && d->efc_id[e] == t->equality()) {
        end_force[row++] = d->efc_force[e];
      }
    }
  }
  r.vehicle_force = -end_force;
  for (int b : segments) r.nodes.push_back(BodyPosition(d, b));
  r.nodes.push_back(t->end_site() >= 0 ? Point(d->site_xpos + 3 * t->end_site())
                                       : r.nodes.back());
  r.drag = t->last_drag();

  // force balance of each segment from the far end: the parent's force on segment i is
  // m_i (a_i - g) - F_i - (force of segment i+1 on i); MuJoCo's RNE gives a - g (it
  // accelerates the world by -g)
  mj_rnePostConstraint(m, d);
  r.tension.assign(segments.size() + 1, 0.0);
  r.tension.back() = end_force.norm();
  Vec3 from_child = end_force;
  for (size_t k = segments.size(); k-- > 0;) {
    const int b = segments[k];
    mjtNum acc[6];
    mj_objectAcceleration(m, d, mjOBJ_BODY, b, acc, 0);
    const Vec3 parent = m->body_mass[b] * Point(acc + 3) - t->last_applied()[k] - from_child;
    r.tension[k] = parent.norm();
    from_child = -parent;
  }
  return r;
}

}  // namespace tether
}  // namespace nereid
