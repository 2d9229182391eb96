// Copyright Nereid authors.
// The scene around the vehicles, drawn only (no physics): the water surface, a scenario's
// quay wall (Scenario::Scene), the seabed grid, and the depth gauge (the `depth` overlay).
// Everything here is appended to an mjvScene after mjv_updateScene, as the overlays are.
#ifndef NEREID_VIEWER_SCENERY_H_
#define NEREID_VIEWER_SCENERY_H_

#include <optional>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/frames.h"
#include "nereid/scenario.h"
#include "nereid/waves.h"

namespace nereid::viewer {

// The model's floor: z of the highest horizontal plane geom of the world body below the
// surface (z < 0), or none.
std::optional<double> ModelFloor(const mjModel* m);

struct Scenery {
  std::optional<Scenario::Scene::Wall> wall;
  bool wall_in_model = false;      // a solid scene's wall: MuJoCo draws the model's geom
  std::optional<double> seabed_z;  // z of the seabed (< 0), or none
  // A scenario's scene (its seabed depth, else the model's floor), or the model's alone.
  static Scenery For(const mjModel* m, const Scenario* scenario);
  // The wall's foot: its `bottom`, else the seabed, else 20 m down.
  double WallBottom() const;
  // The follow camera's azimuth (deg): from the water side, 30 deg off the wall's normal,
  // with a wall; else `fallback`.
  double CameraAzimuth(double fallback) const;
};

// The moving free surface as drawn: (n + 1) x (n + 1) vertices over a square of half
// width `half` about (cx, cy), x fastest, each at the height eta(x, y, t) of `waves`
// (waves::WaveField::Elevation, the function the physics evaluates).
struct SurfaceGrid {
  int n = 0;
  std::vector<Vec3> vertices;
  const Vec3& at(int i, int j) const { return vertices[static_cast<size_t>(j * (n + 1) + i)]; }
};
SurfaceGrid WaveSurface(const waves::WaveField& waves, double t, double cx, double cy, double half, int n);
// The drawn grid's cells: kSurfaceCells per side, of 0.5 m, or an eighth of the shortest
// component's wave length when that is shorter (the grid then covers less).
inline constexpr int kSurfaceCells = 48;
double SurfaceCell(const waves::WaveField& waves);

// Appends the water surface, the wall (unless it is the model's own geom, scene_wall, which
// MuJoCo draws as it is simulated) and the seabed grid (1 m squares over 20 x 20 m about
// `center`, snapped to whole metres). The surface is a translucent sheet at z = 0 about
// `center` in calm water; with `waves` (not calm) it is the WaveSurface at time `t`, two
// triangles per cell, about `center` snapped to the cell size.
void AddScenery(const mjModel* m, const Scenery& scenery, const double center[3], mjvScene* scn,
                const waves::WaveField* waves = nullptr, double t = 0);

// Removes the scenario scene's own geoms (scene_wall, scene_seabed, scene_terrain,
// scene_pillar<i>: Scenario::AddSceneGeometry) from a scene MuJoCo made: the scenery
// toggled off hides them, though they are still simulated.
void HideSceneGeoms(const mjModel* m, mjvScene* scn);

// The depth gauge (`depth` overlay, drawn in `rgba`): a pole beside the vehicle from the
// surface to the seabed (or 5 m below the vehicle, at least 10 m), ticks at whole metres
// within 5 m of the vehicle's depth, labelled, and a line from the vehicle to the pole
// labelled with its depth. Needs scn->camera (after mjv_updateScene) to place the pole
// to the camera's right.
void AddDepthGauge(const mjModel* m, const Scenery& scenery, const Vec3& vehicle, const float rgba[4],
                   mjvScene* scn);

}  // namespace nereid::viewer

#endif  // NEREID_VIEWER_SCENERY_H_
