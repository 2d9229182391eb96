// Copyright Nereid authors.
// A scenario's scene as MuJoCo collision geometry (docs/scenarios.md "scene"): the quay
// wall as a box, the flat seabed as a plane, the terrain as a height field read from a
// grey-scale PNG or a CSV grid, pillars as cylinders, all on the world body, added to the
// parsed model before it is compiled (SimulationOptions::edit, set by ResolveInput).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/error.h"
#include "nereid/scenario.h"

namespace nereid {
namespace {

constexpr double kDefaultFootDepth = 20;  // m: a wall's or pillar's foot with no seabed
constexpr int kMinSamples = 2;            // a height field's rows and columns: at least
constexpr int kMaxSamples = 2048;         // and at most (4 M samples, 16 MB as MuJoCo's floats)
constexpr std::uintmax_t kMaxTerrainBytes = std::uintmax_t{64} << 20;
constexpr double kTerrainBase = 1;  // m: the height field's solid thickness below its lowest sample
constexpr float kWallRgba[4] = {0.62f, 0.60f, 0.55f, 1.0f};    // weathered concrete
constexpr float kPillarRgba[4] = {0.58f, 0.57f, 0.54f, 1.0f};  // concrete
constexpr float kSeabedRgba[4] = {0.75f, 0.68f, 0.50f, 1.0f};  // sand

[[noreturn]] void Fail(const std::string& source, const std::string& key, const std::string& rule) {
  throw ConfigError(source + ": " + key + ": " + rule);
}

// The highest horizontal plane of the world body below the surface (the models' floor).
std::optional<double> SpecFloor(mjSpec* spec) {
  std::optional<double> floor;
  mjsBody* world = mjs_findBody(spec, "world");
  if (!world) return floor;
  for (mjsElement* e = mjs_firstChild(world, mjOBJ_GEOM, 0); e; e = mjs_nextChild(world, e, 0)) {
    const mjsGeom* g = mjs_asGeom(e);
    if (!g || g->type != mjGEOM_PLANE) continue;
    const bool level = std::abs(g->quat[1]) < 1e-9 && std::abs(g->quat[2]) < 1e-9;
    if (level && g->pos[2] < 0 && (!floor || g->pos[2] > *floor)) floor = g->pos[2];
  }
  return floor;
}

// A PNG file's width and height from its signature and IHDR chunk.
std::array<int, 2> PngSize(const std::string& source, const std::string& key, const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  unsigned char head[24] = {};
  in.read(reinterpret_cast<char*>(head), sizeof(head));
  static constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (in.gcount() < 24 || !std::equal(kSignature, kSignature + 8, head) || std::string(head + 12, head + 16) != "IHDR") {
    Fail(source, key, "'" + file + "' is not a PNG image (a grey-scale PNG or a .csv grid is expected)");
  }
  auto be32 = [&](int at) {
    return (std::uint32_t{head[at]} << 24) | (std::uint32_t{head[at + 1]} << 16) | (std::uint32_t{head[at + 2]} << 8) |
           std::uint32_t{head[at + 3]};
  };
  const std::uint32_t width = be32(16), height = be32(20);
  if (width < kMinSamples || height < kMinSamples || width > kMaxSamples || height > kMaxSamples) {
    Fail(source, key, "'" + file + "' is " + std::to_string(width) + " x " + std::to_string(height) +
                          " pixels; each side must be " + std::to_string(kMinSamples) + " to " +
                          std::to_string(kMaxSamples));
  }
  return {static_cast<int>(height), static_cast<int>(width)};
}

// A CSV grid of heights: rows of equal length, the first line the +y edge and the first
// column the -x edge (as an image seen from above). Returns MuJoCo's order (row 0 at -y),
// normalised to [0, 1].
std::vector<float> ReadCsvGrid(const std::string& source, const std::string& key, const std::string& file, int* nrow,
                               int* ncol) {
  std::ifstream in(file);
  std::vector<std::vector<double>> rows;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::vector<double> row;
    std::stringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) {
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      const bool blank = end && std::string(end).find_first_not_of(" \t") == std::string::npos;
      if (end == cell.c_str() || !blank || !std::isfinite(v)) {
        Fail(source, key, "'" + file + "' line " + std::to_string(number) + ": '" + Excerpt(cell, 40) +
                              "' is not a finite number");
      }
      row.push_back(v);
      if (row.size() > static_cast<size_t>(kMaxSamples)) {
        Fail(source, key, "'" + file + "' line " + std::to_string(number) + " has more than " +
                              std::to_string(kMaxSamples) + " values");
      }
    }
    if (!rows.empty() && row.size() != rows[0].size()) {
      Fail(source, key, "'" + file + "' line " + std::to_string(number) + " has " + std::to_string(row.size()) +
                            " values, the first row " + std::to_string(rows[0].size()) + " (a rectangular grid is expected)");
    }
    rows.push_back(std::move(row));
    if (rows.size() > static_cast<size_t>(kMaxSamples)) {
      Fail(source, key, "'" + file + "' has more than " + std::to_string(kMaxSamples) + " rows");
    }
  }
  if (rows.size() < static_cast<size_t>(kMinSamples) || rows[0].size() < static_cast<size_t>(kMinSamples)) {
    Fail(source, key, "'" + file + "' is a " + std::to_string(rows.size()) + " x " +
                          std::to_string(rows.empty() ? 0 : rows[0].size()) + " grid; at least " +
                          std::to_string(kMinSamples) + " x " + std::to_string(kMinSamples) + " is needed");
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& row : rows) {
    for (double v : row) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!(hi > lo)) {
    Fail(source, key, "'" + file + "': every height is the same (for a flat seabed use scene.seabed_depth)");
  }
  *nrow = static_cast<int>(rows.size());
  *ncol = static_cast<int>(rows[0].size());
  std::vector<float> data;
  data.reserve(rows.size() * rows[0].size());
  for (size_t r = rows.size(); r-- > 0;) {
    for (double v : rows[r]) data.push_back(static_cast<float>((v - lo) / (hi - lo)));
  }
  return data;
}

