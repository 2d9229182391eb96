// Copyright Nereid authors.
#include "scenery.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace nereid::viewer {
namespace {

constexpr float kSurfaceRgba[4] = {0.55f, 0.80f, 0.95f, 0.35f};
constexpr float kWallRgba[4] = {0.62f, 0.60f, 0.55f, 1.0f};    // weathered concrete
constexpr float kSeabedRgba[4] = {0.75f, 0.68f, 0.50f, 1.0f};  // sand
constexpr double kDefaultWallDepth = 20;  // m: a wall's foot with neither `bottom` nor a seabed
constexpr double kGridHalf = 10;          // m: the seabed grid's half width
constexpr double kTickRange = 5;          // m: ticks labelled within this of the vehicle's depth

mjvGeom* Next(mjvScene* scn) { return scn->ngeom < scn->maxgeom ? scn->geoms + scn->ngeom++ : nullptr; }

bool Line(mjvScene* scn, const Vec3& a, const Vec3& b, double width, const float rgba[4], bool flat,
          const char* label = nullptr) {
  mjvGeom* g = Next(scn);
  if (!g) return false;
  mjv_initGeom(g, mjGEOM_LINE, nullptr, nullptr, nullptr, rgba);
  if (flat) {
    g->emission = 1;  // an overlay's flat colour (see overlays.h)
    g->specular = 0;
  }
  mjv_connector(g, mjGEOM_LINE, width, a.data(), b.data());
  if (label) std::snprintf(g->label, sizeof(g->label), "%s", label);
  return true;
}

double Extent(const mjModel* m) { return m->stat.extent > 0 ? m->stat.extent : 1; }

}  // namespace

std::optional<double> ModelFloor(const mjModel* m) {
  std::optional<double> floor;
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_bodyid[g] != 0 || m->geom_type[g] != mjGEOM_PLANE) continue;
    const mjtNum* q = m->geom_quat + 4 * g;  // horizontal: its normal (local +z) is world +z
    const double nz = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
    const double z = m->geom_pos[3 * g + 2];
    if (nz > 1 - 1e-9 && z < 0 && (!floor || z > *floor)) floor = z;
  }
  return floor;
}

Scenery Scenery::For(const mjModel* m, const Scenario* scenario) {
  Scenery s;
  s.seabed_z = ModelFloor(m);
  if (scenario) {
    s.wall = scenario->scene.wall;
    s.wall_in_model = s.wall && scenario->scene.solid && mj_name2id(m, mjOBJ_GEOM, "scene_wall") >= 0;
    if (scenario->scene.seabed_depth) s.seabed_z = -*scenario->scene.seabed_depth;
  }
  return s;
}

double Scenery::WallBottom() const {
  if (wall && wall->bottom) return *wall->bottom;
  return seabed_z ? *seabed_z : -kDefaultWallDepth;
}

double Scenery::CameraAzimuth(double fallback) const { return wall ? 30 : fallback; }

SurfaceGrid WaveSurface(const waves::WaveField& waves, double t, double cx, double cy, double half, int n) {
  SurfaceGrid grid;
  grid.n = n;
  grid.vertices.reserve(static_cast<size_t>((n + 1) * (n + 1)));
  const double step = 2 * half / n;
  for (int j = 0; j <= n; ++j) {
    for (int i = 0; i <= n; ++i) {
      const double x = cx - half + i * step, y = cy - half + j * step;
      grid.vertices.emplace_back(x, y, waves.Elevation(x, y, t));
    }
  }
  return grid;
}

double SurfaceCell(const waves::WaveField& waves) {
  double k_max = 0;
  for (const waves::Component& c : waves.components()) k_max = std::max(k_max, c.k);
  constexpr double kCell = 0.5;  // m
  return k_max > 0 ? std::min(kCell, 2 * M_PI / k_max / 8) : kCell;
}

namespace {

// One triangle a, b, c (counter-clockwise seen from its front): MuJoCo draws mjGEOM_TRIANGLE
// as (0, 0, 0), (size0, 0, 0), (0, size1, 0) through the geom's pos and mat, so unit sizes
// and the columns b - a, c - a (and the normal) place its corners exactly.
bool Triangle(mjvScene* scn, const Vec3& a, const Vec3& b, const Vec3& c, const float rgba[4]) {
  mjvGeom* g = Next(scn);
  if (!g) return false;
  const Vec3 e0 = b - a, e1 = c - a, normal = e0.cross(e1).normalized();
  const mjtNum size[3] = {1, 1, 1};
  const mjtNum mat[9] = {e0.x(), e1.x(), normal.x(), e0.y(), e1.y(), normal.y(), e0.z(), e1.z(), normal.z()};
  mjv_initGeom(g, mjGEOM_TRIANGLE, size, a.data(), mat, rgba);
  g->emission = 0.5f;  // as the calm sheet
  g->specular = 0.6f;
  return true;
}

}  // namespace

