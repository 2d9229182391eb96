// Copyright Nereid authors.
// Vehicle-manipulator systems (seeds 003 and 004): conservation of angular momentum, the
// reaction of a passive vehicle to its arm, per-link added mass on a hinge against its
// closed form, the arm's kinematics against seed 003 Table 1, and the scenario block.
#include <cmath>
#include <complex>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include <doctest/doctest.h>
#include <mujoco/mujoco.h>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/reactions.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "nereid/vms.h"
#include "test_util.h"

namespace nereid {
namespace {

// seed 004 eq. 85 prescribed by the computed-torque servo (kp 400 1/s^2, kd 40 1/s)
VmsControllerSpec Seed004Servo(double amplitude2, double amplitude3) {
  VmsControllerSpec spec;
  spec.path = "/controller";
  for (const auto& [joint, amplitude, period] :
       {std::tuple{"theta2", amplitude2, 10.0}, std::tuple{"theta3", amplitude3, 3.0}}) {
    JointLoopSpec j;
    j.joint = joint;
    j.actuator = std::string(joint) + "_motor";
    j.path = "/controller/joints";
    j.mode = JointLoopSpec::Mode::kComputedTorque;
    j.kp = 400;
    j.kd = 40;
    j.reference.kind = Signal::Kind::kSine;
    j.reference.amplitude = amplitude;
    j.reference.period = period;
    spec.joints.push_back(j);
  }
  return spec;
}

// one PID loop (seed 003 Table 5's form) on joint "q" through motor "m", reference r
VmsControllerSpec HingePid(double kp, double ki, double kd, double r = 0) {
  VmsControllerSpec spec;
  spec.path = "/controller";
  JointLoopSpec loop;
  loop.joint = "q";
  loop.actuator = "m";
  loop.path = "/controller/joints/0";
  loop.kp = kp;
  loop.ki = ki;
  loop.kd = kd;
  loop.reference.value = r;
  spec.joints.push_back(loop);
  return spec;
}

Vec3 TotalAngularMomentum(Simulation& sim) {
  sim.Forward();
  mj_subtreeVel(sim.model(), sim.data());
  const mjtNum* L = sim.data()->subtree_angmom;  // body 0: the whole system, about its CoM
  return Vec3(L[0], L[1], L[2]);
}

}  // namespace

TEST_SUITE("vms") {

TEST_CASE("seed 004: angular momentum about the centre of mass is conserved while the arm moves") {
  // free ROV, no gravity, no water: the joint torques are internal, so the total angular
  // momentum about the system's CoM is constant; RK4 at 1 ms
  SimulationOptions options;
  options.integrator = Integrator::kRK4;
  options.timestep = 0.001;
  auto sim = Simulation::LoadFile(test::ModelPath("rov_two_link/rov_two_link_free.xml"), options);
  mjData* d = sim->data();
  const double v0[8] = {0.3, -0.2, 0.1, 0.05, -0.08, 0.12, 0.9, 3.3};  // lin, ang (body), joints
  for (int i = 0; i < 8; ++i) d->qvel[i] = v0[i];
  VmsController servo(*sim, Seed004Servo(M_PI / 2, M_PI / 2), "test");
  const Vec3 L0 = TotalAngularMomentum(*sim);
  double worst = 0, swing = 0;
  for (int k = 0; k < 5000; ++k) {  // 5 s
    servo.Update(0.001);
    sim->Step();
    if (k % 50 != 49) continue;
    worst = std::max(worst, (TotalAngularMomentum(*sim) - L0).norm() / L0.norm());
    swing = std::max(swing, std::abs(d->qpos[8]));
  }
  MESSAGE("|L - L0| / |L0| over 5 s: " << worst << " (|L0| = " << L0.norm() << " kg m^2/s)");
  CHECK(swing > 1.4);  // the arm really moved (theta3 amplitude pi/2)
  CHECK(worst <= 1e-8);
}

TEST_CASE("seed 004: a passive ROV turns against its arm as momentum requires") {
  // ROV held at its centre (ball joint), theta3 = 0, theta2 swings: the rod (m3/3 about the
  // joint) and the ROV (2/3 m1) share the zero angular momentum about the fixed centre,
  // so the ROV's yaw is psi = -J31 / (J11 + J31) theta2, with no roll or pitch
  SimulationOptions options;
  options.integrator = Integrator::kRK4;
  options.timestep = 0.001;
  auto sim = Simulation::LoadFile(test::ModelPath("rov_two_link/rov_two_link_held.xml"), options);
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  const double J11 = 2.0 / 3.0 * 2000, J31 = 100.0 / 3.0;
  // theta2'(0) of the prescription, and the ROV's yaw rate that makes the momentum zero
  d->qvel[3] = M_PI / 2 * 2 * M_PI / 10;
  d->qvel[2] = -J31 / (J11 + J31) * d->qvel[3];
  VmsController servo(*sim, Seed004Servo(M_PI / 2, 0), "test");
  double worst = 0, worst_tilt = 0, psi_max = 0;
  for (int k = 0; k < 10000; ++k) {  // 10 s, one period of theta2
    servo.Update(0.001);
    sim->Step();
    const Eigen::Quaterniond q(d->qpos[0], d->qpos[1], d->qpos[2], d->qpos[3]);
    const Mat3 R = q.toRotationMatrix();
    const double psi = std::atan2(R(1, 0), R(0, 0));
    const double theta2 = d->qpos[4];
    worst = std::max(worst, std::abs(psi - (-J31 / (J11 + J31) * theta2)));
    worst_tilt = std::max(worst_tilt, std::abs(R(2, 2) - 1));
    psi_max = std::max(psi_max, std::abs(psi));
    // the direction: the ROV turns opposite to the arm
    if (std::abs(theta2) > 0.1) CHECK(psi * theta2 < 0);
  }
  MESSAGE("ROV yaw vs -J31/(J11+J31) theta2: max error " << worst << " rad (|psi| up to " << psi_max
                                                          << " rad); tilt " << worst_tilt);
  CHECK(psi_max == doctest::Approx(J31 / (J11 + J31) * M_PI / 2).epsilon(1e-3).scale(0));
  CHECK(worst <= 1e-9);
  CHECK(worst_tilt <= 1e-12);
  CHECK(m->nv == 5);
}

TEST_CASE("per-link added mass: the torque to accelerate a link on a fixed hinge") {
  // link (m = 1.5 kg, CoG at r = (0.2, 0.05, -0.03) m, I_cg = diag(0.01, 0.02, 0.03)) on a
  // hinge with an oblique axis a; M_A diagonal at the CoG. Closed form about the hinge:
  //   I_rigid = a^T I_cg a + m |a x r|^2,  I_added = (a x r)^T A11 (a x r) + a^T A22 a
  // and tau = (I_rigid + I_added) alpha at any hinge rate (the inertia about a fixed axis is
  // constant, so the velocity terms of C_A and Jdot cancel).
  const Vec3 axis = Vec3(0.3, -0.5, 0.8).normalized(), r(0.2, 0.05, -0.03);
  const Vec3 A11(0.3, 0.5, 0.7), A22(0.001, 0.002, 0.003), Icg(0.01, 0.02, 0.03);
  const double mass = 1.5;
  auto xml = [&](bool added) {
    std::ostringstream s;
    s.precision(17);
    s << "<mujoco><compiler inertiafromgeom='false'/><option gravity='0 0 0' integrator='RK4'/>\n"
      << "<extension><plugin plugin='nereid.hydrodynamics'><instance name='h'>"
      << "<config key='body' value='link'/><config key='frame' value='flu'/>"
      << "<config key='added_mass' value='" << (added ? "0.3 0.5 0.7 0.001 0.002 0.003" : "0 0 0 0 0 0") << "'/>"
      << "<config key='linear_damping' value='0 0 0 0 0 0'/><config key='quadratic_damping' value='0 0 0 0 0 0'/>"
      << "<config key='reference_point' value='0.2 0.05 -0.03'/></instance></plugin></extension>\n"
      << "<worldbody><body name='link' pos='0 0 -2'>"
      << "<joint type='hinge' axis='" << axis.x() << " " << axis.y() << " " << axis.z() << "'/>"
      << "<inertial pos='0.2 0.05 -0.03' mass='1.5' diaginertia='0.01 0.02 0.03'/>"
      << "<geom type='capsule' fromto='0 0 0 0.2 0.05 -0.03' size='0.02' contype='0' conaffinity='0'/>"
      << "</body></worldbody></mujoco>";
    return s.str();
  };
  const Vec3 axr = axis.cross(r);
  const double I_rigid = axis.dot(Icg.asDiagonal() * axis) + mass * axr.squaredNorm();
  const double I_added = axr.dot(A11.asDiagonal() * axr) + axis.dot(A22.asDiagonal() * axis);
  const double tau = 0.7;
  double worst = 0;
  for (bool added : {false, true}) {
    auto sim = Simulation::LoadString(xml(added));
    const mjModel* m = sim->model();
    mjData* d = sim->data();
    const double I_total = I_rigid + (added ? I_added : 0.0);
    for (double rate : {0.0, 2.5, -4.0}) {
      d->qvel[0] = rate;
      d->qpos[0] = 0.4;
      // forward: alpha = tau / I
      d->qfrc_applied[0] = tau;
      sim->Forward();
      const double alpha = d->qacc[0];
      worst = std::max(worst, std::abs(alpha - tau / I_total) / (tau / I_total));
      // inverse, from Nereid's mass matrix (added mass included) and passive forces:
      // tau = M alpha + bias - passive for alpha = 1.3 rad/s^2
      d->qfrc_applied[0] = 0;
      sim->Forward();
      mjtNum Malpha = 0;
      const mjtNum acc = 1.3;
      mj_mulM(m, d, &Malpha, &acc);
      const double tau_needed = Malpha + d->qfrc_bias[0] - d->qfrc_passive[0];
      worst = std::max(worst, std::abs(tau_needed - I_total * acc) / (I_total * acc));
    }
  }
  MESSAGE("hinge link: I_rigid " << I_rigid << ", I_added " << I_added << " kg m^2; worst relative error "
                                 << worst);
  CHECK(I_added / I_rigid > 0.05);  // the added mass matters
  CHECK(worst <= 1e-12);
}

TEST_CASE("seed 003 arm: the model's frames follow Table 1 (FK and IK round trip)") {
  auto sim = Simulation::LoadFile(test::ModelPath("uvmms/uvmms.xml"));
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  const int body = mj_name2id(m, mjOBJ_BODY, "heavy");
  double worst_fk = 0, worst_ik = 0;
  const Vec3 qs[] = {Vec3(0, 0, 0), Vec3(0.3, -0.7, 1.1), Vec3(-1.2, 0.5, -0.9), Vec3(2.0, -1.4, 0.3)};
  for (int arm = 1; arm <= 4; ++arm) {
    const std::string a = "arm" + std::to_string(arm);
    const int link1 = mj_name2id(m, mjOBJ_BODY, (a + "_link1").c_str());
    const int ee = mj_name2id(m, mjOBJ_SITE, (a + "_ee").c_str());
    for (const Vec3& q : qs) {
      mj_resetDataKeyframe(m, d, 0);
      for (int j = 0; j < 3; ++j) {
        d->qpos[m->jnt_qposadr[mj_name2id(m, mjOBJ_JOINT, (a + "_q" + std::to_string(j + 1)).c_str())]] = q[j];
      }
      mj_kinematics(m, d);
      // end effector in frame 1 at q1 = 0 (= the vehicle's FRD axes at the mount)
      const Mat3 R_frd = BodyRotation(d, body) * Vec3(1, -1, -1).asDiagonal();
      const Vec3 mount = BodyPosition(d, m->body_parentid[link1]) +
                         BodyRotation(d, body) * Vec3(m->body_pos[3 * link1], m->body_pos[3 * link1 + 1],
                                                      m->body_pos[3 * link1 + 2]);
      const Vec3 p = R_frd.transpose() * (Vec3(d->site_xpos[3 * ee], d->site_xpos[3 * ee + 1],
                                               d->site_xpos[3 * ee + 2]) - mount);
      worst_fk = std::max(worst_fk, (p - AnthropomorphicFk(q, 0.12, 0.25)).norm());
      for (int elbow : {-1, 1}) {
        const Vec3 qi = AnthropomorphicIk(p, 0.12, 0.25, elbow);
        worst_ik = std::max(worst_ik, (AnthropomorphicFk(qi, 0.12, 0.25) - p).norm());
      }
    }
  }
  // at q = 0 the arm hangs straight down (+z of FRD): seed 003 sec. 6.4's rest posture
  CHECK((AnthropomorphicFk(Vec3::Zero(), 0.12, 0.25) - Vec3(0, 0, 0.37)).norm() < 1e-15);
  MESSAGE("FK model vs Table 1: " << worst_fk << " m; IK round trip: " << worst_ik << " m");
  CHECK(worst_fk <= 1e-12);
  CHECK(worst_ik <= 1e-12);
}

TEST_CASE("joint PID (seed 003 Table 5): the closed loop follows its linear closed form") {
  // A body on a hinge about z (inertia I about it, no gravity, no water) under the joint PID
  // with reference 0. With z = int(e), e = -q: z' = -q, I q'' = -kp q - kd q' + ki z, a
  // linear system x' = A x whose solution is exp(A t) x0. The PID's kp and kd terms
  // act at every RK4 stage (MakeStageFeedback); only the integral is held over the step.
  // Cases (gains per degree, as the seed 003 scenarios read Table 5):
  //  - joint 1 on the hanging arm (I = 1.46e-4 kg m^2): stable, kd dt / I = 1.18
  //  - joint 1 on the extended arm (I = 0.015): kd kp < I ki, the oscillation grows
  //  - joint 3 (I = 0.0128): kd dt / I = 2.24, where a loop held over the step would
  //    alternate the velocity's sign every step (|1 - kd dt / I| > 1)
  const double deg = 180 / M_PI, dt = 1e-3, q0 = 0.01;
  struct Case { const char* name; double I, kp, ki, kd; bool grows; };
  const Case cases[] = {{"joint 1, hanging arm", 1.46e-4, 5e-3 * deg, 1e-1 * deg, 3e-3 * deg, false},
                        {"joint 1, extended arm", 0.015, 5e-3 * deg, 1e-1 * deg, 3e-3 * deg, true},
                        {"joint 3", 0.0128, 5e-1 * deg, 1e-1 * deg, 5e-1 * deg, false}};
  for (const Case& c : cases) {
    CAPTURE(c.name);
    std::ostringstream xml;
    xml.precision(17);
    xml << "<mujoco><compiler inertiafromgeom='false'/><option gravity='0 0 0' integrator='RK4' timestep='" << dt
        << "'/><worldbody><body name='link'><joint name='q' type='hinge' axis='0 0 1'/>"
        << "<inertial pos='0 0 0' mass='0.2' diaginertia='1 1 " << c.I << "'/></body></worldbody>"
        << "<actuator><motor name='m' joint='q' ctrllimited='true' ctrlrange='-100 100'/></actuator></mujoco>";
    auto sim = Simulation::LoadString(xml.str());
    VmsController controller(*sim, HingePid(c.kp, c.ki, c.kd), "test");
    mjData* d = sim->data();
    d->qpos[0] = q0;

    Eigen::Matrix3d A;
    A << 0, -1, 0, 0, 0, 1, c.ki / c.I, -c.kp / c.I, -c.kd / c.I;
    // exp(A dt) by scaling and squaring: the Taylor series of exp(A dt / 2^s), ||A dt / 2^s||
    // below 1/2, to 30 terms (the next would be below 1e-40), squared s times
    int s = 0;
    while ((A * dt).cwiseAbs().rowwise().sum().maxCoeff() / std::ldexp(1.0, s) > 0.5) ++s;
    const Eigen::Matrix3d As = A * dt / std::ldexp(1.0, s);
    Eigen::Matrix3d Phi = Eigen::Matrix3d::Identity(), term = Eigen::Matrix3d::Identity();
    for (int n = 1; n <= 30; ++n) {
      term = (term * As / n).eval();
      Phi += term;
    }
    for (int k = 0; k < s; ++k) Phi = (Phi * Phi).eval();
    Eigen::Vector3d x_exact(0, q0, 0);  // exp(A t) x0, a step of dt at a time
    // Routh-Hurwitz on det(sI - A) = s^3 + (kd/I) s^2 + (kp/I) s + ki/I: it grows iff kd kp < I ki
    const double hurwitz = c.kd * c.kp / (c.I * c.I) - c.ki / c.I;
    double worst = 0, peak = 0, late_peak = 0;
    int sign_changes = 0;
    const int steps = 5000;
    for (int i = 0; i < steps; ++i) {
      controller.Update(dt);
      const double v_before = d->qvel[0];
      sim->Step();
      if (i > 0 && (v_before > 0) != (d->qvel[0] > 0)) ++sign_changes;
      x_exact = (Phi * x_exact).eval();
      const double q_exact = x_exact[1];
      worst = std::max(worst, std::abs(d->qpos[0] - q_exact));
      peak = std::max(peak, std::abs(q_exact));
      if (i >= steps - 1000) late_peak = std::max(late_peak, std::abs(d->qpos[0]));
    }
    MESSAGE(std::string(c.name) << ": Hurwitz margin (kd kp - I ki)/I^2 " << hurwitz << " 1/s^3; |q - closed form| <= " << worst
                   << " rad (peak " << peak << "); velocity sign changes " << sign_changes << " in " << steps
                   << " steps");
    CHECK(worst <= 5e-4 * peak);
    CHECK((hurwitz < 0) == c.grows);
    CHECK((late_peak > q0) == c.grows);  // the last second: grown past, or decayed below, q0
    CHECK(sign_changes < 100);           // no step-to-step alternation
  }

  // saturation clips the total torque (the kp, kd bias included) at the motor's limit
  auto sim = Simulation::LoadString(
      "<mujoco><option gravity='0 0 0' integrator='RK4' timestep='0.001'/><worldbody><body name='link'>"
      "<joint name='q' type='hinge' axis='0 0 1'/><inertial pos='0 0 0' mass='0.2' diaginertia='1 1 0.01'/>"
      "</body></worldbody><actuator><motor name='m' joint='q' gear='2' ctrllimited='true' ctrlrange='-0.5 0.5'/>"
      "</actuator></mujoco>");
  VmsController controller(*sim, HingePid(50, 5, 1, 1.0), "test");
  controller.Update(0.001);
  sim->Step();
  CHECK(sim->data()->qfrc_actuator[0] == doctest::Approx(1.0).epsilon(1e-12));  // gear 2 x ctrl limit 0.5
  for (int i = 0; i < 2000; ++i) {
    controller.Update(0.001);
    sim->Step();
    CHECK(std::abs(sim->data()->qfrc_actuator[0]) <= 1.0 + 1e-12);
  }
}

TEST_CASE("joint PID: a warning when the loops' damping is too stiff for the integrator") {
  // kd / I = 28.65 / 0.0128 = 2238 1/s: at 1 ms, 2.24 is inside RK4's real-axis limit
  // (2.785) and outside explicit Euler's (2); implicitfast takes the motors' damping implicitly.
  const double deg = 180 / M_PI;
  for (const auto& [integrator, warns] : {std::pair{"RK4", false}, std::pair{"Euler", true},
                                          std::pair{"implicitfast", false}}) {
    CAPTURE(std::string(integrator));
    auto sim = Simulation::LoadString(
        std::string("<mujoco><option gravity='0 0 0' timestep='0.001' integrator='") + integrator +
        "'/><worldbody><body name='link'><joint name='q' type='hinge' axis='0 0 1'/>"
        "<inertial pos='0 0 0' mass='0.2' diaginertia='1 1 0.0128'/></body></worldbody>"
        "<actuator><motor name='m' joint='q'/></actuator></mujoco>");
    VmsController controller(*sim, HingePid(0.5 * deg, 0.1 * deg, 0.5 * deg), "s.json");
    REQUIRE(controller.warnings().size() == (warns ? 1u : 0u));
    if (warns) {
      const std::string& w = controller.warnings().front();
      MESSAGE(w);
      CHECK(w.find("s.json: /controller/joints: the joint loops' damping is too stiff for euler at dt 0.001 s") == 0);
      CHECK(w.find("decays at 2.24e+03 1/s") != std::string::npos);  // 28.648 / 0.0128
    }
  }
}

TEST_CASE("the vms scenario block: errors name the file, the JSON path and the value") {
  const std::string model = test::ModelPath("rov_two_link/rov_two_link_held.xml");
  auto parse = [&](const std::string& controller) {
    return Scenario::FromString("{\"model\": \"" + model + "\", \"controller\": " + controller + "}", "s.json", "");
  };
  CHECK_THROWS_WITH_AS(parse(R"({"type": "vms", "joints": [{"joint": "theta2", "actuator": "theta2_motor",
      "mode": "servo", "gains": [1, 2]}]})"),
      doctest::Contains("s.json: /controller/joints/0/mode: expected \"pid\" or \"computed_torque\" (got \"servo\")"),
      ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"({"type": "vms", "joints": [{"joint": "theta2", "actuator": "theta2_motor",
      "gains": [1, 2, 3], "reference": {"sine": {"amplitude": 1, "period": 0}}}]})"),
      doctest::Contains("s.json: /controller/joints/0/reference/sine/period: must be > 0 (s) (got 0)"), ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"({"type": "vms", "vehicle": {"body": "rov", "kp": [1, 2, 3], "kd": [0, 0, 0, 0, 0, 0]}})"),
      doctest::Contains("s.json: /controller/vehicle/kp: expected an array of 6 numbers (got [1,2,3])"), ConfigError);
  CHECK_THROWS_WITH_AS(parse(R"({"type": "vms", "joints": [{"joint": "theta2", "actuator": "theta2_motor",
      "gains": [1, 2, 3], "angle_units": "grad"}]})"),
      doctest::Contains("s.json: /controller/joints/0/angle_units: expected \"rad\" or \"deg\" (got \"grad\")"),
      ConfigError);
  // the IK's elbow is one of its table's values, 1 or -1 (an integer)
  for (const char* elbow : {"2", "1.0", "\"up\""}) {
    CAPTURE(elbow);
    CHECK_THROWS_WITH_AS(
        parse(std::string(R"({"type": "vms", "ik": [{"joints": ["a", "b", "c"], "link_lengths": [0.12, 0.25], "elbow": )") +
              elbow + R"(, "target": {"x": 0.2, "y": 0, "z": 0.1}}]})"),
        doctest::Contains(
            (std::string("s.json: /controller/ik/0/elbow: expected 1 or -1 (the sign of q3) (got ") + elbow + ")").c_str()),
        ConfigError);
  }
  // a sine's, ramp's and linear signal's defaults are their key tables' (docs/vms.md)
  {
    auto reference = [&](const std::string& signal) {
      return parse(R"({"type": "vms", "joints": [{"joint": "theta2", "actuator": "theta2_motor", "gains": [1, 2, 3],
          "reference": )" + signal + "}]}").vms_controller->joints.front().reference;
    };
    const Signal sine = reference(R"({"sine": {"amplitude": 1, "period": 2}})");
    const Signal ramp = reference(R"({"ramp": {"start": 0, "end": 1, "to": 2}})");
    const Signal linear = reference(R"({"linear": {"rate": 3}})");
    CHECK(sine.phase == 0);
    CHECK(sine.offset == 0);
    CHECK(sine.value == 0);  // "outside"
    CHECK(sine.start == -Signal::kInf);
    CHECK(sine.end == Signal::kInf);
    CHECK(ramp.from == 0);
    CHECK(linear.offset == 0);
    CHECK(sine.Value(0.5) == doctest::Approx(1.0));  // sin(pi / 2)
  }
  // gains per degree of error are 180/pi times larger per radian, all three alike
  const Scenario deg = parse(R"({"type": "vms", "joints": [{"joint": "theta2", "actuator": "theta2_motor",
      "gains": [0.8, 0.05, 0.0004], "angle_units": "deg"}]})");
  const JointLoopSpec& loop = deg.vms_controller->joints.front();
  CHECK(loop.kp == doctest::Approx(0.8 * 180 / M_PI).epsilon(1e-15));
  CHECK(loop.ki == doctest::Approx(0.05 * 180 / M_PI).epsilon(1e-15));
  CHECK(loop.kd == doctest::Approx(0.0004 * 180 / M_PI).epsilon(1e-15));
  // names are resolved against the model
  Scenario s = parse(R"({"type": "vms", "joints": [{"joint": "theta9", "actuator": "theta2_motor",
      "gains": [1, 2, 3]}]})");
  auto sim = Simulation::LoadFile(model);
  CHECK_THROWS_WITH_AS(VmsController(*sim, *s.vms_controller, s.source),
                       doctest::Contains("s.json: /controller/joints/0/joint: no joint named 'theta9'"), ConfigError);
  Scenario v = parse(R"({"type": "vms", "vehicle": {"body": "rov", "kp": [1, 1, 1, 1, 1, 1], "kd": [0, 0, 0, 0, 0, 0]}})");
  CHECK_THROWS_WITH_AS(VmsController(*sim, *v.vms_controller, v.source),
                       doctest::Contains("s.json: /controller/vehicle/body: body 'rov' has no free joint"), ConfigError);
}

