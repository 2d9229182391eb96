// Copyright Nereid authors.
// With no marine physics in a model, one Nereid step must equal MuJoCo's own step to
// machine precision (docs/design.md): this guards every MuJoCo upgrade.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/error.h"
#include "nereid/simulation.h"
#include "passive_stage.h"
#include "site_transmission.h"
#include "test_util.h"

namespace nereid {
namespace {

// a damped hinge chain with position actuators and filter dynamics (activations)
const char kChain[] = R"(
<mujoco model='chain'>
  <option timestep='0.002'/>
  <worldbody>
    <body name='l1' pos='0 0 1'>
      <joint name='j1' type='hinge' axis='0 1 0' damping='0.1'/>
      <geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.05'/>
      <body name='l2' pos='0.5 0 0'>
        <joint name='j2' type='hinge' axis='0 1 0' damping='0.05'/>
        <geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.04'/>
        <body name='l3' pos='0.4 0 0'>
          <joint name='j3' type='slide' axis='1 0 0' damping='0.2'/>
          <geom type='box' size='0.05 0.05 0.05'/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position joint='j1' kp='5'/>
    <general joint='j2' dyntype='filter' dynprm='0.05' gainprm='2'/>
    <general joint='j3' dyntype='filterexact' dynprm='0.03' gainprm='1' actlimited='true' actrange='-0.5 0.5'/>
  </actuator>
</mujoco>)";

// free bodies falling onto a plane and onto each other: contacts
const char kContacts[] = R"(
<mujoco model='contacts'>
  <option timestep='0.002'/>
  <worldbody>
    <geom type='plane' size='5 5 0.1'/>
    <body name='box' pos='0 0 0.3' euler='10 20 30'>
      <freejoint/>
      <geom type='box' size='0.1 0.15 0.05' density='800'/>
    </body>
    <body name='ball' pos='0.05 0 0.6'>
      <freejoint/>
      <geom type='sphere' size='0.07' density='500'/>
    </body>
    <body name='capsule' pos='0.3 0.1 0.4' euler='0 80 0'>
      <freejoint/>
      <geom type='capsule' size='0.04 0.12'/>
    </body>
  </worldbody>
</mujoco>)";

// two free bodies joined by a weld and a connect equality constraint
const char kEquality[] = R"(
<mujoco model='equality'>
  <option timestep='0.002' gravity='0 0 -9.81'/>
  <worldbody>
    <body name='a' pos='0 0 1'>
      <freejoint/>
      <geom type='box' size='0.2 0.1 0.1' density='1000'/>
    </body>
    <body name='b' pos='0.5 0 1'>
      <freejoint/>
      <geom type='box' size='0.2 0.1 0.1' density='700'/>
    </body>
    <body name='c' pos='0 0 2'>
      <joint type='ball'/>
      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/>
    </body>
  </worldbody>
  <equality>
    <weld body1='a' body2='b'/>
    <connect body1='c' body2='world' anchor='0 0 0'/>
  </equality>
</mujoco>)";

// added mass on a free body resting on a plane (contacts), on a link of a hinged arm (the
// Jacobian path) and on a ball held by a connect constraint; the arm's elbow actuator
// brings armature, so MuJoCo's Euler integrates that joint's velocity implicitly
// (jnt_actuatorid), with zero damping everywhere
std::string HydroInstance(const std::string& body, const std::string& added_mass,
                          const std::string& linear = "0 0 0 0 0 0",
                          const std::string& quadratic = "0 0 0 0 0 0") {
  return "<instance name='" + body + "_hydro'><config key='body' value='" + body +
         "'/><config key='added_mass' value='" + added_mass + "'/><config key='linear_damping' value='" +
         linear + "'/><config key='quadratic_damping' value='" + quadratic + "'/></instance>";
}
const std::string kMarineContacts = R"(
<mujoco model='marine_contacts'>
  <option timestep='0.002'/>
  <extension><plugin plugin='nereid.hydrodynamics'>)" +
    HydroInstance("box", "2 3 4 0.02 0.03 0.04", "1 1 1 0.1 0.1 0.1", "2 2 2 0.2 0.2 0.2") +
    HydroInstance("link", "1 1.5 2 0.01 0.01 0.02") + HydroInstance("ball", "0.5 0.5 0.5 0 0 0") + R"(
  </plugin></extension>
  <worldbody>
    <geom type='plane' size='5 5 0.1'/>
    <body name='box' pos='0 0 0.06' euler='3 4 5'>
      <freejoint/>
      <geom type='box' size='0.2 0.15 0.05' density='800'/>
    </body>
    <body name='arm' pos='1 0 1'>
      <joint name='elbow' type='hinge' axis='0 1 0'/>
      <geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.03'/>
      <body name='link' pos='0.4 0 0'>
        <joint type='hinge' axis='0 0 1'/>
        <geom type='box' pos='0.15 0 0' size='0.15 0.05 0.05'/>
      </body>
    </body>
    <body name='ball' pos='-1 0 1.5'>
      <freejoint/>
      <geom type='sphere' size='0.07' density='500'/>
    </body>
  </worldbody>
  <equality>
    <connect body1='ball' body2='world' anchor='0 0 0.2'/>
  </equality>
  <actuator><position joint='elbow' kp='5' armature='0.01'/></actuator>
