// Copyright Nereid authors.
// Helpers shared by Nereid's tests: small MJCF builders and comparisons.
#ifndef NEREID_TESTS_TEST_UTIL_H_
#define NEREID_TESTS_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>

#include <mujoco/mujoco.h>

#include "nereid/simulation.h"

namespace nereid::test {

// A single free body "b" (box geom 0.4 x 0.3 x 0.2 m, explicit inertia at the origin)
// with the given <extension> plugin instances. Gravity is off unless `gravity`.
inline std::string SingleBody(const std::string& extension, double mass = 7.31,
                              const std::string& inertia = "0.1 0.16 0.16",
                              bool gravity = false, const std::string& integrator = "Euler",
                              double timestep = 0.01, const std::string& geom_size = "0.2 0.15 0.1") {
  return "<mujoco model='single'>\n"
         "  <compiler inertiafromgeom='false'/>\n"
         "  <option timestep='" + std::to_string(timestep) + "' integrator='" + integrator +
         "' gravity='0 0 " + (gravity ? "-9.81" : "0") + "'/>\n"
         "  <extension>\n" + extension + "  </extension>\n"
         "  <worldbody>\n"
         "    <body name='b' pos='0 0 -5'>\n"
         "      <freejoint name='b_free'/>\n"
         "      <inertial pos='0 0 0' mass='" + std::to_string(mass) + "' diaginertia='" + inertia + "'/>\n"
         "      <geom type='box' size='" + geom_size + "' contype='0' conaffinity='0'/>\n"
         "    </body>\n"
         "  </worldbody>\n"
         "</mujoco>\n";
}

// A nereid.hydrodynamics instance for body "b"; `extra` holds more <config> lines.
inline std::string Hydro(const std::string& added_mass, const std::string& linear = "0 0 0 0 0 0",
                         const std::string& quadratic = "0 0 0 0 0 0",
                         const std::string& extra = "", const std::string& name = "hydro") {
  return "    <plugin plugin='nereid.hydrodynamics'><instance name='" + name + "'>\n"
         "      <config key='body' value='b'/>\n"
         "      <config key='added_mass' value='" + added_mass + "'/>\n"
         "      <config key='linear_damping' value='" + linear + "'/>\n"
         "      <config key='quadratic_damping' value='" + quadratic + "'/>\n" + extra +
         "    </instance></plugin>\n";
}

inline std::string Buoyancy(double volume, const std::string& cob, const std::string& extra = "") {
  return "    <plugin plugin='nereid.buoyancy'><instance name='buoyancy'>\n"
         "      <config key='body' value='b'/>\n"
         "      <config key='volume' value='" + std::to_string(volume) + "'/>\n"
         "      <config key='center_of_buoyancy' value='" + cob + "'/>\n" + extra +
         "    </instance></plugin>\n";
}

inline std::string Current(const std::string& velocity = "0 0 0") {
  return "    <plugin plugin='nereid.current'><instance name='current'>\n"
         "      <config key='velocity' value='" + velocity + "'/>\n"
         "    </instance></plugin>\n";
}

inline double MaxAbsDiff(const mjtNum* a, const mjtNum* b, long n) {
  double e = 0;
  for (long i = 0; i < n; ++i) e = std::max(e, std::abs(a[i] - b[i]));
  return e;
}

inline std::string ModelPath(const std::string& relative) {
  return std::string(NEREID_SOURCE_MODEL_DIR) + "/" + relative;
}

// The vehicle in MJCF file `vehicle` behind three MuJoCo 3.14 actuators with 0 or several
// controls and force outputs: an orientation servo (3 controls, 3 outputs) on a free float,
// a <pid input="pos vel ff"> (3 controls) and an input-less <dcmotor> on a hinged arm. The
// vehicle's first actuator is then actuator 3, with control 6 and force output 5.
inline std::string BehindMultiControlActuators(const std::string& vehicle, const std::string& name = "multi") {
  return R"(<mujoco model=")" + name + R"(">
  <worldbody>
    <site name="reference" pos="-4 0 -1"/>
    <body name="float" pos="-4 0 -1">
      <freejoint/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      <geom type="box" size="0.1 0.1 0.1" contype="0" conaffinity="0"/>
      <site name="float_site"/>
    </body>
    <body name="arm" pos="4 0 -1">
      <joint name="hinge" type="hinge" axis="0 0 1" damping="1"/>
      <inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      <geom type="box" size="0.1 0.1 0.1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator>
    <orientation name="gimbal" site="float_site" refsite="reference" kp="1"/>
    <pid name="arm_pid" joint="hinge" kp="5" input="pos vel ff"/>
    <dcmotor name="idle" joint="hinge" input="none" motorconst="0.01" resistance="1"/>
  </actuator>
  <include file=")" + vehicle + R"("/>
</mujoco>)";
}

}  // namespace nereid::test

#endif  // NEREID_TESTS_TEST_UTIL_H_
