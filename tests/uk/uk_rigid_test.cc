// Copyright Nereid authors.
// UK rigid connections in Nereid's stepper, against closed forms, conservation laws and
// the merged rigid body (MuJoCo's own dynamics of one body).
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/error.h"
#include "nereid/frames.h"
#include "nereid/kinematics.h"
#include "nereid/simulation.h"
#include "test_util.h"
#include "uk_test_util.h"

namespace nereid {
namespace {

using test::Assembly;
using test::Vehicle;
using Quat = Eigen::Quaterniond;

SimulationOptions UK() {
  SimulationOptions o;
  o.constraints = ConstraintMethod::kUK;
  return o;
}

std::string Str(const Vec3& v) {
  char b[128];
  std::snprintf(b, sizeof(b), "%.17g %.17g %.17g", v.x(), v.y(), v.z());
  return b;
}
std::string Str(const Quat& q) {
  char b[160];
  std::snprintf(b, sizeof(b), "%.17g %.17g %.17g %.17g", q.w(), q.x(), q.y(), q.z());
  return b;
}

Quat QposQuat(const mjData* d, int adr) {
  return Quat(d->qpos[adr], d->qpos[adr + 1], d->qpos[adr + 2], d->qpos[adr + 3]).normalized();
}

// linear momentum and angular momentum about the world origin of free bodies whose
// inertial frame is the body frame (inertial pos 0, principal axes = body axes)
void Momentum(const mjModel* m, const mjData* d, Vec3* p, Vec3* L) {
  p->setZero();
  L->setZero();
  for (int b = 1; b < m->nbody; ++b) {
    const int j = m->body_jntadr[b];
    const int qa = m->jnt_qposadr[j], da = m->jnt_dofadr[j];
    const double mass = m->body_mass[b];
    const Vec3 x = test::QposPosition(d, qa);
    const Vec3 v(d->qvel[da], d->qvel[da + 1], d->qvel[da + 2]);
    const Vec3 w(d->qvel[da + 3], d->qvel[da + 4], d->qvel[da + 5]);
    const Vec3 I(m->body_inertia[3 * b], m->body_inertia[3 * b + 1], m->body_inertia[3 * b + 2]);
    *p += mass * v;
    *L += x.cross(mass * v) + QposQuat(d, qa + 3) * Vec3(I.cwiseProduct(w));
  }
}

TEST_SUITE("uk_rigid") {

TEST_CASE("two-body UK assembly equals the merged single body (added mass, damping, buoyancy)") {
  // The two runs integrate different coordinates (B's own free joint vs none), so they
  // differ by the integrator's error. MuJoCo's RK4 combines the stages' body-frame angular
  // velocities without the Lie-group correction, which is second order for rotating
  // bodies: the difference falls as dt^2 (3.4e-7, 8.5e-8, 2.1e-8 m for dt = 2, 1, 0.5 ms),
  // so 1e-8 over 10 s needs dt = 0.125 ms.
  const double DT = 0.000125;
  const std::string OPT = "timestep='0.000125' integrator='RK4'";
  const Quat qA = Quat(Eigen::AngleAxisd(0.35, Vec3(1, 1, 0).normalized()));
  const Vec3 pA(0, 0, -10);
  const Vec3 rel_p(0.3, 1.0, -0.2);
  const Quat rel_q = Quat(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitX())) *
                     Quat(Eigen::AngleAxisd(0.2, Vec3::UnitZ()));
  const Quat qB = qA * rel_q;
  const Vec3 pB = pA + qA * rel_p;
  Vehicle a{.name = "A", .pos = Str(pA), .quat = Str(qA), .mass = 20, .inertia = "1 1.2 0.8",
            .volume = 0.0205, .cob = "0.05 0 -0.1", .added_mass = "5 10 12 0.5 0.6 0.7",
            .linear_damping = "2 3 4 0.5 0.5 0.5", .quadratic_damping = "10 20 30 1 1 1"};
  Vehicle b{.name = "B", .pos = Str(pB), .quat = Str(qB), .mass = 12, .inertia = "0.5 0.7 0.9",
            .volume = 0.0118, .cob = "0 0.02 -0.08", .added_mass = "3 6 7 0.2 0.3 0.4",
            .linear_damping = "1 2 3 0.2 0.2 0.2", .quadratic_damping = "5 10 15 0.5 0.5 0.5"};
  auto uk = Simulation::LoadString(
      Assembly({a, b}, "<weld name='uk:ab' body1='A' body2='B'/>", OPT), UK(), "assembly_uk");
  Vehicle bm = b;
  bm.free = false;
  bm.parent = "A";
  bm.pos = Str(rel_p);
  bm.quat = Str(rel_q);
  auto merged = Simulation::LoadString(Assembly({a, bm}, "", OPT), {}, "assembly_merged");
  REQUIRE(merged->model()->nv == 6);
  REQUIRE(uk->model()->nv == 12);

  // a rigid-body initial velocity
  const Vec3 vA(0.2, -0.1, 0.05), wA(0.3, -0.2, 0.4);  // world linear, body angular
  const Vec3 w_world = qA * wA;
  const Vec3 vB = vA + w_world.cross(pB - pA);
  const Vec3 wB = qB.conjugate() * w_world;
  mjData* du = uk->data();
  mjData* dm = merged->data();
  for (int i = 0; i < 3; ++i) {
    du->qvel[i] = vA[i];
    du->qvel[3 + i] = wA[i];
    du->qvel[6 + i] = vB[i];
    du->qvel[9 + i] = wB[i];
    dm->qvel[i] = vA[i];
    dm->qvel[3 + i] = wA[i];
  }
  uk->Forward();
  merged->Forward();
  double err_a = 0, err_b = 0, err_q = 0, travel = 0;
  const int steps = static_cast<int>(10 / DT);  // 10 s, RK4
  for (int s = 0; s < steps; ++s) {
    uk->Step();
    merged->Step();
    const Vec3 xa = test::QposPosition(du, 0), xm = test::QposPosition(dm, 0);
    const Quat qa = QposQuat(du, 3), qm = QposQuat(dm, 3);
    const Vec3 xb = test::QposPosition(du, 7), xbm = xm + qm * rel_p;
    err_a = std::max(err_a, (xa - xm).norm());
    err_b = std::max(err_b, (xb - xbm).norm());
    err_q = std::max(err_q, qa.angularDistance(qm));
    travel = std::max(travel, (xm - pA).norm());
  }
  MESSAGE("UK vs merged body over 10 s: |dx_A| " << err_a << " m, |dx_B| " << err_b
          << " m, attitude " << err_q << " rad (assembly travelled " << travel << " m)");
  CHECK(travel > 0.5);  // the motion is not trivial
  CHECK(err_a < 1e-8);
  CHECK(err_b < 1e-8);
  CHECK(err_q < 1e-8);
}

// seed 001 Case A about its equilibrium: vehicles 20 kg, I = diag(1,1,1), neutrally
// buoyant, CB 0.1 m above the CG, rod of length l, B rolled 90 deg relative to A.
double CaseAPeakTime(double l, double amplitude_deg, double dt) {
  const double rho = 1000, m = 20;
  Vehicle a{.name = "A", .pos = "0 0 -10", .volume = m / rho};
  // B to starboard (Table 1: eta_B = [0, l, 0] in NED), y = -l in the z-up world
  Vehicle b{.name = "B", .pos = "0 " + std::to_string(-l) + " -10",
            .quat = "0.70710678118654752 0.70710678118654752 0 0", .volume = m / rho};
  char option[96];
  std::snprintf(option, sizeof(option), "timestep='%g' integrator='RK4'", dt);
  auto sim = Simulation::LoadString(
      Assembly({a, b}, "<weld name='uk:rod' body1='A' body2='B'/>", option), UK(), "case_a");
  // rotate the whole assembly about the x axis through its centre P to
  // roll_A = -45 deg + amplitude (equilibrium: A at -45 deg, B at +45 deg)
  const double phi = (-45.0 + amplitude_deg) * std::numbers::pi / 180;
  const Quat R(Eigen::AngleAxisd(phi, Vec3::UnitX()));
  const Vec3 P(0, -l / 2, -10);
  const Vec3 xa = P + R * Vec3(0, l / 2, 0), xb = P + R * Vec3(0, -l / 2, 0);
  const Quat qa = R, qb = R * Quat(0.70710678118654752, 0.70710678118654752, 0, 0).normalized();
  mjData* d = sim->data();
  for (int i = 0; i < 3; ++i) { d->qpos[i] = xa[i]; d->qpos[7 + i] = xb[i]; }
  d->qpos[3] = qa.w(); d->qpos[4] = qa.x(); d->qpos[5] = qa.y(); d->qpos[6] = qa.z();
  d->qpos[10] = qb.w(); d->qpos[11] = qb.x(); d->qpos[12] = qb.y(); d->qpos[13] = qb.z();
  sim->Forward();
  // the roll rate of A (about its x = world x) starts at 0, grows, and returns to 0 at the
  // first peak on the other side (half a period)
  double prev = 0, t_prev = 0;
  bool moving = false;
  for (int s = 0; s < static_cast<int>(20 / dt); ++s) {
    sim->Step();
    const double w = d->qvel[3], t = d->time;
    if (!moving && std::abs(w) > 1e-6) moving = true;
    if (moving && s > 2 && w * prev < 0) return t_prev + (t - t_prev) * prev / (prev - w);
    if (moving && s > 2 && w == 0) return t;
    prev = w;
    t_prev = t;
  }
  return -1;
}

TEST_CASE("Case A, small amplitude: first peak at pi sqrt(I/K) (seed 001 Table 2)") {
  const double m = 20, g = 9.81, zb = 0.1, Ixx = 1;
  const double K = 2 * m * g * zb * std::cos(std::numbers::pi / 4);
  const double table[3] = {2.07, 3.874, 5.733};
  for (int i = 0; i < 3; ++i) {
    const double l = i + 1;
    const double I = 2 * Ixx + 2 * m * (l / 2) * (l / 2);
    const double expected = std::numbers::pi * std::sqrt(I / K);
    const double t = CaseAPeakTime(l, 0.5, 0.002);
    MESSAGE("l = " << l << " m: first peak " << t << " s, pi sqrt(I/K) = " << expected
            << " s (error " << 100 * (t - expected) / expected << " %), seed Table 2: "
            << table[i] << " s");
    CHECK(std::abs(t - expected) < 0.005 * expected);
  }
}

TEST_CASE("Case A as shipped: A sinks and B sways negative first (seed 001 Table 1, Fig. 5)") {
  for (int l = 1; l <= 3; ++l) {
    CAPTURE(l);
    auto sim = Simulation::LoadFile(test::ModelPath("multi/case_a_l" + std::to_string(l) + ".xml"), UK());
    const mjModel* m = sim->model();
    mjData* d = sim->data();
    const int a = mj_name2id(m, mjOBJ_BODY, "A"), b = mj_name2id(m, mjOBJ_BODY, "B");
    // FLU -> FRD (the conversion is its own inverse)
    auto FrdFromFlu = [](const Vec3& v) { return ToMujoco(v, BodyFrame::kFRD); };
    // Table 1: B at eta = [0, l, 0] in NED, l m to starboard of A (FRD y)
    const Vec3 offset_frd = FrdFromFlu(BodyRotation(d, a).transpose() *
                                       (BodyPosition(d, b) - BodyPosition(d, a)));
    CHECK(offset_frd.isApprox(Vec3(0, l, 0), 1e-12));
    for (int s = 0; s < 250; ++s) sim->Step();  // 0.5 s
    // body-frame FRD velocities: A's heave w and B's sway v (Fig. 5)
    auto frd_velocity = [&](int body) {
      const int dof = m->jnt_dofadr[m->body_jntadr[body]];
      const Vec3 world(d->qvel[dof], d->qvel[dof + 1], d->qvel[dof + 2]);
      return FrdFromFlu(BodyRotation(d, body).transpose() * world);
    };
    CHECK(frd_velocity(a).z() > 1e-3);   // A is forced down: positive heave
    CHECK(frd_velocity(b).y() < -1e-3);  // B moves in negative sway
  }
}

// three vehicles at the corners of a triangle: A-B, B-C, C-A (a closed loop: 18 rows of
// rank 12)
std::vector<Vehicle> Triangle() {
  Vehicle a{.name = "A", .pos = "0 0 -10", .mass = 10, .inertia = "0.3 0.4 0.5",
            .volume = 0.0102, .cob = "0.02 0 -0.05"};
  Vehicle b{.name = "B", .pos = "1.2 0.1 -10", .quat = "0.9238795 0 0 0.3826834", .mass = 12,
            .inertia = "0.4 0.4 0.6", .volume = 0.0118, .cob = "0 0.03 -0.06"};
  Vehicle c{.name = "C", .pos = "0.5 1.0 -9.8", .quat = "0.9238795 0.3826834 0 0", .mass = 8,
            .inertia = "0.2 0.3 0.3", .volume = 0.0081, .cob = "0 0 -0.04"};
  return {a, b, c};
}

struct Run {
  std::vector<std::vector<double>> qpos;
  double max_pos = 0, max_ang = 0, max_force = 0;
  bool finite = true;
};

Run RunTriangle(const std::string& welds, double seconds) {
  auto sim = Simulation::LoadString(
      Assembly(Triangle(), welds, "timestep='0.002' integrator='RK4'"), UK(), "triangle");
  mjData* d = sim->data();
  d->xfrc_applied[6 * 1 + 0] = 2.0;  // 2 N along x on A, 0.3 N m about z on A
  d->xfrc_applied[6 * 1 + 5] = 0.3;
  d->qvel[3] = 0.2;  // an initial spin of A (the projection makes it a rigid motion)
  sim->Connect("uk:ab");  // impulsive projection of the initial velocities
  Run run;
  for (int s = 0; s < static_cast<int>(seconds / 0.002); ++s) {
    sim->Step();
    for (const ConnectionReport& r : sim->ConnectionReports()) {
      if (!r.active) continue;
      run.max_pos = std::max(run.max_pos, r.position_error);
      run.max_ang = std::max(run.max_ang, r.angle_error);
      run.max_force = std::max(run.max_force, r.force.norm() + r.torque.norm());
      run.finite = run.finite && r.force.allFinite() && r.torque.allFinite();
    }
    if (s % 50 == 49) run.qpos.emplace_back(d->qpos, d->qpos + sim->model()->nq);
  }
  return run;
}

TEST_CASE("closed loop of three vehicles: finite forces, constraints held, same motion as the chain") {
  const std::string chain =
      "<weld name='uk:ab' body1='A' body2='B'/><weld name='uk:bc' body1='B' body2='C'/>";
  const Run loop = RunTriangle(chain + "<weld name='uk:ca' body1='C' body2='A'/>", 5);
  const Run open = RunTriangle(chain, 5);
  MESSAGE("loop: max violation " << loop.max_pos << " m, " << loop.max_ang
          << " rad; max |force| + |torque| " << loop.max_force);
  CHECK(loop.finite);
  CHECK(loop.max_force < 1e3);
  CHECK(loop.max_force > 0.1);
  CHECK(loop.max_pos < 1e-9);
  CHECK(loop.max_ang < 1e-9);
  double diff = 0, travel = 0;
  for (size_t i = 0; i < loop.qpos.size(); ++i) {
    for (size_t k = 0; k < loop.qpos[i].size(); ++k) {
      diff = std::max(diff, std::abs(loop.qpos[i][k] - open.qpos[i][k]));
    }
    travel = std::max(travel, std::abs(loop.qpos[i][0] - loop.qpos[0][0]));
  }
  MESSAGE("loop vs chain: max |dqpos| " << diff << " (x travel " << travel << " m)");
  CHECK(travel > 0.1);
  CHECK(diff < 1e-9);
}

const char kDockWelds[] =
    "<weld name='uk:dock' body1='A' body2='B' anchor='0 -0.4 0' active='false'/>";

std::unique_ptr<Simulation> DockingPair() {
  Vehicle a{.name = "A", .pos = "0 0 -5", .mass = 7.31, .inertia = "0.114 0.167 0.204"};
  Vehicle b{.name = "B", .pos = "0.1 0.85 -5.05", .quat = "0.9950042 0 0 0.0998334",
            .mass = 9.0, .inertia = "0.2 0.25 0.3"};
  auto sim = Simulation::LoadString(
      Assembly({a, b}, kDockWelds, "timestep='0.002' integrator='RK4'", false), UK(), "dock");
  mjData* d = sim->data();
  const double v[12] = {0.3, 0.05, -0.02, 0.1, -0.2, 0.3, -0.1, -0.25, 0.04, -0.3, 0.15, 0.05};
  for (int i = 0; i < 12; ++i) d->qvel[i] = v[i];
  sim->Forward();
  return sim;
}

TEST_CASE("docking: impulsive connection conserves linear and angular momentum") {
  auto sim = DockingPair();
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  for (int s = 0; s < 100; ++s) sim->Step();  // free approach
  Vec3 p0, L0, p1, L1;
  Momentum(m, d, &p0, &L0);
  sim->Connect("uk:dock");
  Momentum(m, d, &p1, &L1);
  const ConnectionReport r = sim->ConnectionReports().front();
  // relative velocity after the impulse
  const Vec3 wa = QposQuat(d, 3) * Vec3(d->qvel[3], d->qvel[4], d->qvel[5]);
  const Vec3 wb = QposQuat(d, 10) * Vec3(d->qvel[9], d->qvel[10], d->qvel[11]);
  MESSAGE("docking: |dp| " << (p1 - p0).norm() << " kg m/s, |dL| " << (L1 - L0).norm()
          << " kg m^2/s (|p| " << p0.norm() << ", |L| " << L0.norm() << "), |w_A - w_B| "
          << (wa - wb).norm());
  CHECK(r.active);
  CHECK((p1 - p0).norm() < 1e-10);
  CHECK((L1 - L0).norm() < 1e-10);
  CHECK((wa - wb).norm() < 1e-12);
  CHECK(r.position_error < 1e-12);
  CHECK(r.angle_error < 1e-12);
  // the docked assembly keeps its momentum (no external force) and holds together
  for (int s = 0; s < 500; ++s) sim->Step();
  Vec3 p2, L2;
  Momentum(m, d, &p2, &L2);
  const ConnectionReport r2 = sim->ConnectionReports().front();
  MESSAGE("after 1 s docked: |dp| " << (p2 - p0).norm() << ", |dL| " << (L2 - L0).norm()
          << ", violation " << r2.position_error << " m, " << r2.angle_error << " rad");
  CHECK((p2 - p0).norm() < 1e-10);
  CHECK((L2 - L0).norm() < 1e-8);
  CHECK(r2.position_error < 1e-9);
  CHECK(r2.angle_error < 1e-9);
}

TEST_CASE("release: the bodies move freely again") {
  auto sim = DockingPair();
  mjData* d = sim->data();
  sim->Connect("uk:dock");
  for (int s = 0; s < 250; ++s) sim->Step();
  sim->Release("uk:dock");
  CHECK_FALSE(sim->ConnectionReports().front().active);
  // reference: the same state stepped with the connection never active
  auto free = DockingPair();
  mjData* f = free->data();
  for (int i = 0; i < free->model()->nq; ++i) f->qpos[i] = d->qpos[i];
  for (int i = 0; i < free->model()->nv; ++i) f->qvel[i] = d->qvel[i];
  f->time = d->time;
  free->Forward();
  const Vec3 xa0 = test::QposPosition(d, 0), va(d->qvel[0], d->qvel[1], d->qvel[2]);
  const double t0 = d->time;
  for (int s = 0; s < 500; ++s) {
    sim->Step();
    free->Step();
  }
  const double diff = test::MaxAbsDiff(d->qpos, f->qpos, sim->model()->nq);
  // no forces: A's origin (its centre of mass) moves in a straight line at constant speed
  const double line = (test::QposPosition(d, 0) - (xa0 + (d->time - t0) * va)).norm();
  MESSAGE("released: |qpos - free run| " << diff << ", straight-line error " << line << " m");
  CHECK(diff == 0);
  CHECK(line < 1e-12);
}

TEST_CASE("bad input: clear errors naming file, element and value") {
  Vehicle a{.name = "A"}, b{.name = "B", .pos = "0 1 -10"};
  auto load = [](const std::string& xml, const SimulationOptions& o = UK()) {
    return Simulation::LoadString(xml, o, "bad.xml");
  };
  auto message = [&](const std::string& xml, const SimulationOptions& o = UK()) -> std::string {
    try {
      load(xml, o);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  // a body connected to itself (MuJoCo's compiler refuses it)
  std::string e = message(Assembly({a, b}, "<weld name='uk:self' body1='A' body2='A'/>"));
  MESSAGE(e);
  CHECK(e.find("bad.xml") != std::string::npos);
  CHECK(e.find("uk:self") != std::string::npos);
  CHECK(e.find("'A'") != std::string::npos);
  // an unknown body
  e = message(Assembly({a, b}, "<weld name='uk:w' body1='A' body2='Nope'/>"));
  MESSAGE(e);
  CHECK(e.find("bad.xml") != std::string::npos);
  CHECK(e.find("Nope") != std::string::npos);
  CHECK(e.find("uk:w") != std::string::npos);
  // a body without a free joint
  const std::string hinge =
      "<mujoco><worldbody><body name='A' pos='0 0 -1'><freejoint/><geom size='0.1'/></body>"
      "<body name='H' pos='0 1 -1'><joint name='h' type='hinge'/><geom size='0.1'/></body>"
      "</worldbody><equality><weld name='uk:hinged' body1='A' body2='H'/></equality></mujoco>";
  e = message(hinge);
  MESSAGE(e);
  CHECK(e.find("bad.xml") != std::string::npos);
  CHECK(e.find("uk:hinged") != std::string::npos);
  CHECK(e.find("body2=\"H\"") != std::string::npos);
  CHECK_THROWS_AS(load(hinge), ConfigError);
  // the same file is fine for MuJoCo's welds
  CHECK_NOTHROW(load(hinge, SimulationOptions{}));
  // welded to the world
  e = message(Assembly({a, b}, "<weld name='uk:world' body1='A'/>"));
  CHECK(e.find("uk:world") != std::string::npos);
  CHECK(e.find("world") != std::string::npos);
  // UK needs Nereid's stepper
  SimulationOptions plain = UK();
  plain.engine = Engine::kMuJoCo;
  e = message(Assembly({a, b}, "<weld name='uk:ab' body1='A' body2='B'/>"), plain);
  CHECK(e.find("engine") != std::string::npos);
  // an unknown connection at run time
  auto sim = load(Assembly({a, b}, "<weld name='uk:ab' body1='A' body2='B'/>"));
  try {
    sim->Connect("uk:nope");
    FAIL("no exception");
  } catch (const ConfigError& x) {
    e = x.what();
  }
  CHECK(e.find("bad.xml") != std::string::npos);
  CHECK(e.find("uk:nope") != std::string::npos);
  CHECK(e.find("uk:ab") != std::string::npos);
}

TEST_CASE("without UK connections the stepper is unchanged; kMuJoCo keeps MuJoCo's welds") {
  Vehicle a{.name = "A", .volume = 0.021}, b{.name = "B", .pos = "0 1 -10", .volume = 0.019};
  const std::string xml = Assembly({a, b}, "<weld name='uk:ab' body1='A' body2='B'/>",
                                   "timestep='0.002' integrator='RK4'");
  auto mj = Simulation::LoadString(xml);
  auto uk = Simulation::LoadString(xml, UK());
  CHECK(mj->model()->eq_active0[0] == 1);  // a MuJoCo weld
  CHECK(uk->model()->eq_active0[0] == 0);  // handed over to UK
  CHECK(mj->ConnectionReports().empty());
  for (int s = 0; s < 500; ++s) {
    mj->Step();
    uk->Step();
  }
  // both hold the pair together; MuJoCo's soft weld within its default softness
  const double gap_mj = (test::QposPosition(mj->data(), 7) - test::QposPosition(mj->data(), 0)).norm();
  const double gap_uk = (test::QposPosition(uk->data(), 7) - test::QposPosition(uk->data(), 0)).norm();
  MESSAGE("distance after 1 s: weld " << gap_mj << " m, UK " << gap_uk << " m (declared 1 m)");
  CHECK(std::abs(gap_uk - 1) < 1e-12);
  CHECK(std::abs(gap_mj - 1) < 1e-2);
}

}  // TEST_SUITE

}  // namespace
}  // namespace nereid