</mujoco>)";

// MuJoCo 3.14's actuators with states of their own: a PID with its integral (2 controls:
// position and velocity targets); a DC motor with all five of its states (slew limit, PI
// integral with its clamp Imax, temperature, LuGre bristle, current) and one with its
// current only; a velocity integrator with an activation range. Each state is advanced
// its own way at the end of the step (exactly for the current and the bristle), which
// Nereid's RK4 does itself
// (the chain above with these actuators in place of its own)
const std::string kActuatorStates = [] {
  const std::string chain = kChain;
  const size_t begin = chain.find("<actuator>"), end = chain.find("</actuator>");
  return chain.substr(0, begin) + R"(<actuator>
    <pid joint='j1' kp='4' ki='2' kv='0.3' input='pos vel'/>
    <dcmotor joint='j2' resistance='2' motorconst='0.05' input='pos vel' controller='1 0.5 0.1 1 0.2'
             inductance='0.01' thermal='1 2' lugre='0.3 0.4 0.5 12 0.02'/>
    <dcmotor joint='j3' resistance='2' inductance='0.01' motorconst='0.05'/>
    <intvelocity joint='j3' kp='3' actrange='-0.4 0.4'/>
  )" + chain.substr(end);
}();

void Excite(mjData* d, const mjModel* m) {
  for (int i = 0; i < m->nv; ++i) d->qvel[i] = 0.3 * std::sin(1.0 + i);
  for (int i = 0; i < m->nu; ++i) d->ctrl[i] = 0.4 + 0.1 * i;
}

// Steps the same model with Nereid's engine and with mj_step; returns the largest
// difference in qpos, qvel and act over `steps`. `before_step(k, model, data)`, when given,
// runs on both before step k (after Excite's start).
using BeforeStep = std::function<void(int, mjModel*, mjData*)>;
double Compare(const char* xml, Integrator integrator, int steps, const BeforeStep& before_step = {}) {
  SimulationOptions options;
  options.integrator = integrator;  // also sets the model's <option integrator> for mj_step
  auto sim = Simulation::LoadString(xml, options);
  auto reference = Simulation::LoadString(xml, options);
  mjModel* m = sim->mutable_model();
  mjData* d = sim->data();
  mjModel* rm = reference->mutable_model();
  mjData* rd = reference->data();
  Excite(d, m);
  Excite(rd, rm);
  REQUIRE(sim->added_mass_bodies().empty());
  double error = 0;
  for (int k = 0; k < steps; ++k) {
    if (before_step) {
      before_step(k, m, d);
      before_step(k, rm, rd);
    }
    REQUIRE(sim->TryStep());
    mj_step(rm, rd);
    error = std::max(error, test::MaxAbsDiff(d->qpos, rd->qpos, m->nq));
    error = std::max(error, test::MaxAbsDiff(d->qvel, rd->qvel, m->nv));
    error = std::max(error, test::MaxAbsDiff(d->act, rd->act, m->na));
  }
  CHECK(d->time == doctest::Approx(rd->time).epsilon(1e-15));
  return error;
}

