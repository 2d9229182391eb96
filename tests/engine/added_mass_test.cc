// Copyright Nereid authors.
// Added mass in the mass matrix: exactness, stability, kinematics of the velocity terms.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/fossen.h"
#include "nereid/kinematics.h"
#include "nereid/simulation.h"
#include "test_util.h"

namespace nereid {
namespace {

constexpr double kMass = 7.31;     // BlueROV, seed 000 Table 3
constexpr double kYvdot = 18.5;    // sway added mass, seed 000 Table 3 (> rigid mass)
const char kAddedMass[] = "2.6 18.5 13.3 0.054 0.0173 0.28";

TEST_SUITE("added_mass") {

TEST_CASE("constant sway force from rest: v(t) = F t / (m + Y_vdot), stable at dt 0.01 and 0.05") {
  const double F = 10;
  for (double dt : {0.01, 0.05}) {
    CAPTURE(dt);
    auto sim = Simulation::LoadString(
        test::SingleBody(test::Hydro(kAddedMass), kMass, "0.1 0.16 0.16", false, "Euler", dt));
    mjData* d = sim->data();
    double worst = 0;
    for (int k = 0; k < 400; ++k) {
      d->xfrc_applied[6 * 1 + 1] = F;  // world y = body y (no rotation): sway
      sim->Step();
      const double expected = F * d->time / (kMass + kYvdot);
      worst = std::max(worst, std::abs(d->qvel[1] - expected) / expected);
    }
    MESSAGE("dt " << dt << ": max relative error of v(t) " << worst);
    CHECK(worst <= 1e-9);
    // force off: the velocity must neither grow nor decay (no damping, no growth)
    const double v = d->qvel[1];
    d->xfrc_applied[6 * 1 + 1] = 0;
    for (int k = 0; k < 2000; ++k) sim->Step();
    CHECK(std::abs(d->qvel[1] - v) <= 1e-12 * v);
  }
}

TEST_CASE("why added mass is in the mass matrix: a force-based lagged term diverges here") {
  // A force-based scheme applies -Y_vdot * (previous acceleration) as a force:
  //   m a_n = F - Y_vdot a_{n-1}  =>  a_n = (F - Y_vdot a_{n-1}) / m.
  // The iteration's factor is -Y_vdot / m = -2.53: |factor| > 1 diverges for any time
  // step, because the factor does not depend on dt. Nereid's implicit form solves
  // (m + Y_vdot) a = F instead (the previous test).
  const double F = 10;
  double a = 0;
  for (int n = 0; n < 40; ++n) a = (F - kYvdot * a) / kMass;
  CHECK(std::abs(a) > 1e10);
  CHECK(std::abs(F / (kMass + kYvdot)) < 1);
}

// A free hull (centre of mass at its origin, principal axes along its frame) with an arm on
// a hinge, two site thrusters and a position servo on the elbow, in zero gravity, with
// optional added mass on the hull (no damping).
std::string HullWithArm(double mass, const std::array<double, 3>& inertia, const std::string& added_mass) {
  const std::string hydro =
      added_mass.empty()
          ? ""
          : "<extension><plugin plugin='nereid.hydrodynamics'><instance name='h'><config key='body' value='hull'/>"
            "<config key='added_mass' value='" + added_mass + "'/><config key='linear_damping' value='0 0 0 0 0 0'/>"
            "<config key='quadratic_damping' value='0 0 0 0 0 0'/></instance></plugin></extension>";
  return "<mujoco><option timestep='0.002' gravity='0 0 0'/>" + hydro +
         "<worldbody><body name='hull' pos='0 0 1' euler='10 20 30'><freejoint/>"
         "<inertial pos='0 0 0' mass='" + std::to_string(mass) + "' diaginertia='" + std::to_string(inertia[0]) + " " +
         std::to_string(inertia[1]) + " " + std::to_string(inertia[2]) + "'/>"
         "<geom type='box' size='0.3 0.2 0.1' contype='0' conaffinity='0'/>"
         "<site name='t1' pos='0.3 0.1 0' zaxis='1 0 0'/><site name='t2' pos='-0.3 -0.1 0.05' zaxis='0 1 0.3'/>"
         "<body name='arm' pos='0.3 0 0'><joint name='elbow' type='hinge' axis='0 1 0' damping='0.05'/>"
         "<inertial pos='0.2 0 0' mass='1.5' diaginertia='0.01 0.02 0.02'/>"
         "<geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.03' contype='0' conaffinity='0'/></body>"
         "</body></worldbody><actuator><motor site='t1' gear='0 0 1 0 0 0'/>"
         "<motor site='t2' gear='0 0 1 0 0 0.1'/><position joint='elbow' kp='20'/></actuator></mujoco>";
}

TEST_CASE("isotropic added mass at the centre of mass moves the hull as a heavier rigid body under mj_step") {
  // M_A = diag(a, a, a, J) about the hull's centre of mass and principal axes is, in the mass
  // matrix, a rigid mass a with inertia J there, and its Coriolis and centripetal forces
  // C_A(nu) nu = [w x (a v); a v x v + w x (J w)] = [a w x v; w x J w] are the rigid body's.
  // So Nereid's engine (M_A in the mass matrix, C_A from nereid.hydrodynamics) must move the
  // hull, spinning, thrusting and swinging its arm, as mj_step moves a hull of mass m0 + a and
  // inertia I0 + J, with each integrator; to rounding (1e-11 over 3 s; 1e-13 measured).
  // Anisotropic translational added mass (a, a, a + 0.5) is not a rigid body: it must differ.
  const double m0 = 10, a = 4;
  const std::array<double, 3> I0{0.3, 0.4, 0.5}, J{0.2, 0.3, 0.1};
  const std::array<double, 3> I{I0[0] + J[0], I0[1] + J[1], I0[2] + J[2]};
  const std::string isotropic = "4 4 4 0.2 0.3 0.1", anisotropic = "4 4 4.5 0.2 0.3 0.1";
  for (Integrator integrator : {Integrator::kEuler, Integrator::kRK4, Integrator::kImplicitFast}) {
    CAPTURE(ToString(integrator));
    SimulationOptions options;
    options.integrator = integrator;
    double error[2] = {0, 0};
    for (int variant = 0; variant < 2; ++variant) {
      auto sim = Simulation::LoadString(HullWithArm(m0, I0, variant == 0 ? isotropic : anisotropic), options);
      auto rigid = Simulation::LoadString(HullWithArm(m0 + a, I, ""), options);
      REQUIRE(sim->added_mass_bodies().size() == 1);
      REQUIRE(rigid->added_mass_bodies().empty());
      const mjModel* rm = rigid->model();
      mjData* d = sim->data();
      mjData* rd = rigid->data();
      const double qvel0[7] = {0.3, -0.2, 0.1, 0.8, -0.5, 1.2, 0.4};
      mju_copy(d->qvel, qvel0, 7);
      mju_copy(rd->qvel, qvel0, 7);
      for (int k = 0; k < 1500; ++k) {
        const double ctrl[3] = {3 * std::sin(0.01 * k), 2 * std::cos(0.013 * k), 0.8 * std::sin(0.02 * k)};
        mju_copy(d->ctrl, ctrl, 3);
        mju_copy(rd->ctrl, ctrl, 3);
        REQUIRE(sim->TryStep());
        mj_step(rm, rd);
        error[variant] = std::max({error[variant], test::MaxAbsDiff(d->qpos, rd->qpos, rm->nq),
                                   test::MaxAbsDiff(d->qvel, rd->qvel, rm->nv)});
      }
    }
    MESSAGE("max |dq|, |dv| against the heavier rigid hull: " << error[0] << " (anisotropic: " << error[1] << ")");
    CHECK(error[0] <= 1e-11);
    CHECK(error[1] > 1e-3);
  }
}

TEST_CASE("M_A enters d->M as J^T M_A J: the 6x6 free-joint block") {
  auto sim = Simulation::LoadString(test::SingleBody(test::Hydro(kAddedMass)));
  mjData* d = sim->data();
  const mjModel* m = sim->model();
  // rotate the body so that the world-frame translational block is full
  const double q[4] = {std::cos(0.4), std::sin(0.4) * 0.6, std::sin(0.4) * 0.8, 0};
  for (int i = 0; i < 4; ++i) d->qpos[3 + i] = q[i];
  sim->Forward();
  std::vector<mjtNum> dense(36);
  mj_fullM(m, d, dense.data());
  Mat3 R;
  mjtNum mat[9];
  mju_quat2Mat(mat, d->qpos + 3);
  R = Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(mat);
  Mat6 M_A = Mat6::Zero();
  M_A.diagonal() << 2.6, 18.5, 13.3, 0.054, 0.0173, 0.28;
  // dofs: world linear velocity, body angular velocity; nu = [R^T v; w]
  Mat6 J = Mat6::Identity();
  J.topLeftCorner<3, 3>() = R.transpose();
  Mat6 expected = J.transpose() * M_A * J;
  expected.topLeftCorner<3, 3>() += kMass * Mat3::Identity();
  expected.bottomRightCorner<3, 3>() += Vec3(0.1, 0.16, 0.16).asDiagonal();
  const Mat6 got = Eigen::Map<Eigen::Matrix<double, 6, 6, Eigen::RowMajor>>(dense.data());
  CHECK((got - expected).cwiseAbs().maxCoeff() <= 1e-12);
}

// a free base with a hinged link and a slide: the general (non-root) kinematics
const char kArm[] = R"(
<mujoco>
  <option gravity='0 0 0'/>
  <worldbody>
    <body name='base' pos='0 0 -3' euler='10 -20 30'>
      <freejoint/>
      <inertial pos='0.01 0 0' mass='10' diaginertia='0.2 0.3 0.4'/>
      <body name='link' pos='0.2 0.1 -0.1' euler='0 30 0'>
        <joint name='hinge' type='hinge' axis='0.3 0.4 0.866'/>
        <inertial pos='0.15 0 0' mass='1.5' diaginertia='0.01 0.02 0.02'/>
        <body name='tip' pos='0.3 0 0'>
          <joint name='slide' type='slide' axis='1 0 0'/>
          <inertial pos='0 0 0' mass='0.3' diaginertia='0.001 0.001 0.001'/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>)";

TEST_CASE("body Jacobian and bias acceleration agree with finite differences") {
  auto sim = Simulation::LoadString(kArm);
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  for (int i = 0; i < m->nv; ++i) d->qvel[i] = 0.4 * std::cos(2.0 * i + 1);
  sim->Forward();
  for (const char* name : {"base", "link", "tip"}) {
    const std::string body_name = name;
    CAPTURE(body_name);
    const int b = mj_name2id(m, mjOBJ_BODY, name);
    const std::vector<int> chain = BodyDofChain(m, b);
    Eigen::Matrix<double, 6, Eigen::Dynamic> J;
    BodyJacobian(m, d, b, chain, &J);
    Eigen::VectorXd qv(chain.size());
    for (size_t k = 0; k < chain.size(); ++k) qv[static_cast<Eigen::Index>(k)] = d->qvel[chain[k]];
    const Vec6 nu = BodyVelocity(m, d, b);
    CHECK((J * qv - nu).norm() <= 1e-12);

    // d/dt nu at qacc = 0 by central differences along q(t) = q +- h qvel
    const Vec6 bias = BodyBiasAcceleration(m, d, b, chain);
    const double h = 1e-6;
    std::vector<mjtNum> q0(d->qpos, d->qpos + m->nq);
    Vec6 nus[2];
    for (int s = 0; s < 2; ++s) {
      std::copy(q0.begin(), q0.end(), d->qpos);
      mj_integratePos(m, d->qpos, d->qvel, s == 0 ? h : -h);
      mj_kinematics(m, d);
      mj_comPos(m, d);
      mj_comVel(m, d);
      nus[s] = BodyVelocity(m, d, b);
    }
    std::copy(q0.begin(), q0.end(), d->qpos);
    sim->Forward();
    const Vec6 fd = (nus[0] - nus[1]) / (2 * h);
    MESSAGE(body_name << ": |bias - fd| = " << (bias - fd).norm());
    CHECK((bias - fd).norm() <= 1e-7 * std::max(1.0, fd.norm()));
  }
  // a free body's bias is [-w x v; 0]
  const int base = mj_name2id(m, mjOBJ_BODY, "base");
  const Vec6 nu = BodyVelocity(m, d, base);
  const Vec6 bias = BodyBiasAcceleration(m, d, base, BodyDofChain(m, base));
  CHECK((bias.head<3>() + nu.tail<3>().cross(nu.head<3>())).norm() <= 1e-12);
  CHECK(bias.tail<3>().norm() <= 1e-12);
}

TEST_CASE("ApplyWrench's free-joint path equals mj_applyFT") {
  auto sim = Simulation::LoadString(kArm);
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  sim->Forward();
  const int base = mj_name2id(m, mjOBJ_BODY, "base");
  REQUIRE(FreeJointDof(m, base) == 0);
  CHECK(FreeJointDof(m, mj_name2id(m, mjOBJ_BODY, "link")) == -1);
  const Vec3 f(1.0, -2.0, 0.5), t(0.3, 0.1, -0.7);
  const Vec3 p = Vec3(d->xpos[3 * base], d->xpos[3 * base + 1], d->xpos[3 * base + 2]) +
                 Vec3(0.1, -0.05, 0.2);
  std::vector<mjtNum> fast(m->nv, 0.0), reference(m->nv, 0.0);
  ApplyWrench(m, d, base, 0, f, t, p, fast.data());
  mj_applyFT(m, d, f.data(), t.data(), p.data(), base, reference.data());
  CHECK(test::MaxAbsDiff(fast.data(), reference.data(), m->nv) <= 1e-14);
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
