// Copyright Nereid authors.
// Vehicle-manipulator systems (seeds 003 and 004): reference signals, the vehicle PD of
// seed 003 (Table 4, Fig. 10), the joint PID of seed 003 (Table 5), a computed-torque servo
// that prescribes joint angles (seed 004 eq. 85), and the closed-form inverse kinematics of
// seed 003's 3-DOF anthropomorphic arm (Table 1). docs/vms.md describes the scenario block
// ("controller": {"type": "vms", ...}) that builds a VmsController.
//
// Frames: the vehicle references are written as seed 003 prints them, in NED world axes
// (x north, y east, z down) and ZYX Euler angles of the FRD body frame; Nereid's world is
// z-up (x north, y west) and its bodies FLU (docs/conventions.md). The controller converts
// with T = diag(1, -1, -1) in one place (NedPose).
#ifndef NEREID_VMS_H_
#define NEREID_VMS_H_

#include <array>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/allocation.h"
#include "nereid/frames.h"

namespace nereid {

class Simulation;

// A scalar reference r(t), one of a closed set of forms.
struct Signal {
  enum class Kind {
    kConstant,  // value
    kSine,      // offset + amplitude sin(2 pi t / period + phase) for start < t <= end, else value
    kRamp,      // from before start, to after end, linear in between
    kLinear,    // offset + rate t
  };
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  Kind kind = Kind::kConstant;
  double value = 0;
  double amplitude = 0, period = 1, phase = 0, offset = 0, rate = 0;
  double start = -kInf, end = kInf;
  double from = 0, to = 0;

  double Value(double t) const;
  double Rate(double t) const;  // dr/dt, analytic
};

// Seed 003's anthropomorphic arm (Table 1, modified DH of Craig): joint 1 about z1 (the
// vehicle's z at q1 = 0), joint 2 with alpha = pi/2, theta = q2 + pi/2, joint 3 a = l2 from
// joint 2, end effector l3 along x3. At q = 0 the arm points along +z1. Returns (q1, q2,
// q3) that put the end effector at p (frame 1 at q1 = 0, origin at joint 1), with
// q3 = elbow * acos(...) (elbow = +1 or -1). A point out of reach is projected onto the
// reachable shell (the cosine is clamped to [-1, 1]).
Vec3 AnthropomorphicIk(const Vec3& p, double l2, double l3, int elbow);
// The end-effector position for joint angles q (the inverse of AnthropomorphicIk).
Vec3 AnthropomorphicFk(const Vec3& q, double l2, double l3);

// The vehicle's pose in seed 003's convention: NED position of the body origin and ZYX
// Euler angles (roll, pitch, yaw) of the FRD body frame, from Nereid's z-up world and FLU
// body. x[0..2] position, x[3..5] angles.
Vec6 NedPose(const mjData* d, int body);

struct VehiclePdSpec {
  std::string body;
  Vec6 kp = Vec6::Zero(), kd = Vec6::Zero();  // [x y z phi theta psi]: N/m, N m/rad; N s/m, N m s/rad
  std::array<bool, 6> active = {true, true, true, true, true, true};
  std::array<Signal, 6> reference;  // NED position relative to `origin`, Euler angles
  Vec3 origin = Vec3::Zero();       // Nereid world position (z-up) of the NED reference's zero
};

struct JointLoopSpec {
  enum class Mode {
    kPid,             // tau = kp e + ki int(e) + kd de/dt (seed 003 Table 5); the kp and kd
                      // terms act at every integrator stage (see VmsController)
    kComputedTorque,  // joint acceleration = r'' + kd de/dt + kp e, torque from the model
  };
  std::string joint, actuator, path;  // path: JSON path, for errors
  Mode mode = Mode::kPid;
  double kp = 0, ki = 0, kd = 0;
  Signal reference;
};

struct ArmIkSpec {
  std::array<std::string, 3> joints;  // q1, q2, q3; each must have a joint loop
  std::array<Signal, 3> target;       // end effector in frame 1 at q1 = 0 (seed 003 sec. 6.6)
  double l2 = 0.12, l3 = 0.25;        // m
  int elbow = -1;
  std::string path;
};

struct VmsControllerSpec {
  std::string path;  // JSON path of the block, for errors
  std::optional<VehiclePdSpec> vehicle;
  std::vector<JointLoopSpec> joints;
  std::vector<ArmIkSpec> ik;
  std::vector<std::string> monitor;  // bodies whose body-frame angular velocity is logged
};

// Runs a VmsControllerSpec on a simulation: call Update before each step. Records the
// references it used, one row per update (WriteLog).
//
// A PID loop's motor becomes an affine-biased actuator (MuJoCo's bias -kp q - kd qdot) so
// that the feedback on the joint's own state is evaluated at every integrator stage, as in
// the seed's continuous-time model; Update sets ctrl to kp r + kd r' + ki int(e), held over
// the step. A loop held over the step would alternate the joint's velocity sign every step
// once kd dt / I > 2. Stage evaluation still leaves explicit integrators a limit on the
// loops' damping (CheckStiffness warns); implicitfast has none. The motor's torque limit
// moves from ctrlrange to forcerange, so the saturation clips the total torque.
class VmsController final {
 public:
  // Resolves the names. Throws ConfigError "<source>: <json path>: ..." for an unknown
  // body, joint or actuator, a joint without a 1-dof actuator, or a vehicle without
  // nereid.thruster actuators.
  VmsController(Simulation& sim, const VmsControllerSpec& spec, const std::string& source);