TEST_SUITE("step_equivalence") {

TEST_CASE("marine off: Nereid step == mj_step (Euler, RK4, implicitfast), four models") {
  for (const char* xml : {kChain, kContacts, kEquality, kActuatorStates.c_str()}) {
    for (Integrator integrator : {Integrator::kEuler, Integrator::kRK4, Integrator::kImplicitFast}) {
      CAPTURE(ToString(integrator));
      const double error = Compare(xml, integrator, 600);
      MESSAGE("max |dq|, |dv| = " << error);
      CHECK(error <= 1e-12);
    }
  }
}

// Integrated rotational setpoints, which MuJoCo 3.14's mj_advance moves to an equivalent
// one after each step: an intvelocity servo on a ball joint and one on a site with a
// refsite and a rotational gear (to the setpoint nearest the length, whole turns apart), an
// SO(3) servo with integrator dynamics (to a rotation of at most pi); an intvelocity on a
// hinge is left alone
const char kRotationalSetpoints[] = R"(
<mujoco model='rotational setpoints'>
  <option timestep='0.002'/>
  <worldbody>
    <site name='reference'/>
    <body name='arm' pos='0 0 1'>
      <joint name='ball' type='ball' damping='0.1'/>
      <geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.05'/>
    </body>
    <body name='float' pos='1 0 1'>
      <freejoint/>
      <geom size='0.1'/>
      <site name='float_site'/>
    </body>
    <body name='wheel' pos='2 0 1'>
      <joint name='hinge' type='hinge' axis='0 1 0' damping='0.1'/>
      <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.05'/>
      <site name='wheel_site'/>
    </body>
  </worldbody>
  <actuator>
    <intvelocity joint='ball' kp='3' gear='1 0 0'/>
    <intvelocity site='wheel_site' refsite='reference' kp='3' gear='0 0 0 0 1 0'/>
    <general site='float_site' refsite='reference' gaintype='so3' biastype='so3' dyntype='integrator'
             gainprm='1' biasprm='0 -1 0'/>
    <intvelocity joint='hinge' kp='2'/>
  </actuator>
</mujoco>)";

TEST_CASE("integrated rotational setpoints are wrapped as mj_step wraps them; none advance with actuation off") {
  // 4 s at 8 rad/s: each setpoint passes several turns. Then actuation is disabled for the
  // last 200 steps: MuJoCo leaves the activations where they are (their rates are stale)
  for (Integrator integrator : {Integrator::kEuler, Integrator::kRK4, Integrator::kImplicitFast}) {
    CAPTURE(ToString(integrator));
    double largest_setpoint = 0;
    const double error = Compare(kRotationalSetpoints, integrator, 2200, [&](int k, mjModel* m, mjData* d) {
      if (k == 2000) m->opt.disableflags |= mjDSBL_ACTUATION;
      for (int c = 0; c < m->nu; ++c) d->ctrl[c] = 8.0 - 3.0 * c;
      for (int a = 0; a < m->na; ++a) largest_setpoint = std::max(largest_setpoint, std::abs(d->act[a]));
    });
    MESSAGE("max |dq|, |dv|, |dact| = " << error);
    CHECK(error <= 1e-12);
    CHECK(largest_setpoint > 2 * M_PI);  // the hinge's, unwrapped: the others were wrapped
  }
}

TEST_CASE("the contact and equality models really exercise contacts and constraints") {
  auto contacts = Simulation::LoadString(kContacts);
  for (int k = 0; k < 200; ++k) contacts->Step();
  CHECK(contacts->data()->ncon > 0);
  auto equality = Simulation::LoadString(kEquality);
  equality->Step();
  CHECK(equality->data()->ne > 0);
}

