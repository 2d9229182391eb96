// Copyright Nereid authors.
// A scenario's scene in the physics (docs/scenarios.md "scene"): the wall stops a vehicle
// at its face, the added mass stays exact with contacts active, the terrain's file is read
// and checked.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "nereid/error.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "test_util.h"

namespace nereid {
namespace {

constexpr double kMass = 7.31;  // BlueROV, seed 000 Table 3
const char kAddedMass[] = "2.6 18.5 13.3 0.054 0.0173 0.28";
const Vec3 kInertia(0.1, 0.16, 0.16);

// the single test body with its box (0.4 x 0.3 x 0.2 m) colliding
std::string Vehicle(bool gravity, const std::string& damping = "0 0 0 0 0 0") {
  std::string xml =
      test::SingleBody(test::Hydro(kAddedMass, damping), kMass, "0.1 0.16 0.16", gravity, "Euler", 0.005);
  const std::string off = "contype='0' conaffinity='0'";
  xml.replace(xml.find(off), off.size(), "contype='1' conaffinity='1'");
  return xml;
}

Scenario::Scene ParseScene(const std::string& scene, const std::string& dir = "") {
  return Scenario::FromString(R"({"model": "m.xml", "scene": )" + scene + "}", "case.json", dir).scene;
}

std::unique_ptr<Simulation> Load(const std::string& xml, const Scenario::Scene& scene) {
  SimulationOptions options;
  options.edit = [scene](mjSpec* spec) { Scenario::AddSceneGeometry(scene, "case.json", spec); };
  return Simulation::LoadString(xml, options);
}

std::string LoadError(const std::string& scene, const std::string& dir) {
  try {
    Load(Vehicle(false), ParseScene(scene, dir));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// The free body's mass matrix (world linear, body angular dofs) with its added mass:
// diag(m, I) + J^T M_A J, J = [R^T 0; 0 1] (as in added_mass_test.cc).
Mat6 ExpectedMass(const mjData* d) {
  const Mat3 R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->xmat + 9);
  Mat6 M_A = Mat6::Zero();
  M_A.diagonal() << 2.6, 18.5, 13.3, 0.054, 0.0173, 0.28;
  Mat6 J = Mat6::Identity();
  J.topLeftCorner<3, 3>() = R.transpose();
  Mat6 M = J.transpose() * M_A * J;
  M.topLeftCorner<3, 3>() += kMass * Mat3::Identity();
  M.bottomRightCorner<3, 3>() += kInertia.asDiagonal();
  return M;
}

// With contacts active: d->M holds the added mass, and M qacc = qfrc_smooth + qfrc_constraint,
// read as the last (Euler) step left them: its forward pass at the step's start.
void CheckAddedMassExact(Simulation& sim) {
  const mjModel* m = sim.model();
  const mjData* d = sim.data();
  CHECK(d->ncon > 0);
  std::vector<mjtNum> dense(36);
  mj_fullM(m, d, dense.data());
  const Mat6 got = Eigen::Map<Eigen::Matrix<double, 6, 6, Eigen::RowMajor>>(dense.data());
  const Mat6 expected = ExpectedMass(d);
  CHECK((got - expected).cwiseAbs().maxCoeff() <= 1e-12);
  Eigen::Matrix<double, 6, 1> qacc, force;
  for (int i = 0; i < 6; ++i) {
    qacc[i] = d->qacc[i];
    force[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
  }
  // the constraint solver's qacc meets M qacc = f to its tolerance (mjOption.tolerance 1e-8)
  // relative to the forces it balances; without M_A the residual is M_A qacc
  double scale = 1;
  for (int i = 0; i < 6; ++i) scale = std::max({scale, std::abs(d->qfrc_smooth[i]), std::abs(d->qfrc_constraint[i])});
  const double residual = (expected * qacc - force).cwiseAbs().maxCoeff();
  Mat6 rigid = Mat6::Zero();
  rigid.diagonal() << kMass, kMass, kMass, kInertia;
  const double without = (rigid * qacc - force).cwiseAbs().maxCoeff();
  MESSAGE("contacts " << d->ncon << ", |M qacc - f| " << residual << " N (without M_A " << without
                      << " N), forces up to " << scale << " N");
  CHECK(residual <= 1e-7 * scale);
}

// Pushes the box (front face 0.2 m ahead of its origin) along +x with 50 N for 3 s; returns
// the deepest its front face went beyond x = 0.5 m (the obstacle's face).
double PushAlongX(Simulation& sim) {
  mjData* d = sim.data();
  double deepest = 0;
  for (int k = 0; k < 600; ++k) {
    d->xfrc_applied[6 + 0] = 50;
    sim.Step();
    deepest = std::max(deepest, d->qpos[0] + 0.2 - 0.5);
  }
  return deepest;
}

TEST_SUITE("scene") {

TEST_CASE("a vehicle pushed into the wall stops at its face") {
  // the box's front face starts 0.3 m from the wall; 50 N pushes it in for 3 s
  auto sim = Load(Vehicle(false), ParseScene(R"({"wall": {"face_x": 0.5, "y": [-4, 4]}})"));
  mjData* d = sim->data();
  const double deepest = PushAlongX(*sim);
  MESSAGE("penetration: deepest " << deepest * 1e3 << " mm, at rest " << (d->qpos[0] + 0.2 - 0.5) * 1e3
                                  << " mm, speed " << d->qvel[0] << " m/s");
  CHECK(d->ncon > 0);
  // it hits the wall at 1.7 m/s: the soft contact (solref 0.02, MuJoCo's solimp) gives
  // 10 mm at the impact and 0.01 mm at rest under the 50 N
  CHECK(deepest < 0.015);
  CHECK(d->qpos[0] + 0.2 - 0.5 < 1e-4);
  CHECK(d->qpos[0] + 0.2 - 0.5 > -1e-4);  // at the face, not held off it
  CHECK(std::abs(d->qvel[0]) < 1e-3);     // it stopped
}

TEST_CASE("a vehicle pushed into a pillar stops at its surface") {
  // the box (front face 0.2 m ahead of its origin) 0.3 m from a 0.5 m pillar at x = 1,
  // pushed along +x with 50 N for 3 s: its front face stops on the cylinder's surface
  auto sim = Load(Vehicle(false), ParseScene(R"({"pillars": [{"center": [1, 0], "radius": 0.5}]})"));
  mjData* d = sim->data();
  const double deepest = PushAlongX(*sim);
  MESSAGE("pillar penetration: deepest " << deepest * 1e3 << " mm, at rest " << (d->qpos[0] + 0.2 - 0.5) * 1e3
                                         << " mm");
  CHECK(d->ncon > 0);
  CHECK(deepest < 0.015);                   // as at the wall: the impact at 1.7 m/s
  CHECK(std::abs(d->qpos[0] + 0.2 - 0.5) < 1e-4);  // at rest on the surface
  CHECK(std::abs(d->qpos[1]) < 1e-4);       // head on: 0.011 mm sideways (the face rocks on the curve)
  CHECK(std::abs(d->qvel[0]) < 1e-3);
}

TEST_CASE("the added mass stays exact with contacts: resting on the seabed") {
  // gravity and no buoyancy: the box falls 0.4 m onto the seabed at 5.5 m and rests there
  auto sim = Load(Vehicle(true), ParseScene(R"({"seabed_depth": 5.5})"));
  for (int k = 0; k < 600; ++k) sim->Step();
  CHECK(sim->data()->qpos[2] == doctest::Approx(-5.4).epsilon(1e-3).scale(0));
  CHECK(std::abs(sim->data()->qvel[2]) < 1e-3);
  CheckAddedMassExact(*sim);
}

TEST_CASE("the added mass stays exact with contacts: sliding along the wall") {
  // linear damping settles the box's rocking on the wall (it would chatter off it)
  auto sim = Load(Vehicle(false, "20 20 20 10 10 10"), ParseScene(R"({"wall": {"face_x": 0.25, "y": [-10, 10]}})"));
  mjData* d = sim->data();
  int touching = 0;
  for (int k = 0; k < 400; ++k) {
    d->xfrc_applied[6 + 0] = 100;  // pressed on the wall
    d->xfrc_applied[6 + 1] = 70;   // and pushed along it, beyond the friction (0.5 x 100 N)
    sim->Step();
    touching += d->ncon > 0;
    if (k >= 200 && d->ncon > 0) break;  // the box rocks on the wall, losing contact at times
  }
  MESSAGE("in contact " << touching << " steps");
  CHECK(d->qvel[1] > 0.1);
  CHECK(d->qpos[0] + 0.2 > 0.25 - 0.01);  // along the wall
  CheckAddedMassExact(*sim);
}

TEST_CASE("solid false leaves the model as it was; the scene's geoms and contact settings") {
  auto drawn = Load(Vehicle(false), ParseScene(R"({"wall": {"face_x": 0.5}, "solid": false})"));
  CHECK(drawn->model()->ngeom == 1);
  auto sim = Load(Vehicle(false), ParseScene(R"({"wall": {"face_x": 0.5, "top": 2}, "seabed_depth": 30,
      "pillars": [{"center": [3, 4], "radius": 0.6}], "friction": 0.7, "solref": [0.01, 1.5]})"));
  const mjModel* m = sim->model();
  const int wall = mj_name2id(m, mjOBJ_GEOM, "scene_wall");
  const int pillar = mj_name2id(m, mjOBJ_GEOM, "scene_pillar0");
  REQUIRE(wall >= 0);
  REQUIRE(pillar >= 0);
  REQUIRE(mj_name2id(m, mjOBJ_GEOM, "scene_seabed") >= 0);
  CHECK(m->geom_size[3 * wall + 2] == doctest::Approx((2 + 30) / 2.0));  // crest to the seabed
  CHECK(m->geom_pos[3 * pillar + 2] == doctest::Approx((1 - 30) / 2.0));
  CHECK(m->geom_size[3 * pillar] == doctest::Approx(0.6));
  CHECK(m->geom_friction[3 * wall] == doctest::Approx(0.7));
  CHECK(m->geom_solref[2 * wall] == doctest::Approx(0.01));
  CHECK(m->geom_priority[wall] == 1);
}

TEST_CASE("a terrain from a CSV grid and from a PNG image") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nereid_scene_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "grid.csv") << "0, 0, 0\n0, 2, 0\n1, 1, 1\n";
  auto sim = Load(Vehicle(false), ParseScene(R"({"terrain": {"file": "grid.csv", "size": [5, 4],
      "depth": [12, 8], "center": [1, 2]}})", dir.string()));
  const mjModel* m = sim->model();
  REQUIRE(m->nhfield == 1);
  CHECK(m->hfield_nrow[0] == 3);
  CHECK(m->hfield_ncol[0] == 3);
  CHECK(m->hfield_size[2] == doctest::Approx(4));
  // row 0 is MuJoCo's -y edge: the file's last line, normalised to [0, 1]
  CHECK(m->hfield_data[0] == doctest::Approx(0.5));
  CHECK(m->hfield_data[4] == doctest::Approx(1));
  CHECK(m->hfield_data[8] == doctest::Approx(0));
  const int g = mj_name2id(m, mjOBJ_GEOM, "scene_terrain");
  REQUIRE(g >= 0);
  CHECK(m->geom_pos[3 * g + 2] == doctest::Approx(-12));

  auto png = Load(Vehicle(false), ParseScene(R"({"terrain": {"file": "seabed.png", "size": [10, 10],
      "depth": [20, 15]}})", std::string(NEREID_SOURCE_MODEL_DIR) + "/../scenarios/ocean"));
  CHECK(png->model()->hfield_nrow[0] == 64);
  CHECK(png->model()->hfield_ncol[0] == 64);
}

TEST_CASE("bad scenes: each names the scenario, the key and the value") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nereid_scene_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ragged.csv") << "0, 1, 2\n0, 1\n";
  std::ofstream(dir / "word.csv") << "0, 1\nsand, 1\n";
  std::ofstream(dir / "flat.csv") << "1, 1\n1, 1\n";
  std::ofstream(dir / "one.csv") << "1, 2, 3\n";
  std::ofstream(dir / "text.png") << "not an image at all, just some text\n";
  std::ofstream(dir / "grid.txt") << "0, 1\n1, 0\n";
  const std::string terrain = R"({"terrain": {"size": [5, 5], "depth": [10, 5], "file": )";
  CHECK(LoadError(terrain + R"("missing.csv"}})", dir.string()) ==
        "case.json: /scene/terrain/file: '" + (dir / "missing.csv").string() + "': no such file");
  CHECK(LoadError(terrain + R"("ragged.csv"}})", dir.string()).find(
            "/scene/terrain/file: '" + (dir / "ragged.csv").string() + "' line 2 has 2 values, the first row 3") !=
        std::string::npos);
  CHECK(LoadError(terrain + R"("word.csv"}})", dir.string()).find("line 2: 'sand' is not a finite number") !=
        std::string::npos);
  CHECK(LoadError(terrain + R"("flat.csv"}})", dir.string()).find("every height is the same") != std::string::npos);
  CHECK(LoadError(terrain + R"("one.csv"}})", dir.string()).find("is a 1 x 3 grid; at least 2 x 2") !=
        std::string::npos);
  CHECK(LoadError(terrain + R"("text.png"}})", dir.string()).find("/scene/terrain/file: '" +
                                                                   (dir / "text.png").string() +
                                                                   "' is not a PNG image") != std::string::npos);
  CHECK(LoadError(terrain + R"("grid.txt"}})", dir.string()).find("expected a .png image or a .csv grid") !=
        std::string::npos);
  auto parse_error = [](const std::string& scene) {
    try {
      ParseScene(scene);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(parse_error(R"({"terrain": {"file": "a.csv", "size": [5, 5], "depth": [5, 10]}})") ==
        "case.json: /scene/terrain/depth: [deepest, shallowest]: the first must be deeper than the second "
        "(got [5,10])");
  CHECK(parse_error(R"({"terrain": {"file": "a.csv", "size": [0, 5], "depth": [10, 5]}})").find(
            "/scene/terrain/size: half extents must be > 0") != std::string::npos);
  CHECK(parse_error(R"({"seabed_depth": 8, "terrain": {"file": "a.csv", "size": [5, 5], "depth": [10, 5]}})").find(
            "/scene/terrain/depth: the terrain reaches below seabed_depth") != std::string::npos);
  CHECK(parse_error(R"({"pillars": [{"center": [0, 0], "radius": -1}]})") ==
        "case.json: /scene/pillars/0/radius: must be > 0 (got -1)");
  CHECK(parse_error(R"({"pillars": [{"center": [0, 0], "radius": 1, "bottom": 2, "top": 1}]})").find(
            "/scene/pillars/0/bottom: must be below the pillar's top") != std::string::npos);
  CHECK(parse_error(R"({"friction": 0})") == "case.json: /scene/friction: must be > 0 (got 0)");
  CHECK(parse_error(R"({"solref": [0.02, -1]})").find("/scene/solref: [time constant, damping ratio]") !=
        std::string::npos);
}

}  // TEST_SUITE

}  // namespace
}  // namespace nereid
