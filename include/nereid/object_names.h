// Copyright Nereid authors.
// How Nereid names a MuJoCo object that the user may have left nameless: in error messages
// (NameOrId, QuotedNameOrId: its MJCF name or "#<id>") and in outputs (OutputName: its
// MJCF name or its kind and id, unique among the objects of its kind).
#ifndef NEREID_OBJECT_NAMES_H_
#define NEREID_OBJECT_NAMES_H_

#include <string>

#include <mujoco/mujoco.h>

namespace nereid {

// An object in a message: its MJCF name, or "#<id>" (MuJoCo's id) when it has none.
inline std::string NameOrId(const mjModel* m, mjtObj type, int id) {
  const char* n = mj_id2name(m, type, id);
  return n && *n ? std::string(n) : "#" + std::to_string(id);
}

// The same with a name in single quotes: 'thr1', or #3.
inline std::string QuotedNameOrId(const mjModel* m, mjtObj type, int id) {
  const char* n = mj_id2name(m, type, id);
  return n && *n ? "'" + std::string(n) + "'" : "#" + std::to_string(id);
}

// An object's name in Nereid's outputs (trajectory.csv's columns, summary.json, the viewer's
// report, nereid ros's topics): its MJCF name, or its kind and number when it has none
// (body1, joint0, sensor2), with an underscore more while another object of the kind is
// named so (body1_ beside a body named body1): no two objects of a kind share an output name.
inline std::string OutputName(const mjModel* m, mjtObj type, int id) {
  const char* n = mj_id2name(m, type, id);
  if (n && *n) return n;
  const char* kind = mju_type2Str(type);
  std::string name = std::string(kind ? kind : "object") + std::to_string(id);
  while (mj_name2id(m, type, name.c_str()) >= 0) name += '_';
  return name;
}

}  // namespace nereid

#endif  // NEREID_OBJECT_NAMES_H_