TEST_CASE("added mass enters M before MuJoCo's one factorisation: the same as factorising and projecting again") {
  // Nereid's position stage puts J^T M_A J into d->M between mj_makeM and mj_factorM. The
  // reference is MuJoCo's whole mj_fwdPosition, then the same M (rigid + added), its
  // factor and the constraint projection made again: every result must be bit for bit
  // the same, through contacts and an equality constraint, with each integrator
  for (Integrator integrator : {Integrator::kEuler, Integrator::kRK4, Integrator::kImplicitFast}) {
    CAPTURE(ToString(integrator));
    SimulationOptions options;
    options.integrator = integrator;
    auto sim = Simulation::LoadString(kMarineContacts, options);
    const mjModel* m = sim->model();
    mjData* d = sim->data();
    REQUIRE(sim->added_mass_bodies().size() == 3);
    Excite(d, m);
    int contacts = 0, checks = 0;
    for (int k = 0; k < 300; ++k) {
      sim->Step();
      if (k % 30 != 29) continue;
      sim->Forward();
      const std::vector<mjtNum> M(d->M, d->M + m->nC), qLD(d->qLD, d->qLD + m->nC),
          qacc(d->qacc, d->qacc + m->nv), efc_force(d->efc_force, d->efc_force + d->nefc);
      const int nefc = d->nefc;
      contacts = std::max(contacts, d->ncon);
      mj_fwdPosition(m, d);  // M without the added mass, factorised and projected
      REQUIRE(d->nefc == nefc);
      bool rigid_differs = false;
      for (int i = 0; i < m->nC; ++i) rigid_differs |= d->M[i] != M[i];
      CHECK(rigid_differs);  // the added mass is really there
      std::copy(M.begin(), M.end(), d->M);
      mj_factorM(m, d);
      mj_projectConstraint(m, d);
      mj_forwardSkip(m, d, mjSTAGE_POS, 1);
      CHECK(test::MaxAbsDiff(d->qLD, qLD.data(), m->nC) == 0);
      CHECK(test::MaxAbsDiff(d->qacc, qacc.data(), m->nv) == 0);
      CHECK(test::MaxAbsDiff(d->efc_force, efc_force.data(), nefc) == 0);
      ++checks;
    }
    CHECK(checks == 10);
    CHECK(contacts > 0);
    CHECK(d->ne > 0);
  }
}

void NoPassive(const mjModel*, mjData*) {}

// While alive, a no-op mjcb_passive: MuJoCoPassiveIsZero is false, so the engine leaves
// mj_passive whole, as MuJoCo runs it
struct MuJoCoPassive {
  MuJoCoPassive() { mjcb_passive = &NoPassive; }
  ~MuJoCoPassive() { mjcb_passive = nullptr; }
  MuJoCoPassive(const MuJoCoPassive&) = delete;
  MuJoCoPassive& operator=(const MuJoCoPassive&) = delete;
};

// A model file (a path ending in .xml) or MJCF text, loaded with `options`.
std::unique_ptr<Simulation> Load(const std::string& model, const SimulationOptions& options = {}) {
  return model.ends_with(".xml") ? Simulation::LoadFile(model, options) : Simulation::LoadString(model, options);
}

// Steps a model (Load) for `steps` with Nereid's engine (`before` may change the model
// first); returns qvel and qfrc_passive of every step.
std::vector<mjtNum> States(const std::string& model, int steps, Integrator integrator,
                           void (*before)(mjModel*) = nullptr) {
  SimulationOptions options;
  options.integrator = integrator;
  auto sim = Load(model, options);
  if (before) before(sim->mutable_model());
  Excite(sim->data(), sim->model());
  std::vector<mjtNum> states;
  for (int k = 0; k < steps; ++k) {
    sim->Step();
    states.insert(states.end(), sim->data()->qvel, sim->data()->qvel + sim->model()->nv);
    states.insert(states.end(), sim->data()->qfrc_passive, sim->data()->qfrc_passive + sim->model()->nv);
  }
  return states;
}

std::string HeavyXml() { return test::ModelPath("bluerov2_heavy/bluerov2_heavy.xml"); }

