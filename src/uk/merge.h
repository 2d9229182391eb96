// Copyright Nereid authors.
// The merged-body reference of the UK cross-check (docs/crosscheck.md): a model in which
// every group of bodies joined by active "uk:" welds is one rigid body, so that neither a
// constraint solver nor a weld is involved.
#ifndef NEREID_SRC_UK_MERGE_H_
#define NEREID_SRC_UK_MERGE_H_

#include <map>
#include <string>
#include <utility>

#include <mujoco/mujoco.h>

#include "uk/rigid_connection.h"

namespace nereid::uk {

// Each welded body's pose in its group's root body (the group's lowest body id), from the
// active "uk:" welds of `m` (FindUKWelds; `source` names the model in messages), breadth
// first over the welds. The roots map to themselves at the identity.
struct WeldedPose {
  int root = -1;
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();
};
std::map<int, WeldedPose> WeldedPoses(const mjModel* m, const std::string& source);

// The merged model as MJCF text: the roots keep their free joints; every other welded body
// becomes a jointless child of its root at its welded pose, with its geoms, sites and
// inertia (mjSpec: a copy attached into a frame of the root, mjs_attach); the "uk:" welds
// and the keyframes (sized for the original qpos) are removed. `m` is the model compiled
// from `model_path`. Returns "" with `why` set when that cannot be done (no active welds,
// an unnamed body, MuJoCo's attach failing, a merged model that does not compile).
//
// Why text: in MuJoCo 3.14, mjs_attach leaves the target spec without its plugin instances,
// and the one setter of an instance's <config> (mjs_setPluginAttributes) takes a C++ map of
// the wheel's own standard library, which this build's does not share. So the merged spec
// is written out (mj_saveXMLString) and the model's own <extension> block, which names its
// bodies (every body keeps its name), is put back into the text.
std::string MergedModelXml(const std::string& model_path, const mjModel* m, std::string* why);

}  // namespace nereid::uk

#endif  // NEREID_SRC_UK_MERGE_H_
