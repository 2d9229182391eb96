// Copyright Nereid authors.
// Depth and attitude hold on a vehicle's vertical thrusters, as an ArduSub autopilot does in
// its depth-hold mode (seed 000 sections 3.1.1 and 4.2.1: each BlueROV's Pixhawk held depth,
// roll and pitch while the pilot drove the surge thrusters; the integral terms were removed).
//
// The loops have ArduSub's structure in physical units:
//   depth error  --depth_p-->  climb-rate command (|.| <= max_climb_rate)
//                --climb_p-->  heave acceleration  -> heave force (rigid + added mass)
//   roll, pitch  --angle_p-->  body-rate command   (|.| <= max_rate)
//                --rate_p--->  angular acceleration -> moment (rigid + added inertia)
// The body-frame heave force and roll/pitch moments are allocated to the vertical thrusters
// only (nereid::Allocate, within each thruster's reachable thrust) and set as their commands
// (ThrusterSet::SetCommands: PWM for a PWM thruster). Heading is not held: the pilot's yaw
// is free (seed 000's rotational trials turn at the rate the thrust asymmetry gives).
#ifndef NEREID_STABILIZE_H_
#define NEREID_STABILIZE_H_

#include <optional>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/allocation.h"
#include "nereid/frames.h"

namespace nereid {

class Simulation;

struct StabilizeGains {
  double depth_p = 1.0;         // 1/s: depth error -> climb-rate command
  double climb_p = 4.0;         // 1/s: climb-rate error -> heave acceleration
  double angle_p = 6.0;         // 1/s: attitude error -> body-rate command (ArduSub's
                                //      default angle P for subs, AC_ATC_SUB_ANGLE_P = 6)
  double rate_p = 30.0;         // 1/s: body-rate error -> angular acceleration; with
                                //      angle_p it makes the BlueROV's pitch stiffness
                                //      I_yy angle_p rate_p = 0.184 x 180 = 33 N m/rad, three
                                //      times the Munk moment's (Z_wdot - X_udot) u^2 at 1 m/s
  double max_climb_rate = 0.5;  // m/s
  double max_rate = 1.0;        // rad/s
};

// The control law, without a model: the heave acceleration (world up, m/s^2) and the roll
// and pitch angular accelerations (body frame, rad/s^2) for a depth error (reference minus
// measured height, m), the climb rate (world up, m/s), roll and pitch (rad; Z-Y-X Euler
// angles of an FLU body in a z-up world) and the body rates p, q (rad/s).
Vec3 StabilizeLaw(const StabilizeGains& gains, double height_error, double climb_rate, double roll,
                  double pitch, double p, double q);

struct StabilizeSpec {
  std::string body;
  std::string path;                     // JSON path, for errors
  std::optional<double> depth;          // m below the surface (world z = -depth) to hold;
                                        // default: the body's depth at the start
  std::vector<std::string> thrusters;   // actuator names; default: the body's thrusters
                                        // whose thrust axis is within 25 deg of its z axis
  StabilizeGains gains;
};

class Stabilize {
 public:
  // Throws ConfigError naming `source` and the spec's JSON path for an unknown body, a body
  // without a free joint, an unknown or foreign thruster, or no vertical thrusters.
  Stabilize(const Simulation& sim, const StabilizeSpec& spec, const std::string& source);

  // Sets the vertical thrusters' commands for the current state (call before each step).
  void Update(const mjModel* m, mjData* d);

  int body() const { return body_; }
  double height_reference() const { return height_; }
  const ThrusterSet& thrusters() const { return thrusters_; }
  // the attitude at the last update, rad
  double roll() const { return roll_; }
  double pitch() const { return pitch_; }

 private:
  void Measure(const Mat3& R);  // roll_ and pitch_ from the world-from-body rotation
  int body_ = -1;
  double height_ = 0;
  StabilizeGains gains_;
  double heave_mass_ = 0;  // kg, rigid + added, body z
  Mat3 inertia_ = Mat3::Zero();  // kg m^2, rigid + added, body frame
  ThrusterSet thrusters_;  // the vertical thrusters only
  double roll_ = 0, pitch_ = 0;
};

}  // namespace nereid

#endif  // NEREID_STABILIZE_H_