void AddScenery(const mjModel* m, const Scenery& scenery, const double center[3], mjvScene* scn,
                const waves::WaveField* waves, double t) {
  if (waves && !waves->calm()) {
    const double cell = SurfaceCell(*waves);
    const double cx = cell * std::round(center[0] / cell), cy = cell * std::round(center[1] / cell);
    const SurfaceGrid grid = WaveSurface(*waves, t, cx, cy, cell * kSurfaceCells / 2, kSurfaceCells);
    for (int j = 0; j < grid.n; ++j) {
      for (int i = 0; i < grid.n; ++i) {
        const Vec3 &v00 = grid.at(i, j), &v10 = grid.at(i + 1, j), &v01 = grid.at(i, j + 1),
                   &v11 = grid.at(i + 1, j + 1);
        Triangle(scn, v00, v10, v11, kSurfaceRgba);
        Triangle(scn, v00, v11, v01, kSurfaceRgba);
      }
    }
  } else if (mjvGeom* g = Next(scn)) {  // the surface: a thin box rather than a plane, seen from both sides
    const double half = 50 * Extent(m);
    const mjtNum size[3] = {half, half, 0.001};
    const mjtNum pos[3] = {center[0], center[1], 0};
    mjv_initGeom(g, mjGEOM_BOX, size, pos, nullptr, kSurfaceRgba);
    g->emission = 0.5f;  // bright from below, as the sky through the surface
    g->specular = 0.6f;
  }
  if (scenery.wall && !scenery.wall_in_model) {
    const Scenario::Scene::Wall& w = *scenery.wall;
    const double bottom = std::min(scenery.WallBottom(), w.top - 0.01);
    const mjtNum size[3] = {w.thickness / 2, (w.y_max - w.y_min) / 2, (w.top - bottom) / 2};
    const mjtNum pos[3] = {w.face_x + w.thickness / 2, (w.y_min + w.y_max) / 2, (w.top + bottom) / 2};
    if (mjvGeom* g = Next(scn)) {
      mjv_initGeom(g, mjGEOM_BOX, size, pos, nullptr, kWallRgba);
      g->specular = 0.1f;
    }
  }
  if (scenery.seabed_z) {
    const double z = *scenery.seabed_z + 0.01;  // just above a floor plane, so it is not hidden
    const double cx = std::round(center[0]), cy = std::round(center[1]);
    for (double k = -kGridHalf; k <= kGridHalf; k += 1) {
      if (!Line(scn, {cx + k, cy - kGridHalf, z}, {cx + k, cy + kGridHalf, z}, 2, kSeabedRgba, false) ||
          !Line(scn, {cx - kGridHalf, cy + k, z}, {cx + kGridHalf, cy + k, z}, 2, kSeabedRgba, false)) {
        return;
      }
    }
  }
}

void HideSceneGeoms(const mjModel* m, mjvScene* scn) {
  int kept = 0;
  for (int i = 0; i < scn->ngeom; ++i) {
    const mjvGeom& g = scn->geoms[i];
    const char* name = g.objtype == mjOBJ_GEOM ? mj_id2name(m, mjOBJ_GEOM, g.objid) : nullptr;
    if (name && std::strncmp(name, "scene_", 6) == 0) continue;
    if (kept != i) scn->geoms[kept] = g;
    ++kept;
  }
  scn->ngeom = kept;
}

void AddDepthGauge(const mjModel* m, const Scenery& scenery, const Vec3& vehicle, const float rgba[4],
                   mjvScene* scn) {
  const mjvGLCamera& cam = scn->camera[0];
  const Vec3 forward(cam.forward[0], cam.forward[1], cam.forward[2]);
  const Vec3 up(cam.up[0], cam.up[1], cam.up[2]);
  Vec3 right = forward.cross(up);
  right.z() = 0;
  right = right.norm() > 1e-9 ? right.normalized() : Vec3::UnitY();
  const double offset = 0.6 * Extent(m);
  Vec3 pole(vehicle.x() + offset * right.x(), vehicle.y() + offset * right.y(), 0);
  if (scenery.wall) pole.x() = std::min(pole.x(), scenery.wall->face_x - 0.05);  // in front of the wall
  const double depth = -vehicle.z();
  if (!std::isfinite(depth)) return;  // a diverged state: nothing to measure
  const double bottom = scenery.seabed_z ? -*scenery.seabed_z : std::max(10.0, std::ceil(depth + kTickRange));
  if (!Line(scn, pole, {pole.x(), pole.y(), -bottom}, 3, rgba, true)) return;
  const Vec3 tick = 0.15 * offset * right;
  char label[32];
  const int first = std::max(1, static_cast<int>(std::ceil(depth - kTickRange)));
  const int last = static_cast<int>(std::min(bottom, std::floor(depth + kTickRange)));
  for (int k = first; k <= last; ++k) {
    std::snprintf(label, sizeof(label), "%d m", k);
    const Vec3 at(pole.x(), pole.y(), -k);
    if (!Line(scn, at - tick, at + tick, 3, rgba, true, label)) return;
  }
  std::snprintf(label, sizeof(label), "%.2f m", depth);
  Line(scn, vehicle, {pole.x(), pole.y(), vehicle.z()}, 1, rgba, true, label);
}

}  // namespace nereid::viewer
