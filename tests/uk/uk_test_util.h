// Copyright Nereid authors.
// MJCF builders for the UK tests: free "vehicles" with optional buoyancy and
// hydrodynamics plugin instances, joined by "uk:" welds.
#ifndef NEREID_TESTS_UK_UK_TEST_UTIL_H_
#define NEREID_TESTS_UK_UK_TEST_UTIL_H_

#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/frames.h"

namespace nereid::test {

struct Vehicle {
  std::string name;
  std::string pos = "0 0 -10";
  std::string quat = "1 0 0 0";
  double mass = 20;
  std::string inertia = "1 1 1";
  bool free = true;  // false: a child body of `parent` without joints (merged body)
  std::string parent;
  double volume = 0;           // buoyancy volume (m^3); 0: no buoyancy instance
  std::string cob = "0 0 -0.1";  // FRD
  std::string added_mass;      // FRD diag; empty: no hydrodynamics instance
  std::string linear_damping = "0 0 0 0 0 0";
  std::string quadratic_damping = "0 0 0 0 0 0";
};

inline std::string Plugins(const std::vector<Vehicle>& vs) {
  std::string x;
  for (const Vehicle& v : vs) {
    if (!v.added_mass.empty()) {
      x += "<plugin plugin='nereid.hydrodynamics'><instance name='" + v.name + "_hydro'>"
           "<config key='body' value='" + v.name + "'/><config key='frame' value='frd'/>"
           "<config key='added_mass' value='" + v.added_mass + "'/>"
           "<config key='linear_damping' value='" + v.linear_damping + "'/>"
           "<config key='quadratic_damping' value='" + v.quadratic_damping + "'/>"
           "</instance></plugin>\n";
    }
    if (v.volume > 0) {
      x += "<plugin plugin='nereid.buoyancy'><instance name='" + v.name + "_buoy'>"
           "<config key='body' value='" + v.name + "'/><config key='frame' value='frd'/>"
           "<config key='volume' value='" + std::to_string(v.volume) + "'/>"
           "<config key='center_of_buoyancy' value='" + v.cob + "'/>"
           "</instance></plugin>\n";
    }
  }
  return x;
}

inline std::string BodyXml(const Vehicle& v, const std::vector<Vehicle>& all) {
  std::string x = "<body name='" + v.name + "' pos='" + v.pos + "' quat='" + v.quat + "'>";
  if (v.free) x += "<freejoint name='" + v.name + "_free'/>";
  x += "<inertial pos='0 0 0' mass='" + std::to_string(v.mass) + "' diaginertia='" + v.inertia +
       "'/><geom type='box' size='0.2 0.15 0.1' contype='0' conaffinity='0'/>";
  for (const Vehicle& c : all) {
    if (!c.free && c.parent == v.name) x += BodyXml(c, all);
  }
  return x + "</body>\n";
}

// Vehicles (free ones at top level, merged ones inside their parent) and equality lines.
inline std::string Assembly(const std::vector<Vehicle>& vs, const std::string& equality,
                            const std::string& option = "timestep='0.001' integrator='RK4'",
                            bool gravity = true) {
  std::string x = "<mujoco model='assembly'><compiler inertiafromgeom='false'/>\n<option " +
                  option + " gravity='0 0 " + (gravity ? "-9.81" : "0") + "'/>\n";
  const std::string plugins = Plugins(vs);
  if (!plugins.empty()) x += "<extension>\n" + plugins + "</extension>\n";
  x += "<worldbody>\n";
  for (const Vehicle& v : vs) {
    if (v.free) x += BodyXml(v, vs);
  }
  x += "</worldbody>\n";
  if (!equality.empty()) x += "<equality>" + equality + "</equality>\n";
  return x + "</mujoco>\n";
}

inline Vec3 QposPosition(const mjData* d, int adr) {
  return Vec3(d->qpos[adr], d->qpos[adr + 1], d->qpos[adr + 2]);
}

}  // namespace nereid::test

#endif  // NEREID_TESTS_UK_UK_TEST_UTIL_H_