TEST_CASE("with MuJoCo's passive forces all zero the engine calls the passive plugins itself: the same steps") {
  // The Heavy and the contact model have no spring, damper, gravity compensation or fluid,
  // and the contact model's elbow actuator only armature: the engine clears the passive forces through mj_passive with
  // springs and dampers disabled, then calls the plugins itself. With MuJoCo's whole
  // mj_passive instead (MuJoCoPassive), every step must be the same bit for bit; the flags
  // are disabled for mj_passive alone (the Euler integrator reads them too)
  for (const std::string& xml : {HeavyXml(), kMarineContacts}) {
    {
      auto sim = Load(xml);
      REQUIRE(MuJoCoPassiveIsZero(sim->model()));  // the engine's own passive stage runs
    }
    for (Integrator integrator : {Integrator::kEuler, Integrator::kRK4, Integrator::kImplicitFast}) {
      CAPTURE(ToString(integrator));
      const std::vector<mjtNum> own = States(xml, 200, integrator);
      std::vector<mjtNum> mujoco;
      {
        MuJoCoPassive whole;
        mujoco = States(xml, 200, integrator);
      }
      REQUIRE(own.size() == mujoco.size());
      CHECK(test::MaxAbsDiff(own.data(), mujoco.data(), static_cast<long>(own.size())) == 0);
      CHECK(std::abs(own[6]) > 0);  // the plugins' passive force is there
    }
  }
  auto arm = Simulation::LoadString(kMarineContacts);
  CHECK(arm->model()->jnt_actuatorid[1] == 0);  // the elbow's actuator, which Euler reads
}

TEST_CASE("a damping set after loading is honoured at the next step, as MuJoCo's own passive stage does") {
  // dof damping 2 N s/m in surge, written into the model after loading: the engine must see
  // it at the next step (MuJoCoPassiveIsZero is checked at every step) and move as the
  // same model stepped through MuJoCo's whole mj_passive
  auto damped = [](mjModel* m) { m->dof_damping[0] = 2; };
  const std::string heavy = HeavyXml();
  const std::vector<mjtNum> own = States(heavy, 100, Integrator::kEuler, damped);
  std::vector<mjtNum> mujoco;
  {
    MuJoCoPassive whole;
    mujoco = States(heavy, 100, Integrator::kEuler, damped);
  }
  const std::vector<mjtNum> undamped = States(heavy, 100, Integrator::kEuler);
  CHECK(test::MaxAbsDiff(own.data(), mujoco.data(), static_cast<long>(own.size())) == 0);
  CHECK(test::MaxAbsDiff(own.data(), undamped.data(), static_cast<long>(own.size())) > 1e-6);
}

TEST_CASE("MuJoCoPassiveIsZero: each of MuJoCo's passive terms, set, makes it false") {
  const char xml[] = R"(
<mujoco>
  <worldbody>
    <body name='a'>
      <joint name='j' type='hinge'/>
      <geom type='sphere' size='0.1'/>
      <site name='s'/>
      <body name='b' pos='0.3 0 0'>
        <joint type='slide'/>
        <geom type='sphere' size='0.1'/>
        <site name='t'/>
      </body>
    </body>
  </worldbody>
  <tendon><spatial name='ten'><site site='s'/><site site='t'/></spatial></tendon>
  <actuator><motor joint='j'/></actuator>
</mujoco>)";
  char error[512] = "";
  mjSpec* spec = mj_parseXMLString(xml, nullptr, error, sizeof(error));
  REQUIRE(spec);
  mjModel* m = mj_compile(spec, nullptr);
  REQUIRE(m);
  CHECK(MuJoCoPassiveIsZero(m));
  struct Field { const char* name; mjtNum* value; };
  const Field fields[] = {
      {"jnt_stiffness", m->jnt_stiffness + 1}, {"jnt_stiffnesspoly", m->jnt_stiffnesspoly + 1},
      {"dof_damping", m->dof_damping + 1}, {"dof_dampingpoly", m->dof_dampingpoly + 3},
      {"tendon_stiffness", m->tendon_stiffness}, {"tendon_stiffnesspoly", m->tendon_stiffnesspoly + 1},
      {"tendon_damping", m->tendon_damping}, {"tendon_dampingpoly", m->tendon_dampingpoly},
      {"actuator_damping", m->actuator_damping}, {"actuator_dampingpoly", m->actuator_dampingpoly + 1},
      {"opt.density", &m->opt.density}, {"opt.viscosity", &m->opt.viscosity}};
  for (const Field& f : fields) {
    CAPTURE(f.name);
    for (const mjtNum value : {1e-300, -2.0, std::nan("")}) {
      *f.value = value;
      CHECK_FALSE(MuJoCoPassiveIsZero(m));
    }
    *f.value = -0.0;  // a zero, with its sign
    CHECK(MuJoCoPassiveIsZero(m));
    *f.value = 0;
  }
  {
    MuJoCoPassive whole;
    CHECK_FALSE(MuJoCoPassiveIsZero(m));
  }
  mj_deleteModel(m);
  // compiled-in terms: gravity compensation, adhesion, a flex
  for (const char* body : {"<body gravcomp='0.5'><freejoint/><geom size='0.1'/></body>",
                           "<body><freejoint/><geom size='0.1' adhesion='1'/></body>",
                           "<flexcomp name='f' type='grid' count='3 3 1' spacing='0.1 0.1 0.1' dim='2'/>"}) {
    CAPTURE(body);
    mjSpec* s = mj_parseXMLString((std::string("<mujoco><worldbody>") + body + "</worldbody></mujoco>").c_str(),
                                  nullptr, error, sizeof(error));
    REQUIRE_MESSAGE(s, error);
    mjModel* compiled = mj_compile(s, nullptr);
    REQUIRE(compiled);
    CHECK_FALSE(MuJoCoPassiveIsZero(compiled));
    mj_deleteModel(compiled);
    mj_deleteSpec(s);
  }
  mj_deleteSpec(spec);
}

