// Copyright Nereid authors.
// The scene around the vehicles, drawn only (no physics): the water surface, a scenario's
// quay wall (Scenario::Scene), the seabed grid, and the depth gauge (the `depth` overlay).
// Everything here is appended to an mjvScene after mjv_updateScene, as the overlays are.
#ifndef NEREID_VIEWER_SCENERY_H_
#define NEREID_VIEWER_SCENERY_H_

#include <optional>

#include <mujoco/mujoco.h>

#include "nereid/scenario.h"
#include "nereid/frames.h"

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

// Appends the water surface (a translucent sheet at z = 0, about `center`), the wall (unless
// it is the model's own geom, scene_wall, which MuJoCo draws as it is simulated) and
// the seabed grid (1 m squares over 20 x 20 m about `center`, snapped to whole metres).
void AddScenery(const mjModel* m, const Scenery& scenery, const double center[3], mjvScene* scn);

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
