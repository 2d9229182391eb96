// Copyright Nereid authors.
// Unit tests of nereid-view's logic that needs no OpenGL: key table, teleoperation,
// depth and heading holds, overlays (drawn into an mjvScene without rendering), HUD,
// and the command line.
#include <GLFW/glfw3.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "control.h"
#include "glfw_error.h"
#include "hud.h"
#include "instruments.h"
#include "keys.h"
#include "nereid/simulation.h"
#include "options.h"
#include "overlays.h"
#include "scenery.h"
#include "teleop.h"

namespace nereid::viewer {
namespace {

const std::string kHeavy = std::string(NEREID_SOURCE_MODEL_DIR) + "/bluerov2_heavy/bluerov2_heavy.xml";
const std::string kHeavySensors =
    std::string(NEREID_SOURCE_MODEL_DIR) + "/bluerov2_heavy/bluerov2_heavy_sensors.xml";

Vec3 SitePos(const mjModel* m, const mjData* d, const char* name) {
  const int s = mj_name2id(m, mjOBJ_SITE, name);
  REQUIRE(s >= 0);
  return {d->site_xpos[3 * s], d->site_xpos[3 * s + 1], d->site_xpos[3 * s + 2]};
}

const mjtNum* SensorData(const mjModel* m, const mjData* d, const char* name) {
  const int s = mj_name2id(m, mjOBJ_SENSOR, name);
  REQUIRE(s >= 0);
  return d->sensordata + m->sensor_adr[s];
}

int CountLines(const std::string& text) {
  return text.empty() ? 0 : 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_SUITE("viewer_keys") {
  TEST_CASE("every key is bound once, across actions, overlays and teleoperation") {
    std::multiset<int> keys;
    for (const KeyBinding& b : KeyBindings()) keys.insert(b.key);
    for (const OverlayInfo& o : Overlays()) keys.insert(o.key);
    for (const AxisKey& k : AxisKeys()) keys.insert(k.key);
    for (int key : keys) CHECK_MESSAGE(keys.count(key) == 1, "key ", key, " is bound twice");
  }

  TEST_CASE("keys dispatch to their actions") {
    CHECK(ActionForKey(GLFW_KEY_SPACE) == Action::kPause);
    CHECK(ActionForKey(GLFW_KEY_BACKSPACE) == Action::kReset);
    CHECK(ActionForKey(GLFW_KEY_Z) == Action::kDepthHold);
    CHECK(ActionForKey(GLFW_KEY_1) == Action::kToggleOverlay);
    CHECK(ActionForKey(GLFW_KEY_W) == Action::kNone);  // held, not pressed
  }

  TEST_CASE("the help lists every binding, overlay and teleoperation axis, in two aligned columns") {
    std::string keys, descriptions;
    HelpText(&keys, &descriptions);
    const int expected = static_cast<int>(KeyBindings().size()) + kOverlayCount + kAxisCount;
    CHECK(CountLines(keys) == expected);
    CHECK(CountLines(descriptions) == expected);
    CHECK(descriptions.find("buoyancy at the CB overlay") != std::string::npos);
    CHECK(keys.find("W S") != std::string::npos);
  }
}

TEST_SUITE("viewer_teleop") {
  TEST_CASE("held keys give body-frame axes; opposite keys cancel") {
    Axes axes = AxesFromKeys([](int key) { return key == GLFW_KEY_W || key == GLFW_KEY_A || key == GLFW_KEY_Q; });
    CHECK(axes[kSurge] == 1);
    CHECK(axes[kSway] == 1);  // A: to port, +y in FLU
    CHECK(axes[kYaw] == 1);   // Q: turn left, +z
    CHECK(axes[kHeave] == 0);
    axes = AxesFromKeys([](int key) { return key == GLFW_KEY_R || key == GLFW_KEY_F; });
    CHECK(axes.isZero());
  }

  TEST_CASE("gamepad axes: deadband, rescaling, stick y pointing down, triggers at rest") {
    float state[GLFW_GAMEPAD_AXIS_LAST + 1] = {};
    state[GLFW_GAMEPAD_AXIS_LEFT_TRIGGER] = -1;
    state[GLFW_GAMEPAD_AXIS_RIGHT_TRIGGER] = -1;
    state[GLFW_GAMEPAD_AXIS_LEFT_X] = 0.05f;  // inside the deadband
    state[GLFW_GAMEPAD_AXIS_LEFT_Y] = -1;     // pushed up: forward
    state[GLFW_GAMEPAD_AXIS_RIGHT_X] = 0.55f;  // half way past the deadband: turn right
    Axes axes = AxesFromGamepad(state, 0.1);
    CHECK(axes[kSurge] == doctest::Approx(1));
    CHECK(axes[kSway] == 0);
    CHECK(axes[kYaw] == doctest::Approx(-0.5));
    CHECK(axes[kRoll] == 0);
    state[GLFW_GAMEPAD_AXIS_RIGHT_TRIGGER] = 1;
    CHECK(AxesFromGamepad(state, 0.1)[kRoll] == doctest::Approx(1));
    CHECK(AxesFromGamepad(std::span<const float>(state, 2)).isZero());  // too few axes
  }

  TEST_CASE("the wrench scales axes to the limits and clamps combined inputs") {
    Axes axes = Axes::Zero();
    axes[kSurge] = 2;  // keys plus a gamepad
    axes[kYaw] = -0.5;
    const Vec6 w = BodyWrench(axes, TeleopLimits{40, 10});
    CHECK(w[0] == 40);
    CHECK(w[5] == -5);
    CHECK(w.segment<4>(1).isZero());
  }
}

TEST_SUITE("viewer_control") {
  TEST_CASE("critical gains: kp = I w^2, kd = 2 I w; output clamped") {
    const PdGains g = PdGains::Critical(30, 2, 50);
    CHECK(g.kp == 120);
    CHECK(g.kd == 120);
    CHECK(PdOutput(g, 0.1, 0) == doctest::Approx(12));
    CHECK(PdOutput(g, 0, 0.1) == doctest::Approx(-12));
    CHECK(PdOutput(g, 10, 0) == 50);
  }

  TEST_CASE("heading of a rotation and wrapped differences") {
    const double a = 0.3;
    const double yaw[9] = {std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1};
    CHECK(Heading(yaw) == doctest::Approx(a));
    CHECK(AngleDifference(M_PI - 0.1, -M_PI + 0.1) == doctest::Approx(-0.2));
    CHECK(AngleDifference(-M_PI + 0.1, M_PI - 0.1) == doctest::Approx(0.2));
    CHECK(AngleDifference(M_PI, 0) == doctest::Approx(M_PI));
  }

  TEST_CASE("holds push back towards their setpoints and are silent when off") {
    Hold depth, heading;
    const PdGains g = PdGains::Critical(1, 1, 100);
    HoldOutput out = HoldWrench(depth, g, heading, g, -2, 0, 0, 0);
    CHECK(out.heave_force == 0);
    CHECK(out.yaw_moment == 0);
    depth.Engage(-2);
    heading.Engage(3.1);
    out = HoldWrench(depth, g, heading, g, -2.5, 0, -3.1, 0);  // too deep; heading across +-pi
    CHECK(out.heave_force == doctest::Approx(0.5));
    CHECK(out.yaw_moment == doctest::Approx(AngleDifference(3.1, -3.1)));
    CHECK(out.yaw_moment < 0);  // the short way round
    depth.Nudge(1, 0.5, 0.2);
    CHECK(depth.setpoint == doctest::Approx(-1.9));
  }
}

TEST_SUITE("viewer_overlays") {
  TEST_CASE("overlay names, keys and colours are distinct") {
    std::set<std::string_view> names;
    std::set<std::array<float, 4>> colours;
    for (int i = 0; i < kOverlayCount; ++i) {
      const OverlayInfo& o = Overlays()[i];
      CHECK(static_cast<int>(o.overlay) == i);
      names.insert(o.name);
      colours.insert(o.rgba);
      Overlay found;
      CHECK(FindOverlay(o.name, &found));
      CHECK(found == o.overlay);
    }
    CHECK(names.size() == kOverlayCount);
    CHECK(colours.size() == kOverlayCount);
    Overlay found;
    CHECK_FALSE(FindOverlay("drag", &found));
  }

  TEST_CASE("arrows for the BlueROV2 Heavy: weight down at the CG, buoyancy up at the CB") {
    auto sim = Simulation::LoadFile(kHeavy);
    sim->Reset(0);
    sim->Step();
    const mjModel* m = sim->model();
    mjvScene scn;
    mjv_defaultScene(&scn);
    mjv_makeScene(m, &scn, 100);
    const ArrowScales scales = ArrowScales::ForModel(m);
    CHECK(scales.restoring == doctest::Approx(0.5 * m->stat.extent / (11.5 * 9.81)));

    OverlaySet set;
    set.set(static_cast<size_t>(Overlay::kWeight));
    set.set(static_cast<size_t>(Overlay::kBuoyancy));
    AddOverlays(m, sim->data(), *sim, 1, set, scales, &scn);
    REQUIRE(scn.ngeom == 2);
    const mjvGeom& weight = scn.geoms[0];
    const mjvGeom& buoyancy = scn.geoms[1];
    CHECK(weight.type == mjGEOM_ARROW);
    CHECK(weight.rgba[0] == 1);
    CHECK(weight.rgba[1] == 0);
    CHECK(weight.emission == 1);
    // arrows point along their local z: down for the weight, up for the buoyancy
    CHECK(weight.mat[8] == doctest::Approx(-1));
    CHECK(buoyancy.mat[8] == doctest::Approx(1));
    // lengths proportional to the forces: buoyancy 114.8 N, weight 112.8 N
    CHECK(buoyancy.size[2] / weight.size[2] == doctest::Approx(1000 * 11.702e-3 / 11.5).epsilon(1e-3).scale(0));
    CHECK(weight.size[2] == doctest::Approx(0.5 * m->stat.extent).epsilon(1e-3).scale(0));

    // at rest in still water: no damping, no current, no tether, no equality
    scn.ngeom = 0;
    set.reset();
    for (Overlay o : {Overlay::kDamping, Overlay::kCoriolis, Overlay::kCurrent, Overlay::kTether,
                      Overlay::kConstraint}) {
      set.set(static_cast<size_t>(o));
    }
    AddOverlays(m, sim->data(), *sim, 1, set, scales, &scn);
    CHECK(scn.ngeom == 0);

    // moving through a current: damping and current arrows appear
    sim->SetCurrent(CurrentField::Constant({0, 0.5, 0}));
    for (int i = 0; i < 50; ++i) sim->Step();
    AddOverlays(m, sim->data(), *sim, 1, set, scales, &scn);
    int damping = 0, current = 0;
    for (int i = 0; i < scn.ngeom; ++i) {
      damping += scn.geoms[i].rgba[1] == 0 && scn.geoms[i].rgba[2] == 1 && scn.geoms[i].rgba[0] == 1;
      current += scn.geoms[i].rgba[2] == 0 && scn.geoms[i].rgba[0] == 1 && scn.geoms[i].rgba[1] == 1;
    }
    CHECK(damping >= 1);
    CHECK(current == 1);

    // a full scene is left alone
    scn.ngeom = scn.maxgeom;
    AddOverlays(m, sim->data(), *sim, 1, set, scales, &scn);
    CHECK(scn.ngeom == scn.maxgeom);
    mjv_freeScene(&scn);
  }

  TEST_CASE("scenery: the model's floor, a scenario's wall and seabed, the depth gauge") {
    auto sim = Simulation::LoadFile(kHeavy);
    const mjModel* m = sim->model();
    REQUIRE(ModelFloor(m).has_value());
    CHECK(*ModelFloor(m) == -20);  // bluerov2_heavy.xml's floor plane
    auto bare = Simulation::LoadString("<mujoco><worldbody><body><freejoint/><geom size='0.1'/></body></worldbody></mujoco>");
    CHECK_FALSE(ModelFloor(bare->model()).has_value());

    const Scenario plain = Scenario::FromString(R"({"model": "x.xml"})", "s.json", "");
    Scenery s = Scenery::For(m, &plain);
    CHECK_FALSE(s.wall.has_value());
    CHECK(*s.seabed_z == -20);
    CHECK(s.CameraAzimuth(150) == 150);
    CHECK(s.WallBottom() == -20);
    const Scenario quay = Scenario::FromString(
        R"({"model": "x.xml", "scene": {"wall": {"face_x": 0.5, "y": [-4, 8]}, "seabed_depth": 12}})", "s.json", "");
    s = Scenery::For(m, &quay);
    REQUIRE(s.wall.has_value());
    CHECK(s.wall->face_x == 0.5);
    CHECK(*s.seabed_z == -12);
    CHECK(s.WallBottom() == -12);
    CHECK(s.CameraAzimuth(150) == 30);

    mjvScene scn;
    mjv_defaultScene(&scn);
    mjv_makeScene(m, &scn, 200);
    const double center[3] = {0.4, -0.3, -2};
    AddScenery(m, s, center, &scn);
    // the surface, the wall, 21 + 21 grid lines
    REQUIRE(scn.ngeom == 2 + 42);
    const mjvGeom& wall = scn.geoms[1];
    CHECK(wall.type == mjGEOM_BOX);
    CHECK(wall.pos[0] - wall.size[0] == doctest::Approx(0.5));  // its face
    CHECK(wall.pos[1] == doctest::Approx(2));
    CHECK(wall.pos[2] + wall.size[2] == doctest::Approx(1));    // the crest, 1 m above the water
    CHECK(wall.pos[2] - wall.size[2] == doctest::Approx(-12));  // the foot, on the seabed
    for (int i = 2; i < scn.ngeom; ++i) CHECK(scn.geoms[i].pos[2] == doctest::Approx(-12 + 0.01));

    // the gauge: ticks at whole metres within 5 m of the vehicle's depth (1..7 at 2.3 m),
    // labelled, the pole in front of the wall, and the vehicle's own depth
    scn.ngeom = 0;
    const int before = scn.ngeom;
    // a camera looking at the wall, 30 deg off its normal: its right points into the wall
    const float forward[3] = {0.866f, 0.5f, 0}, up[3] = {0, 0, 1};
    std::copy(forward, forward + 3, scn.camera[0].forward);
    std::copy(up, up + 3, scn.camera[0].up);
    const float black[4] = {0, 0, 0, 1};
    AddDepthGauge(m, s, {0.3, 0, -2.3}, black, &scn);
    REQUIRE(scn.ngeom - before == 1 + 7 + 1);
    CHECK(std::string(scn.geoms[before + 1].label) == "1 m");
    CHECK(std::string(scn.geoms[before + 7].label) == "7 m");
    CHECK(scn.geoms[before + 7].pos[2] == doctest::Approx(-7));
    CHECK(std::string(scn.geoms[before + 8].label) == "2.30 m");
    for (int i = before; i < scn.ngeom; ++i) CHECK(scn.geoms[i].pos[0] < 0.5);
    // a diverged vehicle: nothing
    scn.ngeom = before;
    AddDepthGauge(m, s, {0, 0, std::nan("")}, black, &scn);
    CHECK(scn.ngeom == before);
    mjv_freeScene(&scn);
  }

  TEST_CASE("thrust arrows follow actuator_force along the site's +z; equality forces appear") {
    auto sim = Simulation::LoadString(R"(
      <mujoco>
        <option gravity="0 0 0"/>
        <worldbody>
          <body name="a" pos="0 0 0">
            <freejoint/>
            <geom type="box" size="0.1 0.1 0.1" mass="1"/>
            <site name="s" zaxis="1 0 0"/>
          </body>
          <body name="b" pos="1 0 0">
            <freejoint/>
            <geom type="sphere" size="0.1" mass="1"/>
          </body>
        </worldbody>
        <equality><connect body1="a" body2="b" anchor="0.5 0 0"/></equality>
        <actuator><general site="s" gear="0 0 1 0 0 0"/></actuator>  <!-- along the site's +z -->
      </mujoco>)");
    mjData* d = sim->data();
    d->ctrl[0] = 2;
    sim->Step();
    const mjModel* m = sim->model();
    mjvScene scn;
    mjv_defaultScene(&scn);
    mjv_makeScene(m, &scn, 10);
    OverlaySet set;
    set.set(static_cast<size_t>(Overlay::kThrust));
    ArrowScales scales;
    AddOverlays(m, d, *sim, 1, set, scales, &scn);
    REQUIRE(scn.ngeom == 1);
    CHECK(scn.geoms[0].mat[2] == doctest::Approx(1));  // along world x, the site's +z
    CHECK(scn.geoms[0].size[2] == doctest::Approx(scales.force * 2).epsilon(1e-3).scale(0));

    scn.ngeom = 0;
    set.reset();
    set.set(static_cast<size_t>(Overlay::kConstraint));
    AddOverlays(m, d, *sim, 1, set, scales, &scn);
    CHECK(scn.ngeom == 1);  // the connect pulls body a towards b
    mjv_freeScene(&scn);
  }
}

TEST_SUITE("viewer_overlays") {
  TEST_CASE("sensors overlay: the marker camera's sighting ends at the marker, with the reading's age") {
    setenv("NEREID_EXACT_SENSORS", "1", 1);  // exact readings, read when the data is made
    auto sim = Simulation::LoadFile(NEREID_SOURCE_MODEL_DIR "/docking/bluerov_docking_sensors.xml");
    unsetenv("NEREID_EXACT_SENSORS");
    sim->Reset(0);
    const mjModel* m = sim->model();
    mjData* d = sim->data();
    for (int k = 0; k < 40; ++k) sim->Step();  // 0.2 s: the frame of 0.1 s delivered at 0.2 s
    sim->Forward();
    std::vector<MarkerDrawing> markers = MarkerDrawings(m, d);
    REQUIRE(markers.size() == 1);
    CHECK(markers[0].valid);
    CHECK(markers[0].name == "camera");
    CHECK((markers[0].camera - SitePos(m, d, "chaser_camera")).norm() == 0);
    // the pair hardly moves in 0.2 s: the sighting ends at the marker's site
    CHECK((markers[0].seen - SitePos(m, d, "target_marker")).norm() < 1e-3);
    CHECK(markers[0].age == doctest::Approx(0.1).epsilon(1e-9));  // 10 Hz, 0.1 s latency, at 0.2 s
    mjvScene scn;
    mjv_defaultScene(&scn);
    mjv_makeScene(m, &scn, 10);
    AddMarkerSightings(markers, 0.05, &scn);
    REQUIRE(scn.ngeom == 2);  // the line of sight and the marker
    CHECK(scn.geoms[0].type == mjGEOM_LINE);
    CHECK(scn.geoms[1].rgba[1] == kMarkerRgba[1]);
    CHECK(std::string(scn.geoms[1].label) == "camera 0.1 s");
    // turned away (yaw 90 deg): no sighting, nothing drawn
    sim->Reset(0);  // the sensors' clocks restart: the next step samples the turned state
    const int free = m->jnt_qposadr[m->body_jntadr[mj_name2id(m, mjOBJ_BODY, "chaser")]];
    d->qpos[free + 3] = std::cos(M_PI / 4);
    d->qpos[free + 6] = std::sin(M_PI / 4);
    for (int k = 0; k < 40; ++k) sim->Step();
    sim->Forward();
    markers = MarkerDrawings(m, d);
    CHECK_FALSE(markers[0].valid);
    scn.ngeom = 0;
    AddMarkerSightings(markers, 0.05, &scn);
    CHECK(scn.ngeom == 0);
    mjv_freeScene(&scn);
  }

  TEST_CASE("sensors overlay: DVL beams end at the reported ranges on the seabed; the acoustic fix and its age") {
    setenv("NEREID_EXACT_SENSORS", "1", 1);  // exact readings (docs/sensors.md), read when the data is made
    auto sim = Simulation::LoadFile(kHeavySensors);
    unsetenv("NEREID_EXACT_SENSORS");
    sim->Reset(0);  // the first samples, at t = 0
    const mjModel* m = sim->model();
    mjData* d = sim->data();
    const Vec3 usbl_at_0 = SitePos(m, d, "usbl");
    REQUIRE(usbl_at_0.z() < -0.5);  // below the transceiver: inside its cone

    // tilted (roll 10 deg, pitch -6 deg) and moved, sampled anew at t = 1 s (DVL 4 Hz, USBL 1 Hz)
    const int free = m->jnt_qposadr[0];
    d->qpos[free] = 1.5;
    d->qpos[free + 1] = -0.7;
    Eigen::Quaterniond q = Eigen::AngleAxisd(0.17453292519943295, Vec3::UnitX()) *
                           Eigen::AngleAxisd(-0.10471975511965977, Vec3::UnitY());
    d->qpos[free + 3] = q.w();
    d->qpos[free + 4] = q.x();
    d->qpos[free + 5] = q.y();
    d->qpos[free + 6] = q.z();
    d->time = 1;
    mj_forward(m, d);

    const std::vector<DvlDrawing> dvls = DvlDrawings(m, d);
    REQUIRE(dvls.size() == 1);
    CHECK(dvls[0].status == 1);  // bottom lock on the floor plane at z = -20
    REQUIRE(dvls[0].beams.size() == 4);
    const mjtNum* dvl = SensorData(m, d, "dvl");
    const Vec3 site = SitePos(m, d, "dvl");
    for (size_t i = 0; i < 4; ++i) {
      const DvlBeamSegment& b = dvls[0].beams[i];
      CHECK(b.hit);
      CHECK((b.from - site).norm() == 0);
      CHECK((b.to - b.from).norm() == doctest::Approx(dvl[5 + i]).epsilon(1e-12));  // the reported range
      CHECK(std::abs(b.to.z() - -20) < 1e-9);                                        // on the seabed plane
    }
    // the four hit points are distinct (the beams spread by +-22.5 deg)
    CHECK((dvls[0].beams[0].to - dvls[0].beams[2].to).norm() > 1);

    const std::vector<AcousticFixDrawing> fixes = AcousticFixDrawings(m, d);
    REQUIRE(fixes.size() == 1);
    CHECK(fixes[0].valid);
    CHECK(fixes[0].period == doctest::Approx(1));
    // latency 0.3 s: at t = 1 s the fix delivered is the one taken at t = 0, where the site was
    CHECK(fixes[0].age == doctest::Approx(1).epsilon(1e-12));
    CHECK((fixes[0].fix - usbl_at_0).norm() < 1e-9);
    CHECK((fixes[0].fix - SitePos(m, d, "usbl")).norm() > 1);

    mjvScene scn;
    mjv_defaultScene(&scn);
    mjv_makeScene(m, &scn, 20);
    const float lock[4] = {0, 1, 0.5f, 1};
    AddInstruments(dvls, fixes, lock, 0.05, &scn);
    REQUIRE(scn.ngeom == 4 * 2 + 1);  // a line and a hit sphere per beam, the fix
    CHECK(scn.geoms[0].type == mjGEOM_LINE);
    CHECK(scn.geoms[0].rgba[2] == 0.5f);
    CHECK(scn.geoms[1].type == mjGEOM_SPHERE);
    CHECK(scn.geoms[1].pos[2] == doctest::Approx(-20).epsilon(1e-6));
    CHECK(scn.geoms[8].rgba[3] == doctest::Approx(FixOpacity(1, 1)));
    CHECK(std::string(scn.geoms[8].label) == "usbl 1.0 s");

    // 60 m above the seabed (max_altitude 50 m): no returns, water track; beams drawn to the
    // maximum range 50 m / cos(22.5 deg) (the model's DVL keeps the README's defaults)
    d->qpos[free + 2] = 40;
    d->time = 1.25;
    mj_forward(m, d);
    const std::vector<DvlDrawing> high = DvlDrawings(m, d);
    CHECK(high[0].status == 2);
    for (const DvlBeamSegment& b : high[0].beams) {
      CHECK_FALSE(b.hit);
      CHECK((b.to - b.from).norm() == doctest::Approx(50 / std::cos(22.5 * M_PI / 180)).epsilon(1e-12));
    }
    scn.ngeom = 0;
    AddInstruments(high, {}, lock, 0.05, &scn);
    REQUIRE(scn.ngeom == 4);  // lines only, in the water-track colour
    CHECK(scn.geoms[0].rgba[1] == kWaterTrackRgba[1]);

    // the fix's age: the sample-and-hold clock's, and its fading
    CHECK(ReadingAge(0.2, 1, 0.3) == 0.2);  // nothing delivered yet
    CHECK(ReadingAge(0.3, 1, 0.3) == doctest::Approx(0.3));
    CHECK(ReadingAge(2.55, 1, 0.3) == doctest::Approx(0.55));
    CHECK(FixOpacity(0, 1) == 1);
    CHECK(FixOpacity(1, 1) == doctest::Approx(1 - 0.5 * (1 - kMinFixOpacity)));
    CHECK(FixOpacity(5, 1) == kMinFixOpacity);
    mjv_freeScene(&scn);
  }

  TEST_CASE("the sea's surface: grid heights are eta of the simulated waves; calm water keeps the sheet") {
    auto sim = Simulation::LoadFile(kHeavy);
    const mjModel* m = sim->model();
    // a regular deep-water wave: H 0.5 m, T 4 s towards 0.3 rad
    sim->current()->SetWaves(waves::WaveField::Regular(0.5, 4, 0.3, 0));
    const waves::WaveField* sea = sim->current()->waves();
    REQUIRE(sea != nullptr);
    const double t = 1.7, w = 2 * M_PI / 4, k = w * w / waves::kGravity;
    const SurfaceGrid grid = WaveSurface(*sea, t, 0.4, -0.3, 6, 12);
    REQUIRE(grid.vertices.size() == 13 * 13);
    CHECK(grid.at(0, 0).x() == doctest::Approx(-5.6));
    CHECK(grid.at(12, 12).y() == doctest::Approx(5.7));
    for (const Vec3& v : grid.vertices) {
      CHECK(v.z() == sea->Elevation(v.x(), v.y(), t));  // the physics' own eta
      // Airy's closed form, crest at the origin at t = 0
      CHECK(std::abs(v.z() - 0.25 * std::cos(k * (v.x() * std::cos(0.3) + v.y() * std::sin(0.3)) - w * t)) < 1e-12);
    }
    CHECK(SurfaceCell(*sea) == 0.5);  // L = 25 m
    CHECK(SurfaceCell(waves::WaveField::Regular(0.1, 1, 0, 0)) ==
          doctest::Approx(waves::kGravity / (2 * M_PI) / 8).epsilon(1e-12));  // L = g T^2 / 2 pi

    mjvScene scn;
    mjv_defaultScene(&scn);
    mjv_makeScene(m, &scn, 2 * kSurfaceCells * kSurfaceCells + 50);
    const Scenery s = Scenery::For(m, nullptr);
    const double center[3] = {0.2, 0.1, -2};
    AddScenery(m, s, center, &scn, sea, t);
    REQUIRE(scn.ngeom == 2 * kSurfaceCells * kSurfaceCells + 42);  // the triangles, 21 + 21 grid lines
    // each triangle's corners (pos, pos + mat column 0, pos + mat column 1) lie on eta
    for (int i = 0; i < 2 * kSurfaceCells * kSurfaceCells; i += 97) {
      const mjvGeom& g = scn.geoms[i];
      REQUIRE(g.type == mjGEOM_TRIANGLE);
      for (int c = -1; c < 2; ++c) {
        const double x = g.pos[0] + (c >= 0 ? g.mat[c] : 0), y = g.pos[1] + (c >= 0 ? g.mat[3 + c] : 0),
                     z = g.pos[2] + (c >= 0 ? g.mat[6 + c] : 0);
        CHECK(z == doctest::Approx(sea->Elevation(x, y, t)).epsilon(1e-4).scale(1));
      }
      CHECK(g.mat[8] > 0.9);  // facing up: the waves are gentle (H / L = 0.02)
    }
    // calm water: the one sheet at z = 0, as before
    scn.ngeom = 0;
    AddScenery(m, s, center, &scn, nullptr, t);
    CHECK(scn.ngeom == 1 + 42);
    CHECK(scn.geoms[0].type == mjGEOM_BOX);
    CHECK(scn.geoms[0].pos[2] == 0);
    mjv_freeScene(&scn);
  }

  TEST_CASE("the estimate's ghost: the vehicle's geoms moved rigidly to the estimated pose") {
    auto sim = Simulation::LoadFile(kHeavy);
    sim->Reset(0);
    const mjModel* m = sim->model();
    const mjData* d = sim->data();
    mjvScene scn;
    mjv_defaultScene(&scn);
    mjv_makeScene(m, &scn, 400);
    mjvOption opt;
    mjv_defaultOption(&opt);
    mjvCamera cam;
    mjv_defaultCamera(&cam);
    mjv_updateScene(m, const_cast<mjData*>(d), &opt, nullptr, &cam, mjCAT_ALL, &scn);
    const int body = 1, drawn = scn.ngeom;
    std::vector<int> own;
    for (int i = 0; i < drawn; ++i) {
      if (scn.geoms[i].objtype == mjOBJ_GEOM && m->geom_bodyid[scn.geoms[i].objid] == body) own.push_back(i);
    }
    REQUIRE(!own.empty());
    const Vec3 x(d->xpos[3], d->xpos[4], d->xpos[5]);
    Mat3 R;
    R << d->xmat[9], d->xmat[10], d->xmat[11], d->xmat[12], d->xmat[13], d->xmat[14], d->xmat[15], d->xmat[16],
        d->xmat[17];
    const float ghost[4] = {1, 1, 1, 0.3f};
    // the truth: the ghost covers the vehicle
    AddGhost(m, d, {body}, body, x, R, ghost, &scn);
    REQUIRE(scn.ngeom == drawn + static_cast<int>(own.size()));
    for (size_t j = 0; j < own.size(); ++j) {
      const mjvGeom &a = scn.geoms[own[j]], &g = scn.geoms[drawn + static_cast<int>(j)];
      for (int c = 0; c < 3; ++c) CHECK(g.pos[c] == doctest::Approx(a.pos[c]).epsilon(1e-5).scale(1));
      for (int c = 0; c < 9; ++c) CHECK(g.mat[c] == doctest::Approx(a.mat[c]).epsilon(1e-5).scale(1));
      CHECK(g.rgba[3] == 0.3f);
      CHECK(g.objtype == mjOBJ_UNKNOWN);
    }
    // 0.5 m off and turned 90 deg about world z: a geom at r from the origin goes to the
    // estimate's origin + Rz r
    scn.ngeom = drawn;
    const Mat3 Rz = Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()).toRotationMatrix();
    const Vec3 at = x + Vec3(0.5, 0, 0);
    AddGhost(m, d, {body}, body, at, Rz * R, ghost, &scn);
    for (size_t j = 0; j < own.size(); ++j) {
      const mjvGeom &a = scn.geoms[own[j]], &g = scn.geoms[drawn + static_cast<int>(j)];
      const Vec3 expected = at + Rz * (Vec3(a.pos[0], a.pos[1], a.pos[2]) - x);
      for (int c = 0; c < 3; ++c) CHECK(g.pos[c] == doctest::Approx(expected[c]).epsilon(1e-5).scale(1));
    }
    mjv_freeScene(&scn);
  }
}

TEST_SUITE("viewer_hud") {
  TEST_CASE("HUD lines: time, real time, depth, heading, speed, holds, thrusters") {
    auto sim = Simulation::LoadFile(kHeavy);
    sim->Reset(0);
    sim->Forward();
    HudStatus status;
    status.realtime_factor = 0.98;
    status.depth_hold = true;
    status.camera = "follow";
    std::string titles, values;
    HudText(sim->model(), sim->data(), 1, status, &titles, &values);
    CHECK(CountLines(titles) == CountLines(values));
    CHECK(titles.find("depth") != std::string::npos);
    CHECK(values.find("2.00 m") != std::string::npos);
    CHECK(values.find("0.98x") != std::string::npos);
    CHECK(values.find("0.0 deg") != std::string::npos);
    CHECK(values.find("depth\n") != std::string::npos);
    int site_actuators = 0;
    for (int a = 0; a < static_cast<int>(sim->model()->nactuator); ++a) {
      site_actuators += sim->model()->actuator_trntype[a] == mjTRN_SITE;
    }
    CHECK(CountLines(titles) == 7 + site_actuators);
    // a scenario's controller gets a line of its own, before the camera's
    status.controller = "path: point 3 of 10, 0.050 m from it";
    HudText(sim->model(), sim->data(), 1, status, &titles, &values);
    CHECK(CountLines(titles) == 8 + site_actuators);
    CHECK(titles.find("controller\ncamera") != std::string::npos);
    CHECK(values.find("path: point 3 of 10, 0.050 m from it\nfollow") != std::string::npos);
  }

  TEST_CASE("plots roll: the oldest point goes once the line is full") {
    Plots plots;
    for (int i = 0; i < Plots::kPoints + 10; ++i) plots.Push(i, 2, 0.1);
    CHECK(plots.depth()->linepnt[0] == Plots::kPoints);
    CHECK(plots.depth()->linedata[0][0] == 10);
    CHECK(plots.depth()->linedata[0][2 * Plots::kPoints - 2] == Plots::kPoints + 9);
    plots.Clear();
    CHECK(plots.speed()->linepnt[0] == 0);
  }
}

TEST_SUITE("viewer_options") {
  TEST_CASE("GLFW failures are Nereid messages: what failed, what it means, then GLFW's text") {
    const std::string m = GlfwFailure("cannot open a 640 x 360 OpenGL window", GLFW_PLATFORM_ERROR,
                                      "X11: The DISPLAY environment variable is missing");
    CHECK(m == "cannot open a 640 x 360 OpenGL window: the window system failed (is a display there? set "
               "DISPLAY, or run under xvfb-run -a) (GLFW error 0x00010008: X11: The DISPLAY environment variable "
               "is missing)");
    for (int code = GLFW_NOT_INITIALIZED; code <= GLFW_NO_WINDOW_CONTEXT; ++code) {
      CHECK_MESSAGE(!GlfwErrorMeaning(code).empty(), "GLFW error ", code, " has no meaning");
    }
    CHECK(GlfwFailure("x", GLFW_OUT_OF_MEMORY, "") == "x: out of memory (GLFW error 0x00010005)");
    CHECK(GlfwFailure("x", 0x7fff, "odd") == "x: GLFW failed (GLFW error 0x00007FFF: odd)");
    CHECK(GlfwFailure("x", 0, "") == "x: GLFW gave no reason");
  }


  TEST_CASE("headless flags, overlays and sizes") {
    const ViewerOptions o = ParseOptions({"m.xml", "--headless", "--frames", "5", "--overlay",
                                          "weight", "--overlay", "buoyancy,current", "--width",
                                          "320", "--height", "240", "--screenshot", "a.png"});
    CHECK(o.input == "m.xml");
    CHECK(o.headless);
    CHECK(o.frames == 5);
    CHECK(o.width == 320);
    CHECK(o.overlays.count() == 3);
    CHECK(o.overlays[static_cast<size_t>(Overlay::kCurrent)]);
    CHECK(ParseOptions({"m.xml"}).overlays == ViewerOptions::DefaultOverlays());
    CHECK(ParseOptions({"m.xml", "--overlay", "none"}).overlays.none());
    CHECK(ParseOptions({"m.xml", "--overlay", "all"}).overlays.all());
  }

  TEST_CASE("mistakes are usage errors that name the flag") {
    auto message = [](const std::vector<std::string>& args) {
      try {
        ParseOptions(args);
      } catch (const Usage& u) {
        return u.message;
      }
      return std::string();
    };
    CHECK(message({}).find("MODEL.xml") != std::string::npos);
    CHECK(message({"m.xml", "--overlay", "drag"}).find("'drag'") != std::string::npos);
    CHECK(message({"m.xml", "--frames", "0"}).find("--frames") != std::string::npos);
    CHECK(message({"m.xml", "--screenshot", "a.png"}).find("needs --headless") != std::string::npos);
    CHECK(message({"m.xml", "--camera", "orbit"}).find("--camera") != std::string::npos);
    CHECK(message({"m.xml", "--bogus"}).find("--bogus") != std::string::npos);
  }

  TEST_CASE("every numeric flag refuses nan, inf, negative and huge values, stating the flag, value and range") {
    auto message = [](const std::string& flag, const std::string& value) {
      try {
        ParseOptions({"m.xml", "--headless", flag, value});
      } catch (const Usage& u) {
        return u.message;
      }
      return std::string();
    };
    // flag, its range as the message states it, values that must be refused
    struct Case {
      const char* flag;
      const char* range;
      std::vector<std::string> bad;
    };
    const std::vector<Case> cases = {
        {"--max-force", "0..100000", {"nan", "NaN", "inf", "-inf", "-1", "1e300", "1e400", "100001"}},
        {"--max-moment", "0..100000", {"nan", "inf", "-0.5", "1e300"}},
        {"--speed", "1e-06..1e+06", {"nan", "inf", "0", "-1", "1e300"}},
        {"--width", "1..16384", {"0", "-1", "16385", "100000", "nan", "inf"}},
        {"--height", "1..16384", {"0", "-1", "16385", "nan"}},
        {"--frames", "1..1048576", {"0", "-5", "1048577", "nan"}},
    };
    for (const Case& c : cases) {
      for (const std::string& value : c.bad) {
        const std::string m = message(c.flag, value);
        INFO(c.flag, " ", value, ": ", m);
        CHECK(m.find(c.flag) != std::string::npos);
        CHECK(m.find(c.range) != std::string::npos);
        CHECK(m.find(value) != std::string::npos);  // as typed: "NaN", "1e300"
      }
    }
    // text that is no number, and an integer beyond the type (CLI11 caps it), as typed
    CHECK(message("--width", "12abc") == "--width: must be an integer in 1..16384, got '12abc'");
    CHECK(message("--width", "1e3") == "--width: must be an integer in 1..16384, got '1e3'");
    CHECK(message("--max-force", "abc") == "--max-force: must be a number in 0..100000, got 'abc'");
    CHECK(message("--frames", "-99999999999999999999") == "--frames: must be in 1..1048576, got -99999999999999999999");
    // the limits themselves are accepted
    const ViewerOptions o = ParseOptions({"m.xml", "--max-force", "0", "--max-moment", "1e5", "--width", "16384",
                                          "--height", "1"});
    CHECK(o.max_force == 0);
    CHECK(o.max_moment == 1e5);
    CHECK(o.width == 16384);
    CHECK(o.height == 1);
  }
}

}  // namespace nereid::viewer