// site transmissions: a vehicle's thrusters (gears with a moment, zeros and signs), one on
// a body welded to it, one down a hinged arm (a chain of 7 dofs), one on a second vehicle
// and one on a world site (no dofs: an empty row)
const char kSiteActuators[] = R"(
<mujoco model='site actuators'>
  <option gravity='0 0 0'/>
  <worldbody>
    <site name='fixed' pos='1 0 0'/>
    <body name='rov' pos='0 0 -2' euler='10 -20 30'>
      <freejoint/>
      <geom type='box' size='0.2 0.15 0.1' mass='10'/>
      <site name='t1' pos='0.2 0.1 0' euler='0 0 45'/>
      <site name='t2' pos='-0.2 -0.1 0.05' euler='0 90 0'/>
      <body name='skid' pos='0 0 -0.15'>
        <geom type='box' size='0.1 0.1 0.02' mass='1'/>
        <site name='t3' pos='0.05 0 0'/>
      </body>
      <body name='link' pos='0.25 0 0'>
        <joint name='elbow' type='hinge' axis='0 1 0'/>
        <geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03' mass='0.5'/>
        <site name='tip' pos='0.3 0 0' euler='0 30 0'/>
      </body>
    </body>
    <body name='rov2' pos='2 0 -2'>
      <freejoint/>
      <geom type='sphere' size='0.1' mass='3'/>
      <site name='t4' pos='0 0.1 0'/>
    </body>
  </worldbody>
  <actuator>
    <motor site='t1' gear='1 0 0 0 0 0.2'/>
    <motor site='t2' gear='0 -1 0 0.1 0 0'/>
    <motor site='t3' gear='0.5 0.5 -2 0 -0.3 0'/>
    <motor site='tip' gear='0 0 1 0 0 0'/>
    <motor site='t4' gear='0 0 0 0 0 1'/>
    <motor site='fixed' gear='1 0 0 0 0 0'/>
  </actuator>
</mujoco>)";

