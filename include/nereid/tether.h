// Copyright Nereid authors.
// nereid.tether: an umbilical between a site on a vehicle and an anchor (a fixed world
// point, or a point on a body such as a surface vessel or a cage/TMS), from a compact spec.
//
//   model = lumped (default): `segments` rigid capsule bodies. With coordinates = reduced
//     (default) they are a chain joined by ball joints (plus an optional slide joint per
//     segment for the axial stiffness), rooted at the anchor, closed at the vehicle site by
//     a MuJoCo `connect` equality; with coordinates = maximal each is a free body and stiff
//     `connect` equalities join consecutive segments, the anchor and the vehicle. Every
//     segment gets Morison drag (normal and tangential, relative to the water current),
//     weight and buoyancy. The bodies are generated from the spec by ExpandTethers, before
//     compile.
//   model = analytic: no bodies; the force of seed 002 eq. 3.21 applied at the site.
//
// Keys, the physics, its sources and assumptions: plugins/tether/README.md, docs/tether.md.
#ifndef NEREID_TETHER_H_
#define NEREID_TETHER_H_

#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/current.h"
#include "nereid/frames.h"
#include "nereid/names.h"

namespace nereid {

inline constexpr char kTetherPlugin[] = "nereid.tether";

// Generates the segment bodies, joints, geoms, the end site and the `connect` equality of
// every nereid.tether instance with model=lumped in `spec`, laid out for the vehicle's
// pose at qpos0, and appends the tether's joint values to every keyframe that gives a
// qpos (laid out for the vehicle's pose in that keyframe). Call it on the parsed spec
// before mj_compile: nereid::Simulation does, so does `nereid run`. In stock MuJoCo
// (mj_loadXML) a lumped tether fails to load with a message saying so; the analytic model
// needs no bodies and works there. Idempotent: an instance already expanded is skipped.
// Throws ConfigError naming the instance, key and value.
void ExpandTethers(mjSpec* spec);

namespace tether {

enum class Model { kLumped, kAnalytic };
inline constexpr std::array<Named<Model>, 2> kModelNames{{{Model::kLumped, "lumped"}, {Model::kAnalytic, "analytic"}}};

// How a lumped tether's segments are joined.
//   reduced: a chain of ball joints: exactly inextensible, but its joint-space mass matrix
//     is dense, so MuJoCo's compile and every step grow with segments^3.
//   maximal: free bodies joined by `connect` equalities (MuJoCo's soft constraints at the
//     stiffest time constant the step allows): the mass matrix is block diagonal and the
//     constraint Jacobian banded, so a step grows linearly with segments (MuJoCo's Newton
//     solver factorises the banded Hessian without fill), and the compile as segments^2
//     with a small constant (mj_setConst's one sparse solve per dof). The links stretch
//     slightly under tension (plugins/tether/README.md gives the measured stretch).
enum class Coordinates { kReduced, kMaximal };
inline constexpr std::array<Named<Coordinates>, 2> kCoordinatesNames{
    {{Coordinates::kReduced, "reduced"}, {Coordinates::kMaximal, "maximal"}}};

// The most segments of a lumped tether, per coordinates: reduced, bounded by the cubic
// cost (on a 2-core machine 0.5 s to load 200 segments, 10 s for 500; 22 ms per step at
// 200); maximal, by the load (0.22 s for 1000, 0.9 s for 2000; beyond about 4000 MuJoCo's
// default arena no longer holds the constraints).
inline constexpr int kMaxSegments = 500;
inline constexpr int kMaxSegmentsMaximal = 2000;

// A validated nereid.tether instance (read from the compiled model).
struct Config {
  std::string name;                 // instance name (the segment bodies are <name>_seg<k>)
  Model model = Model::kLumped;
  Coordinates coordinates = Coordinates::kReduced;  // lumped only
  std::string site;                 // vehicle site ("" for a free end; lumped only)
  std::string anchor_body;          // "" = world
  Vec3 anchor_point = Vec3::Zero(); // in the anchor body's frame (world if no body), m
  double length = 0;                // m
  int segments = 0;
  double diameter = 0;              // m
  double cd_normal = 1.2;
  double cd_tangential = 0.01;      // on the wetted perimeter pi d
  double mass_per_metre = 0;        // kg/m, in air
  double axial_stiffness = 0;       // EA, N; 0 = inextensible
  double bending_damping = 0;       // N m s/rad on each ball joint (structural damping; reduced only)
  double added_mass_coefficient = 1.0;  // C_a: normal added mass C_a rho pi d^2/4 per metre
  double fluid_density = 1000;      // kg/m^3
  double analytic_weight_factor = 1.2;  // eq. 3.21's 1.2 (length paid out beyond h)

