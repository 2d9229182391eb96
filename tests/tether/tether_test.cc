// Copyright Nereid authors.
// nereid.tether in Nereid's engine: the lumped cable (Morison drag on a segment, rest,
// tension ~ U^2, steady shape convergence and the catenary, dissipation), the analytic
// model of seed 002 eq. 3.21, keyframes of the shipped model, and configuration errors.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/error.h"
#include "nereid/plugins.h"
#include "nereid/simulation.h"
#include "nereid/tether.h"

namespace nereid {
namespace {

constexpr double kRho = 1000, kG = 9.81, kD = 0.0076;
const double kNeutral = kRho * M_PI * kD * kD / 4;  // kg/m: neutrally buoyant

using Keys = std::map<std::string, std::string>;

// joint damping that only speeds up the approach to a steady state (it acts on joint
// velocities, which vanish there: the steady shape and tensions do not depend on it)
constexpr double kSettleDamping = 0.01;  // N m s/rad

std::string Num(double x) {
  char b[64];
  std::snprintf(b, sizeof(b), "%.17g", x);
  return b;
}

std::string Model(const Keys& keys, const std::string& bodies, double dt = 0.002,
                  bool gravity = true, const std::string& current = "0 0 0",
                  const std::string& integrator = "Euler", const std::string& extra = "") {
  std::string config;
  for (const auto& [k, v] : keys) config += "      <config key='" + k + "' value='" + v + "'/>\n";
  return "<mujoco model='tether_test'>\n"
         "  <compiler inertiafromgeom='false'/>\n"
         "  <option timestep='" + Num(dt) + "' integrator='" + integrator + "' gravity='0 0 " +
         (gravity ? "-9.81" : "0") + "'/>\n"
         "  <extension>\n"
         "    <plugin plugin='nereid.current'><instance name='current'>\n"
         "      <config key='velocity' value='" + current + "'/></instance></plugin>\n"
         "    <plugin plugin='nereid.tether'><instance name='tether'>\n" + config +
         "    </instance></plugin>\n" + extra +
         "  </extension>\n"
         "  <worldbody>\n" + bodies + "  </worldbody>\n"
         "</mujoco>\n";
}

Keys Cable(double length, int segments, double mass_per_metre = kNeutral) {
  return {{"length", Num(length)}, {"segments", std::to_string(segments)},
          {"diameter", Num(kD)}, {"mass_per_metre", Num(mass_per_metre)},
          {"cd_normal", "1.2"}, {"cd_tangential", "0.01"}};
}

// a body welded to the world with the attachment site
std::string FixedVehicle(const Vec3& p) {
  return "    <body name='v' pos='" + Num(p.x()) + " " + Num(p.y()) + " " + Num(p.z()) +
         "'><site name='att'/></body>\n";
}

int TetherInstance(const mjModel* m) { return FindPluginInstances(m, kTetherPlugin).front(); }

double MaxSpeed(const mjData* d, const mjModel* m) {
  double v = 0;
  for (int i = 0; i < m->nv; ++i) v = std::max(v, std::abs(d->qvel[i]));
  return v;
}

// steps until the tether's nodes move slower than `tol` (m/s, over 0.5 s windows): true,
// or t_max: false. (The segments' spin about their own axes is undamped and moves no node.)
bool Settle(Simulation& sim, double t_max, double tol) {
  const int instance = TetherInstance(sim.model());
  std::vector<Vec3> before = tether::Read(sim.model(), sim.data(), instance).nodes;
  const double window = 0.5;
  while (sim.data()->time < t_max) {
    const double t0 = sim.data()->time;
    while (sim.data()->time < t0 + window - 1e-9) sim.Step();
    const std::vector<Vec3> after = tether::Read(sim.model(), sim.data(), instance).nodes;
    double speed = 0;
    for (size_t i = 0; i < after.size(); ++i) speed = std::max(speed, (after[i] - before[i]).norm() / window);
    before = after;
    if (speed < tol) return true;
  }
  return false;
}

TEST_SUITE("tether_lumped") {

TEST_CASE("drag on one segment in a uniform current: normal and tangential closed forms") {
  // one 0.8 m segment hanging from a world point, gravity off, current along x; the segment
  // is tilted by 35 degrees about y so the flow has both components
  const double L = 0.8, U = 0.6, tilt = 35 * M_PI / 180;
  Keys keys = Cable(L, 1);
  keys["anchor_point"] = "0 0 -3";
  auto sim = Simulation::LoadString(Model(keys, "", 0.002, false, Num(U) + " 0 0"));
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  REQUIRE(m->nv == 3);
  // the segment hangs along -z (x axis of its body): rotate about world y by `tilt`
  const Eigen::Quaterniond q(Eigen::AngleAxisd(tilt, Vec3::UnitY()));
  d->qpos[0] = q.w(); d->qpos[1] = q.x(); d->qpos[2] = q.y(); d->qpos[3] = q.z();
  sim->Forward();
  const tether::Readout r = tether::Read(m, d, TetherInstance(m));
  const int b = mj_name2id(m, mjOBJ_BODY, "tether_seg0");
  const Vec3 axis(d->xmat[9 * b], d->xmat[9 * b + 3], d->xmat[9 * b + 6]);
  const Vec3 flow(U, 0, 0);
  const Vec3 u_t = flow.dot(axis) * axis, u_n = flow - u_t;
  const Vec3 fn = 0.5 * kRho * 1.2 * kD * L * u_n.norm() * u_n;
  const Vec3 ft = 0.5 * kRho * M_PI * 0.01 * kD * L * u_t.norm() * u_t;
  const double en = (r.drag[0].normal - fn).norm(), et = (r.drag[0].tangential - ft).norm();
  MESSAGE("normal " << r.drag[0].normal.transpose() << " N (error " << en << "), tangential "
          << r.drag[0].tangential.transpose() << " N (error " << et << ")");
  CHECK(u_t.norm() > 0.1);
  CHECK(en <= 1e-12 * fn.norm());
  CHECK(et <= 1e-12 * ft.norm());
  // the generalised force on the ball joint is the moment of the force at the segment
  // centre about the anchor, in the segment's frame
  const Vec3 anchor(0, 0, -3), centre = anchor + 0.5 * L * axis;
  const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->xmat + 9 * b);
  const Vec3 moment = R.transpose() * (centre - anchor).cross(fn + ft);
  const Vec3 qfrc(d->qfrc_passive[0], d->qfrc_passive[1], d->qfrc_passive[2]);
  CHECK((qfrc - moment).norm() <= 1e-12 * moment.norm());
}

TEST_CASE("a neutrally buoyant tether in still water exerts no force on a vehicle at rest") {
  // free, neutral vehicle (buoyancy = weight) on a 10 m, 10-segment neutral tether from a
  // world point; gravity on, no current
  const std::string extra =
      "    <plugin plugin='nereid.buoyancy'><instance name='vb'>\n"
      "      <config key='body' value='v'/><config key='volume' value='0.01'/>\n"
      "      <config key='center_of_buoyancy' value='0 0 0'/></instance></plugin>\n";
  const std::string vehicle =
      "    <body name='v' pos='5 1 -7'><freejoint/>\n"
      "      <inertial pos='0 0 0' mass='10' diaginertia='0.2 0.2 0.2'/>\n"
      "      <site name='att' pos='-0.2 0 0.05'/></body>\n";
  Keys keys = Cable(10, 10);
  keys["site"] = "att";
  keys["anchor_point"] = "0 0 -1";
  auto sim = Simulation::LoadString(Model(keys, vehicle, 0.005, true, "0 0 0", "Euler", extra));
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  sim->Forward();
  tether::Readout r = tether::Read(m, d, TetherInstance(m));
  const int att = mj_name2id(m, mjOBJ_SITE, "att");
  const Vec3 site(d->site_xpos[3 * att], d->site_xpos[3 * att + 1], d->site_xpos[3 * att + 2]);
  const double layout_error = (r.nodes.back() - site).norm();
  MESSAGE("laid-out end to site: " << layout_error << " m; force at rest " << r.vehicle_force.norm() << " N");
  CHECK(layout_error <= 1e-12);
  CHECK(r.vehicle_force.norm() <= 1e-9);
  const Vec3 p0(d->qpos[0], d->qpos[1], d->qpos[2]);
  for (int k = 0; k < 1000; ++k) sim->Step();  // 5 s
  r = tether::Read(m, d, TetherInstance(m));
  const double drift = (Vec3(d->qpos[0], d->qpos[1], d->qpos[2]) - p0).norm();
  MESSAGE("after 5 s: vehicle drift " << drift << " m, force " << r.vehicle_force.norm()
          << " N, max |qvel| " << MaxSpeed(d, m));
  CHECK(drift <= 1e-9);
  CHECK(r.vehicle_force.norm() <= 1e-9);
  CHECK(MaxSpeed(d, m) <= 1e-9);
}

// steady state of a neutral 10 m tether between a world point and a fixed site 8 m away,
// in a current across the chord: returns the readout
tether::Readout SteadyCrossFlow(int segments, double U, double dt, double* t_settle,
                                const std::string& coordinates = "reduced") {
  Keys keys = Cable(10, segments);
  keys["coordinates"] = coordinates;
  keys["site"] = "att";
  keys["anchor_point"] = "0 0 -5";
  if (coordinates == "reduced") keys["bending_damping"] = Num(kSettleDamping);
  auto sim = Simulation::LoadString(
      Model(keys, FixedVehicle(Vec3(8, 0, -5)), dt, true, "0 " + Num(U) + " 0"));
  const bool settled = Settle(*sim, 150, 1e-5);
  CHECK(settled);
  *t_settle = sim->data()->time;
  sim->Forward();
  return tether::Read(sim->model(), sim->data(), TetherInstance(sim->model()));
}

TEST_CASE("tension at the vehicle grows with the square of the current speed") {
  // constant drag coefficients (the high-Reynolds regime: Re = U d / nu = 950..3800 here):
  // all loads scale with U^2 and the steady shape does not depend on U
  std::vector<double> speeds = {0.25, 0.5, 1.0}, tension;
  for (double U : speeds) {
    double t = 0;
    const tether::Readout r = SteadyCrossFlow(10, U, 0.005, &t);
    tension.push_back(r.vehicle_force.norm());
    MESSAGE("U = " << U << " m/s: T_vehicle = " << tension.back() << " N, T/U^2 = "
            << tension.back() / (U * U) << " (settled at " << t << " s)");
  }
  for (size_t i = 1; i < speeds.size(); ++i) {
    const double ratio = (tension[i] / tension[0]) / std::pow(speeds[i] / speeds[0], 2);
    MESSAGE("(T/T0) / (U/U0)^2 = " << ratio);
    CHECK(std::abs(ratio - 1) <= 1e-3);
  }
}

TEST_CASE("steady shape in a uniform current converges as the segments are refined") {
  // nodes at 1/4, 1/2, 3/4 of the length against the 32-segment solution; the lumped chain
  // converges at second order (each halving of the segments divides the error by about 4:
  // 0.068, 0.017, 0.0041, 0.00079 m against 64 segments), so three refinements and the
  // observed order show it
  auto at = [](const tether::Readout& r, int quarter) {
    return r.nodes[static_cast<size_t>(quarter * (r.nodes.size() - 1) / 4)];
  };
  double t = 0;
  const tether::Readout reference = SteadyCrossFlow(32, 0.5, 0.005, &t);
  double previous = 1e9;
  for (int n : {4, 8, 16}) {
    const tether::Readout r = SteadyCrossFlow(n, 0.5, 0.005, &t);
    double error = 0;
    for (int q = 1; q <= 3; ++q) error = std::max(error, (at(r, q) - at(reference, q)).norm());
    const double dT = std::abs(r.vehicle_force.norm() - reference.vehicle_force.norm()) /
                      reference.vehicle_force.norm();
    MESSAGE(n << " segments: max shape error " << error << " m, tension error " << dT
            << " (bow " << at(r, 2).y() << " m, T " << r.vehicle_force.norm() << " N, settled at "
            << t << " s)");
    CHECK(error < previous);
    // observed order of convergence (against a finite reference it reads a little high)
    if (n > 4) CHECK(std::log2(previous / error) >= 1.8);
    previous = error;
    if (n == 16) {
      CHECK(error <= 0.02);  // 0.2 % of the length
      CHECK(dT <= 0.01);
    }
  }
}

// span S = 8 m, length 10 m, both ends at the same depth: sag = a (cosh(S / 2a) - 1)
// with L = 2 a sinh(S / 2a); the end tension H cosh(S / 2a), H = w a
struct Catenary {
  double sag, end_tension;
};
Catenary ClosedFormCatenary() {
  const double S = 8, L = 10;
  double lo = 0.1, hi = 100;
  for (int i = 0; i < 200; ++i) {
    const double a = 0.5 * (lo + hi);
    (2 * a * std::sinh(S / (2 * a)) > L ? lo : hi) = a;
  }
  const double a = 0.5 * (lo + hi);
  const double w = 2 * kNeutral * kG;  // wet weight per metre
  return {a * (std::cosh(S / (2 * a)) - 1), w * a * std::cosh(S / (2 * a))};
}

// the settled readout of that hanging tether with n segments
tether::Readout Hang(int n, const std::string& coordinates) {
  Keys keys = Cable(10, n, 3 * kNeutral);
  keys["site"] = "att";
  keys["anchor_point"] = "0 0 -5";
  keys["coordinates"] = coordinates;
  // still water, little drag: the chain settles faster with damping on its joints
  if (coordinates == "reduced") keys["bending_damping"] = Num(10 * kSettleDamping);
  auto sim = Simulation::LoadString(Model(keys, FixedVehicle(Vec3(8, 0, -5)), 0.005, true));
  // maximal: no joint damping (see the README); the still-water swing decays by quadratic
  // drag alone, slowly once it is small
  CHECK(Settle(*sim, 150, coordinates == "reduced" ? 1e-5 : 5e-4));
  sim->Forward();
  return tether::Read(sim->model(), sim->data(), TetherInstance(sim->model()));
}

TEST_CASE("a heavy tether in still water hangs as a catenary") {
  const Catenary exact = ClosedFormCatenary();
  double previous = 1e9;
  for (int n : {4, 8, 16, 32}) {
    const tether::Readout r = Hang(n, "reduced");
    const double mid = -5 - r.nodes[r.nodes.size() / 2].z();
    const double error = std::abs(mid - exact.sag);
    MESSAGE(n << " segments: sag " << mid << " m (catenary " << exact.sag << ", error " << error
            << "), end tension " << r.vehicle_force.norm() << " N, anchor tension "
            << r.tension.front() << " N (catenary " << exact.end_tension << " at both)");
    CHECK(error < previous);
    previous = error;
    if (n == 32) {
      CHECK(error <= 2e-3 * exact.sag);
      CHECK(std::abs(r.vehicle_force.norm() - exact.end_tension) <= 5e-3 * exact.end_tension);
      // the readout's force balance along the chain gives the same tension at the anchor
      CHECK(std::abs(r.tension.front() - exact.end_tension) <= 5e-3 * exact.end_tension);
    }
  }
}

TEST_CASE("maximal coordinates: the catenary, and the same shape and tensions as the chain") {
  const Catenary exact = ClosedFormCatenary();
  const tether::Readout chain = Hang(32, "reduced"), free = Hang(32, "maximal");
  REQUIRE(free.nodes.size() == chain.nodes.size());
  const double mid = -5 - free.nodes[free.nodes.size() / 2].z();
  double shape = 0, stretch = 0;
  for (size_t i = 0; i < free.nodes.size(); ++i) {
    shape = std::max(shape, (free.nodes[i] - chain.nodes[i]).norm());
    if (i > 0) stretch = std::max(stretch, (free.nodes[i] - free.nodes[i - 1]).norm() / (10.0 / 32) - 1);
  }
  MESSAGE("maximal: sag " << mid << " m (catenary " << exact.sag << "), end tension "
          << free.vehicle_force.norm() << " N, anchor tension " << free.tension.front()
          << " N (catenary " << exact.end_tension << "); nodes within " << shape
          << " m of the chain's; largest link stretch " << stretch);
  // the chain's bound, 2e-3, plus the sag of the links' stretch (0.06 % here lengthens the
  // cable by 6 mm: about 1e-3 of the sag)
  CHECK(std::abs(mid - exact.sag) <= 3e-3 * exact.sag);
  CHECK(std::abs(free.vehicle_force.norm() - exact.end_tension) <= 5e-3 * exact.end_tension);
  CHECK(std::abs(free.tension.front() - exact.end_tension) <= 5e-3 * exact.end_tension);
  CHECK(shape <= 1e-3 * 10);   // 0.1 % of the length
  CHECK(stretch <= 1e-3);      // the connects' give under this tension
}

TEST_CASE("maximal coordinates: steady shape and tension in a cross flow equal the chain's") {
  double t = 0;
  const tether::Readout chain = SteadyCrossFlow(32, 0.5, 0.005, &t);
  const tether::Readout free = SteadyCrossFlow(32, 0.5, 0.005, &t, "maximal");
  REQUIRE(free.nodes.size() == chain.nodes.size());
  double shape = 0;
  for (size_t i = 0; i < free.nodes.size(); ++i) shape = std::max(shape, (free.nodes[i] - chain.nodes[i]).norm());
  const double dT = std::abs(free.vehicle_force.norm() - chain.vehicle_force.norm()) / chain.vehicle_force.norm();
  MESSAGE("maximal against the chain: nodes within " << shape << " m, tension " << free.vehicle_force.norm()
          << " N against " << chain.vehicle_force.norm() << " N (relative " << dT << "), settled at " << t << " s");
  CHECK(shape <= 1e-3 * 10);
  CHECK(dT <= 5e-3);
}

TEST_CASE("maximal coordinates: 1000 segments load and step; keyframes put the end on the site") {
  Keys keys = Cable(30, 1000);
  keys["site"] = "att";
  keys["anchor_point"] = "0 0 -1";
  keys["coordinates"] = "maximal";
  const std::string vehicle =
      "    <body name='v' pos='5 1 -7'><freejoint/>\n"
      "      <inertial pos='0 0 0' mass='10' diaginertia='0.2 0.2 0.2'/>\n"
      "      <site name='att' pos='-0.2 0 0.05'/></body>\n";
  std::string xml = Model(keys, vehicle, 0.005, true, "0.3 0 0");
  xml.replace(xml.find("</mujoco>"), 9,
              "  <keyframe><key name='a' qpos='12 -3 -20 1 0 0 0'/>"
              "<key name='b' qpos='-4 6 -9 0.7071067811865476 0 0 0.7071067811865476' qvel='0.1 0 0 0 0 0'/>"
              "</keyframe>\n</mujoco>\n");
  auto sim = Simulation::LoadString(xml);
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  CHECK(m->nv == 6 + 6 * 1000);
  CHECK(m->neq == 1000 + 1);  // the links (the anchor's included) and the vehicle's connect
  const int instance = TetherInstance(m), site = mj_name2id(m, mjOBJ_SITE, "att");
  for (int key = -1; key < m->nkey; ++key) {
    sim->Reset(key);
    sim->Forward();
    const tether::Readout r = tether::Read(m, d, instance);
    const Vec3 s(d->site_xpos[3 * site], d->site_xpos[3 * site + 1], d->site_xpos[3 * site + 2]);
    double gap = 0;  // each segment's end against the next one's start
    for (int k = 0; k + 1 < 1000; ++k) {
      const int b = mj_name2id(m, mjOBJ_BODY, ("tether_seg" + std::to_string(k)).c_str());
      const Vec3 end = Vec3(d->xpos[3 * b], d->xpos[3 * b + 1], d->xpos[3 * b + 2]) +
                       0.03 * Vec3(d->xmat[9 * b], d->xmat[9 * b + 3], d->xmat[9 * b + 6]);
      gap = std::max(gap, (end - r.nodes[static_cast<size_t>(k) + 1]).norm());
    }
    MESSAGE("keyframe " << key << ": end to site " << (r.nodes.back() - s).norm() << " m, anchor "
            << (r.nodes.front() - Vec3(0, 0, -1)).norm() << " m, largest gap between segments " << gap << " m");
    CHECK((r.nodes.back() - s).norm() <= 1e-9);
    CHECK((r.nodes.front() - Vec3(0, 0, -1)).norm() <= 1e-12);
    CHECK(gap <= 1e-9);
  }
  CHECK(d->qvel[0] == 0.1);  // keyframe b's vehicle velocity kept, the segments' zero
  for (int k = 0; k < 40; ++k) REQUIRE(sim->TryStep());
}

TEST_CASE("mechanical energy decreases monotonically with drag and no driving") {
  // a heavy tether with a free end, released 60 degrees from the vertical in still water
  Keys keys = Cable(5, 10, 3 * kNeutral);
  keys["anchor_point"] = "0 0 -1";
  auto sim = Simulation::LoadString(Model(keys, "", 0.002, true, "0 0 0", "RK4"));
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  const Eigen::Quaterniond q(Eigen::AngleAxisd(60 * M_PI / 180, Vec3::UnitY()));
  d->qpos[0] = q.w(); d->qpos[1] = q.x(); d->qpos[2] = q.y(); d->qpos[3] = q.z();
  const double w = 2 * kNeutral * kG * 0.5;  // wet weight of one 0.5 m segment
  auto energy = [&] {
    sim->Forward();
    double potential = 0;
    for (int k = 0; k < 10; ++k) {
      const int b = mj_name2id(m, mjOBJ_BODY, ("tether_seg" + std::to_string(k)).c_str());
      potential += w * d->xipos[3 * b + 2];
    }
    return sim->KineticEnergy() + potential;
  };
  const double e0 = energy();
  double previous = e0, worst = -1e300, kinetic_max = 0;
  for (int k = 0; k < 5000; ++k) {  // 10 s
    sim->Step();
    const double e = energy();
    worst = std::max(worst, e - previous);
    kinetic_max = std::max(kinetic_max, sim->KineticEnergy());
    previous = e;
  }
  MESSAGE("E(0) = " << e0 << " J, E(10 s) = " << previous << " J, largest step increase "
          << worst << " J, peak kinetic " << kinetic_max << " J");
  CHECK(worst <= 1e-12 * std::abs(e0));
  CHECK(previous < e0 - 0.5 * kinetic_max);
}

TEST_CASE("the shipped BlueROV2 Heavy tether model: keyframes put the tether's end on the site") {
  auto sim = Simulation::LoadFile(std::string(NEREID_SOURCE_MODEL_DIR) +
                                  "/bluerov2_heavy_tether/bluerov2_heavy_tether.xml");
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  const int instance = TetherInstance(m);
  const tether::Config c = tether::Config::FromModel(m, instance);
  CHECK(c.segments == 50);
  CHECK(c.length == 30);
  const int site = mj_name2id(m, mjOBJ_SITE, c.site.c_str());
  for (int key = 0; key < m->nkey; ++key) {
    sim->Reset(key);
    sim->Forward();
    const tether::Readout r = tether::Read(m, d, instance);
    const Vec3 s(d->site_xpos[3 * site], d->site_xpos[3 * site + 1], d->site_xpos[3 * site + 2]);
    MESSAGE("keyframe " << key << ": end to site " << (r.nodes.back() - s).norm() << " m");
    CHECK((r.nodes.back() - s).norm() <= 1e-9);
    CHECK(r.nodes.front().norm() <= 1e-12);  // the surface anchor
  }
}

}  // TEST_SUITE

TEST_SUITE("tether_analytic") {

std::string AnalyticVehicle() {
  return "    <body name='v' pos='3 0 -10'><freejoint/>\n"
         "      <inertial pos='0 0 0' mass='10' diaginertia='0.2 0.2 0.2'/>\n"
         "      <site name='att' pos='0 0 0.1'/></body>\n";
}

TEST_CASE("eq. 3.21 at rest in a uniform current: X = 1/4 rho d C_d h U^2, Z = -1.2 w h") {
  const double U = 0.5, mpm = 2 * kNeutral;
  Keys keys = Cable(30, 1, mpm);
  keys["model"] = "analytic";
  keys["site"] = "att";
  auto sim = Simulation::LoadString(Model(keys, AnalyticVehicle(), 0.005, true, Num(U) + " 0 0"));
  sim->Forward();
  const mjData* d = sim->data();
  const double h = 10 - 0.1;  // site depth below the anchor at the surface
  const double X = 0.25 * kRho * kD * 1.2 * h * U * U;
  const double Z = -1.2 * (mpm - kNeutral) * kG * h;
  const Vec3 f(d->qfrc_passive[0], d->qfrc_passive[1], d->qfrc_passive[2]);
  MESSAGE("force " << f.transpose() << " N, closed form " << X << " 0 " << Z);
  CHECK(std::abs(f.x() - X) <= 1e-12 * X);
  CHECK(std::abs(f.y()) <= 1e-12);
  CHECK(std::abs(f.z() - Z) <= 1e-12 * std::abs(Z));
  // the moment of the force at the site, 0.1 m above the origin: (0, 0, 0.1) x F
  CHECK(d->qfrc_passive[4] == doctest::Approx(0.1 * X).epsilon(1e-12));
}

TEST_CASE("eq. 3.21 with a depth-sheared current: the integral of |u|u over the depth") {
  // current 0.2 m/s at the surface to 0.6 m/s at 20 m depth, linear; h = 10 m
  Keys keys = Cable(30, 1);
  keys["model"] = "analytic";
  keys["site"] = "att";
  const std::string xml = Model(keys, AnalyticVehicle(), 0.005, true, "0 0 0");
  auto sim = Simulation::LoadString(xml);
  sim->SetCurrent(CurrentField::DepthProfile({0, 20}, {Vec3(0.2, 0, 0), Vec3(0.6, 0, 0)}));
  sim->Forward();
  const double h = 9.9, u_top = 0.2, u_bottom = 0.2 + 0.4 * h / 20;
  const double integral = h * (u_top * u_top + u_top * u_bottom + u_bottom * u_bottom) / 3;
  const double X = 0.25 * kRho * kD * 1.2 * integral;
  CHECK(sim->data()->qfrc_passive[0] == doctest::Approx(X).epsilon(1e-12));
  CHECK(std::abs(sim->data()->qfrc_passive[2]) <= 1e-12);  // neutral: no weight term
}

TEST_CASE("eq. 3.21: a neutral tether in still water exerts no force on a vehicle at rest") {
  Keys keys = Cable(30, 1);
  keys["model"] = "analytic";
  keys["site"] = "att";
  auto sim = Simulation::LoadString(Model(keys, AnalyticVehicle(), 0.005, true));
  sim->Forward();
  for (int i = 0; i < 6; ++i) CHECK(std::abs(sim->data()->qfrc_passive[i]) <= 1e-15);
}

}  // TEST_SUITE

TEST_SUITE("tether_errors") {

std::string LoadError(const Keys& keys, const std::string& bodies = FixedVehicle(Vec3(3, 0, -5))) {
  try {
    Simulation::LoadString(Model(keys, bodies), {}, "tether.xml");
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("the model loaded");
  return "";
}

TEST_CASE("bad values name the file, instance, key and value") {
  Keys keys = Cable(10, 0);
  CHECK(LoadError(keys).find("tether.xml: nereid.tether instance 'tether': key 'segments' = '0': "
                             "must be a whole number in 1..500") == 0);
  // a size from the user is bounded (100,000 would never finish loading)
  for (const char* n : {"501", "100000", "1e9"}) {
    keys = Cable(10, 4);
    keys["segments"] = n;
    CHECK(LoadError(keys).find(std::string("key 'segments' = '") + n + "': must be a whole number in 1..500") !=
          std::string::npos);
  }
  keys = Cable(10, 4);
  keys["coordinates"] = "maximal";
  keys["segments"] = "2001";
  CHECK(LoadError(keys).find("key 'segments' = '2001': must be a whole number in 1..2000 with "
                             "coordinates = maximal") != std::string::npos);
  keys["segments"] = "4";
  keys["axial_stiffness"] = "1e5";
  CHECK(LoadError(keys).find("key 'axial_stiffness' = '1e5': needs coordinates = reduced") != std::string::npos);
  keys.erase("axial_stiffness");
  keys["bending_damping"] = "0.1";
  CHECK(LoadError(keys).find("key 'bending_damping' = '0.1': needs coordinates = reduced") != std::string::npos);
  keys = Cable(10, 4);
  keys["coordinates"] = "joints";
  CHECK(LoadError(keys).find("key 'coordinates' = 'joints': expected 'reduced' or 'maximal'") != std::string::npos);
  keys = Cable(10, 4);
  keys["diameter"] = "-0.01";
  CHECK(LoadError(keys).find("tether.xml: nereid.tether instance 'tether': key 'diameter' = "
                             "'-0.01': must be > 0") == 0);
  keys = Cable(10, 4);
  keys["site"] = "nowhere";
  CHECK(LoadError(keys).find("key 'site' = 'nowhere': no site of that name") != std::string::npos);
  keys = Cable(10, 4);
  keys["model"] = "catenary";
  CHECK(LoadError(keys).find("key 'model' = 'catenary': expected 'lumped' or 'analytic'") !=
        std::string::npos);
  keys = Cable(2, 4);
  keys["site"] = "att";
  const std::string e = LoadError(keys);
  MESSAGE(e);
  CHECK(e.find("tether.xml: nereid.tether instance 'tether': key 'length' = ") == 0);
  CHECK(e.find("shorter than the distance") != std::string::npos);
  keys = Cable(10, 4);
  keys.erase("mass_per_metre");
  CHECK(LoadError(keys).find("missing required key 'mass_per_metre'") != std::string::npos);
}

TEST_CASE("stock MuJoCo: a lumped tether refuses to start and says why; analytic works") {
  Keys keys = Cable(10, 4);
  char error[1024] = "";
  mjSpec* spec = mj_parseXMLString(Model(keys, FixedVehicle(Vec3(3, 0, -5))).c_str(), nullptr,
                                   error, sizeof(error));
  REQUIRE(spec);
  // MuJoCo's compiler runs the plugins' init: the lumped instance fails there
  mjModel* m = nullptr;
  {
    EngineScope scope;  // keep the plugin's message instead of printing it
    m = mj_compile(spec, nullptr);
  }
  CHECK(m == nullptr);
  const std::string message = TakeLastPluginError();
  MESSAGE(message);
  CHECK(message.find("ExpandTethers") != std::string::npos);
  if (m) mj_deleteModel(m);
  // after ExpandTethers the same spec runs under plain mj_step
  ExpandTethers(spec);
  m = mj_compile(spec, nullptr);
  REQUIRE(m);
  mjData* d = mj_makeData(m);
  REQUIRE(d);
  for (int k = 0; k < 10; ++k) mj_step(m, d);
  CHECK(std::isfinite(d->qpos[0]));
  mj_deleteData(d);
  mj_deleteModel(m);
  mj_deleteSpec(spec);
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