TEST_CASE("the engine's site transmission equals mj_transmission bit for bit") {
  for (const std::string& model : {std::string(kSiteActuators), HeavyXml()}) {
    auto sim = Load(model);
    const mjModel* m = sim->model();
    mjData* d = sim->data();
    REQUIRE(PlainSiteTransmissions(m));
    REQUIRE(sim->added_mass_bodies().empty() == (model == kSiteActuators));
    Excite(d, m);
    for (int i = 0; i < m->nq; ++i) d->qpos[i] += 0.1 * std::sin(1.0 + i);  // quaternions are normalised by mj_kinematics
    int nonzero = 0, empty = 0;
    for (int k = 0; k < 20; ++k) {
      // the second half with actuator group 0 disabled (all of them): still the same
      if (k == 10) sim->mutable_model()->opt.disableactuator = 1;
      sim->Step();
      mj_fwdPosition(m, d);  // MuJoCo's own mj_transmission
      const std::vector<mjtNum> length(d->actuator_length, d->actuator_length + m->nactuator),
          moment(d->actuator_moment, d->actuator_moment + m->nJmom);
      const std::vector<int> rownnz(d->moment_rownnz, d->moment_rownnz + m->nactuator),
          rowadr(d->moment_rowadr, d->moment_rowadr + m->nactuator), colind(d->moment_colind, d->moment_colind + m->nJmom);
      std::fill(d->actuator_length, d->actuator_length + m->nactuator, 1.0);
      std::fill(d->actuator_moment, d->actuator_moment + m->nJmom, 7.0);
      std::fill(d->moment_rownnz, d->moment_rownnz + m->nactuator, -1);
      std::fill(d->moment_colind, d->moment_colind + m->nJmom, -1);
      std::vector<int> chain;
      SiteTransmission(m, d, &chain);
      for (int i = 0; i < m->nactuator; ++i) {
        CAPTURE(i);
        REQUIRE(d->moment_rownnz[i] == rownnz[i]);
        REQUIRE(d->moment_rowadr[i] == rowadr[i]);
        CHECK(d->actuator_length[i] == length[i]);
        for (int a = rowadr[i]; a < rowadr[i] + rownnz[i]; ++a) {
          CHECK(d->moment_colind[a] == colind[a]);
          CHECK(std::bit_cast<std::uint64_t>(d->actuator_moment[a]) == std::bit_cast<std::uint64_t>(moment[a]));
        }
        nonzero += rownnz[i];
        empty += rownnz[i] == 0;
      }
    }
    CHECK(nonzero > 0);
    if (model == kSiteActuators) {
      CHECK(empty == 20);  // the world site's row, at every step
      // the arm's row reaches the elbow's dof
      const int elbow = m->jnt_dofadr[mj_name2id(m, mjOBJ_JOINT, "elbow")];
      const int* cols = d->moment_colind + d->moment_rowadr[3];
      CHECK(std::find(cols, cols + d->moment_rownnz[3], elbow) != cols + d->moment_rownnz[3]);
    }
  }
}

TEST_CASE("a NaN or infinite gear is refused at load, naming the actuator") {
  // MuJoCo's transmission would fill the actuator's whole moment row (0 x NaN in every dof's
  // column), beyond the room its compiler sized for the row
  for (const char* bad : {"nan", "inf", "-inf"}) {
    std::string xml = kSiteActuators;
    xml.replace(xml.find("gear='0 0 1 0 0 0'"), std::string("gear='0 0 1 0 0 0'").size(),
                std::string("name='arm thruster' gear='0 0 ") + bad + " 0 0 0'");
    std::string message;
    try {
      Load(xml);
    } catch (const ConfigError& e) {
      message = e.what();
    }
    CAPTURE(message);
    CHECK(message.find("actuator 'arm thruster': gear[2] = " + std::string(bad) + ": must be finite") !=
          std::string::npos);
  }
}

TEST_CASE("PlainSiteTransmissions: a joint actuator, a reference site or no actuator leaves MuJoCo's transmission") {
  auto contacts = Load(kMarineContacts);  // a position actuator on a hinge
  CHECK_FALSE(PlainSiteTransmissions(contacts->model()));
  std::string refsite = kSiteActuators;
  refsite.replace(refsite.find("<motor site='t4'"), std::string("<motor site='t4'").size(),
                  "<motor site='t4' refsite='fixed'");
  CHECK_FALSE(PlainSiteTransmissions(Load(refsite)->model()));
  CHECK_FALSE(PlainSiteTransmissions(Load(kChain)->model()));  // joint actuators on a hinge chain
  const auto no_actuator = Load(kContacts);
  REQUIRE(no_actuator->model()->nactuator == 0);
  CHECK_FALSE(PlainSiteTransmissions(no_actuator->model()));
  CHECK(PlainSiteTransmissions(Load(kSiteActuators)->model()));
}

TEST_CASE("engine mujoco is plain mj_step") {
  SimulationOptions options;
  options.engine = Engine::kMuJoCo;
  auto sim = Simulation::LoadString(kContacts, options);
  auto reference = Simulation::LoadString(kContacts, options);
  for (int k = 0; k < 100; ++k) {
    sim->Step();
    mj_step(reference->model(), reference->data());
  }
  CHECK(test::MaxAbsDiff(sim->data()->qpos, reference->data()->qpos, sim->model()->nq) == 0);
}

}  // TEST_SUITE
}  // namespace
}  // namespace nereid