  // Sets the thrusters' and the joint motors' ctrl for the state and time in sim.data().
  void Update(double dt);
  // vms.csv, one row per update (the state before the step): time; with a vehicle, its six
  // references (NED, Euler), the body wrench asked of the thrusters and the one allocated
  // (FRD, about the body origin); each joint loop's reference; each joint loop's inertia
  // (the mass matrix's diagonal, added inertia included); each monitored body's angular
  // velocity in its own frame.
  void WriteLog(const std::string& path) const;
  // Problems found at construction that do not stop a run: the joint loops' damping too
  // stiff for the integrator and timestep (the joints would chatter at their torque limit).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Loop {
    JointLoopSpec spec;
    int joint = -1, dof = -1, qpos = -1, actuator = -1;
    double gear = 1, integral = 0;   // integral: int(e) up to the last update
    double last_error = 0, last_dt = 0;  // e and the integrated dt at the last update (0: none)
    double torque_min = -std::numeric_limits<double>::infinity();
    double torque_max = std::numeric_limits<double>::infinity();
    int ik = -1, ik_index = -1;
  };
  // Nereid's forward pass at the current state, then its dense mass matrix (added mass
  // included), kept in mass_.
  using DenseMass = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
  DenseMass ForwardMass();
  void MakeStageFeedback(Loop& loop);
  void CheckStiffness(const std::string& source);
  double JointReference(const Loop& loop, double t, double* rate, double* accel) const;
  // Update's parts: the vehicle's PD and thrust allocation, one PID joint loop's ctrl, the
  // loops' inertias and monitored bodies' rates, the joints' reactions; those that record
  // write vms.csv's columns from `out` (UpdateVehicle and RecordInertiasAndRates return
  // where the next ones go; the reactions are the row's last).
  double* UpdateVehicle(double t, double* out);
  void UpdateJointPid(Loop& loop, double r, double rate, double dt);
  double* RecordInertiasAndRates(double* out);
  void RecordReactions(double* out);
  void UpdateComputedTorque(double t);

  Simulation& sim_;
  VmsControllerSpec spec_;
  int body_ = -1;
  ThrusterSet thrusters_;
  std::vector<Loop> loops_;
  std::vector<int> monitor_;
  std::vector<int> reaction_joints_;  // the loops' joints, for react.* in the log
  std::vector<double> rows_;  // recorded references, row-major
  size_t columns_ = 0;
  std::vector<mjtNum> mass_;  // dense M for the computed-torque loops
  std::vector<std::string> warnings_;
};

}  // namespace nereid

#endif  // NEREID_VMS_H_