  double segment_length() const { return segments > 0 ? length / segments : length; }
  double area() const;              // pi d^2 / 4
  // submerged weight per metre, N/m (positive: sinks): (mass_per_metre - rho A) g
  double wet_weight_per_metre(double g) const;

  // Reads and validates instance `instance` of a compiled model. Throws ConfigError.
  static Config FromModel(const mjModel* m, int instance);
};

// ---- pure physics ---------------------------------------------------------------------
struct Morison {
  double fluid_density = 1000;  // rho, kg/m^3
  double diameter = 0;          // d, m
  double cd_normal = 0;         // C_n
  double cd_tangential = 0;     // C_t
};

struct DragForce {
  Vec3 normal = Vec3::Zero();      // N
  Vec3 tangential = Vec3::Zero();  // N
  Vec3 total() const { return normal + tangential; }
};

// Morison drag on a straight cylinder element of length `length` with unit axis `axis`,
// for the water flowing past it at `flow` = v_water - v_element (world frame, m/s):
//   u_t = (flow . axis) axis, u_n = flow - u_t
//   F_n = 1/2 rho C_n d L |u_n| u_n                 (cross-flow; Morison, pressure drag)
//   F_t = 1/2 rho C_t (pi d) L |u_t| u_t            (skin friction on the wetted perimeter;
//                                                    seed 000, drag of the vehicles' tethers)
// The force is along the flow relative to the element (it drags the element with the
// water). The inertia (added-mass) term of Morison's equation is not here (see README).
DragForce MorisonDrag(const Vec3& flow, const Vec3& axis, double length, const Morison& c);

// Buoyancy of a submerged cylinder of length L: rho g (pi d^2 / 4) L, opposite to gravity.
Vec3 CylinderBuoyancy(double fluid_density, double diameter, double length, const Vec3& gravity);

// Fraction of a straight element from z_a to z_b (world z, m) that is below the free
// surface z = 0, and the world z of the midpoint of that submerged part.
double SubmergedFraction(double z_a, double z_b, double* z_mid_submerged = nullptr);

// Seed 002 eq. 3.21 (after Berg 2012) in the vehicle's body frame, FRD-free form:
//   X = -1/4 rho d C_d int_0^h |u_r| u_r dz,  Y = -1/4 rho d C_d int_0^h |v_r| v_r dz,
//   Z_down = 1.2 w h
// `x_integral` and `y_integral` are the integrals int |u_r| u_r dz (m^3/s^2) of the
// vehicle's body-frame velocity relative to the water along its x and y axes over the
// tether's depth range; w is the submerged weight per metre (N/m), h the depth of the
// vehicle below the anchor (m). Returns (X, Y, Z_down), N. The sign of the integrals
// follows the body axes, so X and Y are the same in FRD and FLU (|v|v is odd in v).
Vec3 AnalyticTetherForce(double fluid_density, double diameter, double cd,
                         double x_integral, double y_integral, double wet_weight_per_metre,
                         double h, double weight_factor = 1.2);

// ---- run-time readouts ----------------------------------------------------------------
struct Readout {
  std::vector<Vec3> nodes;        // world positions, anchor first, far end last (lumped)
  std::vector<double> tension;    // |force| transmitted at each node, N (lumped)
  Vec3 vehicle_force = Vec3::Zero();  // world force of the tether on the vehicle, N
  std::vector<DragForce> drag;    // last Morison drag per segment (lumped)
};

// The state of tether instance `instance` in `d` (after a Forward or a Step; the
// constraint force is that of the last forward pass). Throws ConfigError if `instance`
// is not a nereid.tether instance.
Readout Read(const mjModel* m, mjData* d, int instance);

}  // namespace tether
}  // namespace nereid

#endif  // NEREID_TETHER_H_