TEST_CASE("signals: the windowed sine, ramp and linear forms and their rates") {
  Signal s;
  s.kind = Signal::Kind::kSine;
  s.amplitude = M_PI / 4;
  s.period = 5;
  s.start = 10;
  s.end = 20;
  CHECK(s.Value(10) == 0);  // the window is (start, end]
  CHECK(s.Value(11.25) == doctest::Approx(M_PI / 4 * std::sin(2 * M_PI * 11.25 / 5)));
  CHECK(s.Value(25) == 0);
  const double h = 1e-6;
  CHECK(s.Rate(12.3) == doctest::Approx((s.Value(12.3 + h) - s.Value(12.3 - h)) / (2 * h)).epsilon(1e-8));
  Signal ramp;
  ramp.kind = Signal::Kind::kRamp;
  ramp.start = 0;
  ramp.end = 20;
  ramp.to = 0.5;
  CHECK(ramp.Value(5) == doctest::Approx(0.125));
  CHECK(ramp.Rate(5) == doctest::Approx(0.025));
  CHECK(ramp.Value(30) == 0.5);
}

TEST_CASE("joint reactions include hydrodynamics, buoyancy and added mass (closed form)") {
  // a body on a slide joint along x, pushed by a motor F through it, with added mass,
  // damping, gravity and buoyancy (centre of buoyancy 0.1 m ahead of the CG): whatever the
  // motion, the parent exerts F along x, the net weight m g - rho V g upwards and the
  // buoyancy's moment about the anchor, nothing else. MuJoCo's own cfrc_int (which does not
  // see the plugins' forces or the added mass) gives m a along x instead.
  const std::string xml = R"(<mujoco model='slide'>
  <compiler inertiafromgeom='false'/>
  <option timestep='0.005' integrator='RK4' gravity='0 0 -9.81'/>
  <extension>
    <plugin plugin='nereid.hydrodynamics'><instance name='h'>
      <config key='body' value='b'/>
      <config key='added_mass' value='4 5 6 0.1 0.2 0.3'/>
      <config key='linear_damping' value='3 3 3 1 1 1'/>
      <config key='quadratic_damping' value='2 2 2 0 0 0'/>
    </instance></plugin>
    <plugin plugin='nereid.buoyancy'><instance name='bu'>
      <config key='body' value='b'/>
      <config key='volume' value='0.006'/>
      <config key='center_of_buoyancy' value='0.1 0 0'/>
    </instance></plugin>
  </extension>
  <worldbody>
    <body name='b' pos='0 0 -5'>
      <joint name='slide' type='slide' axis='1 0 0'/>
      <inertial pos='0 0 0' mass='10' diaginertia='0.1 0.1 0.1'/>
      <geom type='box' size='0.1 0.1 0.1' contype='0' conaffinity='0'/>
    </body>
  </worldbody>
  <actuator><motor name='push' joint='slide'/></actuator>
</mujoco>)";
  auto sim = Simulation::LoadString(xml, {}, "slide.xml");
  const mjModel* m = sim->model();
  mjData* d = sim->data();
  const double F = 7.5, m_b = 10, g = 9.81, B = 1000 * 0.006 * g;
  d->ctrl[0] = F;
  for (int k = 0; k < 200; ++k) sim->Step();  // 1 s: moving, damped, accelerating
  sim->Forward();
  REQUIRE(std::abs(d->qvel[0]) > 0.1);
  const int joint = mj_name2id(m, mjOBJ_JOINT, "slide");
  const JointReaction r = JointReactions(*sim, {joint}).front();
  CHECK(r.force.x() == doctest::Approx(F).epsilon(1e-9));
  CHECK(std::abs(r.force.y()) < 1e-9);
  CHECK(r.force.z() == doctest::Approx(m_b * g - B).epsilon(1e-9));
  // about the body origin p: the buoyancy's moment only; MuJoCo puts a slide joint's anchor
  // where the body was before its translation, so about it the force adds (p - a) x F
  const Vec3 p = BodyPosition(d, 1), a(d->xanchor[0], d->xanchor[1], d->xanchor[2]);
  const Vec3 expected = Vec3(0, 0.1 * B, 0) + (p - a).cross(r.force);
  CHECK((r.torque - expected).norm() < 1e-9);
  CHECK((p - a).norm() > 0.1);  // the body has moved along the slide
  // MuJoCo's own interaction force along x is m a (the added mass and damping unseen)
  CHECK(std::abs(d->cfrc_int[6 * 1 + 3] - m_b * d->qacc[0]) < 1e-9);
  CHECK(std::abs(d->cfrc_int[6 * 1 + 3] - F) > 1.0);
}

}  // TEST_SUITE

}  // namespace nereid