mjsGeom* AddGeom(mjsBody* world, const Scenario::Scene& scene, mjtGeom type, const std::string& name,
                 const float rgba[4]) {
  mjsGeom* g = mjs_addGeom(world, nullptr);
  g->type = type;
  mjs_setName(g->element, name.c_str());
  g->contype = 1;
  g->conaffinity = 1;
  g->condim = 3;
  g->priority = 1;  // a contact takes this geom's friction and solref, not an average
  g->friction[0] = scene.friction;
  g->solref[0] = scene.solref[0];
  g->solref[1] = scene.solref[1];
  g->group = 0;
  std::copy(rgba, rgba + 4, g->rgba);
  return g;
}

void AddTerrain(mjSpec* spec, mjsBody* world, const Scenario::Scene& scene, const std::string& source) {
  const Scenario::Scene::Terrain& t = *scene.terrain;
  const std::string key = t.path + "/file";
  std::error_code ec;
  if (!std::filesystem::exists(t.file, ec)) Fail(source, key, "'" + t.file + "': no such file");
  if (!std::filesystem::is_regular_file(t.file, ec)) Fail(source, key, "'" + t.file + "' is not a regular file");
  const std::uintmax_t bytes = std::filesystem::file_size(t.file, ec);
  if (ec || bytes > kMaxTerrainBytes) {
    Fail(source, key, "'" + t.file + "' is " + std::to_string(bytes) + " bytes; at most 64 MiB");
  }
  std::string ext = std::filesystem::path(t.file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  mjsHField* hf = mjs_addHField(spec);
  mjs_setName(hf->element, "scene_terrain");
  hf->size[0] = t.half_x;
  hf->size[1] = t.half_y;
  hf->size[2] = t.deepest - t.shallowest;
  hf->size[3] = kTerrainBase;
  if (ext == ".png") {
    PngSize(source, key, t.file);
    mjs_setString(hf->file, std::filesystem::absolute(t.file, ec).string().c_str());
  } else if (ext == ".csv") {
    int nrow = 0, ncol = 0;
    const std::vector<float> data = ReadCsvGrid(source, key, t.file, &nrow, &ncol);
    hf->nrow = nrow;
    hf->ncol = ncol;
    mjs_setFloat(hf->userdata, data.data(), static_cast<int>(data.size()));
  } else {
    Fail(source, key, "'" + t.file + "': expected a .png image or a .csv grid");
  }
  mjsGeom* g = AddGeom(world, scene, mjGEOM_HFIELD, "scene_terrain", kSeabedRgba);
  mjs_setString(g->hfieldname, "scene_terrain");
  g->pos[0] = t.x;
  g->pos[1] = t.y;
  g->pos[2] = -t.deepest;
}

}  // namespace

void Scenario::AddSceneGeometry(const Scene& scene, const std::string& source, mjSpec* spec) {
  if (!scene.solid || scene.Empty()) return;
  mjsBody* world = mjs_findBody(spec, "world");
  if (!world) throw ConfigError(source + ": the model has no world body");
  const std::optional<double> floor = SpecFloor(spec);
  const double seabed = scene.seabed_depth ? -*scene.seabed_depth : floor ? *floor : -kDefaultFootDepth;

  if (scene.seabed_depth) {
    mjsGeom* g = AddGeom(world, scene, mjGEOM_PLANE, "scene_seabed", kSeabedRgba);
    g->size[0] = g->size[1] = 0;  // infinite
    g->size[2] = 1;
    g->pos[2] = -*scene.seabed_depth;
  }
  if (scene.terrain) AddTerrain(spec, world, scene, source);
  if (scene.wall) {
    const Scene::Wall& w = *scene.wall;
    const double bottom = std::min(w.bottom.value_or(seabed), w.top - 0.01);
    mjsGeom* g = AddGeom(world, scene, mjGEOM_BOX, "scene_wall", kWallRgba);
    g->size[0] = w.thickness / 2;
    g->size[1] = (w.y_max - w.y_min) / 2;
    g->size[2] = (w.top - bottom) / 2;
    g->pos[0] = w.face_x + w.thickness / 2;
    g->pos[1] = (w.y_min + w.y_max) / 2;
    g->pos[2] = (w.top + bottom) / 2;
  }
  for (size_t i = 0; i < scene.pillars.size(); ++i) {
    const Scene::Pillar& p = scene.pillars[i];
    const double bottom = std::min(p.bottom.value_or(seabed), p.top - 0.01);
    mjsGeom* g = AddGeom(world, scene, mjGEOM_CYLINDER, "scene_pillar" + std::to_string(i), kPillarRgba);
    g->size[0] = p.radius;
    g->size[1] = (p.top - bottom) / 2;
    g->pos[0] = p.x;
    g->pos[1] = p.y;
    g->pos[2] = (p.top + bottom) / 2;
  }
}

}  // namespace nereid
