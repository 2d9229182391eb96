// Copyright Nereid authors.
#include "nereid/stabilize.h"

#include <algorithm>
#include <cmath>

#include "nereid/control.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/simulation.h"

namespace nereid {
namespace {

// a thruster counts as vertical when its thrust axis is within this angle of the body z axis
constexpr double kVerticalCos = 0.9063077870366499;  // cos(25 deg)

double Clamp(double x, double limit) { return std::clamp(x, -limit, limit); }

}  // namespace

Vec3 StabilizeLaw(const StabilizeGains& g, double height_error, double climb_rate, double roll,
                  double pitch, double p, double q) {
  const double climb_command = Clamp(g.depth_p * height_error, g.max_climb_rate);
  const double p_command = Clamp(-g.angle_p * roll, g.max_rate);
  const double q_command = Clamp(-g.angle_p * pitch, g.max_rate);
  return Vec3(g.climb_p * (climb_command - climb_rate), g.rate_p * (p_command - p),
              g.rate_p * (q_command - q));
}

Stabilize::Stabilize(const Simulation& sim, const StabilizeSpec& spec, const std::string& source)
    : gains_(spec.gains) {
  const mjModel* m = sim.model();
  auto fail = [&](const std::string& key, const std::string& rule) {
    throw ConfigError(source + ": " + spec.path + key + ": " + rule);
  };
  body_ = mj_name2id(m, mjOBJ_BODY, spec.body.c_str());
  if (body_ <= 0) fail("/body", "no body named '" + Excerpt(spec.body) + "' in " + sim.source());
  if (FreeJointDof(m, body_) < 0) fail("/body", "body '" + Excerpt(spec.body) + "' has no free joint");
  const ThrusterSet all = FindThrusters(m, body_);
  std::vector<Eigen::Index> columns;
  if (spec.thrusters.empty()) {
    for (Eigen::Index j = 0; j < all.B.cols(); ++j) {
      const Vec3 f = all.B.col(j).head<3>();
      if (f.norm() > 0 && std::abs(f.z()) >= kVerticalCos * f.norm()) columns.push_back(j);
    }
    if (columns.empty()) {
      fail("/body", "body '" + Excerpt(spec.body) +
                        "' has no nereid.thruster whose thrust axis is within 25 deg of its z axis");
    }
  } else {
    for (size_t i = 0; i < spec.thrusters.size(); ++i) {
      const auto it = std::find(all.names.begin(), all.names.end(), spec.thrusters[i]);
      if (it == all.names.end()) {
        fail("/thrusters/" + std::to_string(i), "no nereid.thruster actuator named '" +
                                                    Excerpt(spec.thrusters[i]) + "' on body '" +
                                                    Excerpt(spec.body) + "'");
      }
      columns.push_back(it - all.names.begin());
    }
  }
  thrusters_.body = body_;
  thrusters_.B.resize(6, static_cast<Eigen::Index>(columns.size()));
  thrusters_.thrust_min.resize(thrusters_.B.cols());
  thrusters_.thrust_max.resize(thrusters_.B.cols());
  for (size_t k = 0; k < columns.size(); ++k) {
    const Eigen::Index j = columns[k];
    const size_t js = static_cast<size_t>(j);
    const Eigen::Index ks = static_cast<Eigen::Index>(k);
    thrusters_.actuators.push_back(all.actuators[js]);
    thrusters_.controls.push_back(all.controls[js]);
    thrusters_.outputs.push_back(all.outputs[js]);
    thrusters_.names.push_back(all.names[js]);
    thrusters_.models.push_back(all.models[js]);
    thrusters_.B.col(ks) = all.B.col(j);
    thrusters_.thrust_min[ks] = all.thrust_min[j];
    thrusters_.thrust_max[ks] = all.thrust_max[j];
  }
  const Mat6 M = VehicleMassMatrix(sim, body_);
  heave_mass_ = M(2, 2);
  inertia_ = M.bottomRightCorner<3, 3>();
  height_ = spec.depth ? -*spec.depth : sim.data()->xpos[3 * body_ + 2];
  Measure(BodyRotation(sim.data(), body_));
}

void Stabilize::Measure(const Mat3& R) {
  // Z-Y-X Euler angles of the world-from-body rotation (FLU body, z-up world)
  roll_ = std::atan2(R(2, 1), R(2, 2));
  pitch_ = -std::asin(std::clamp(R(2, 0), -1.0, 1.0));
}

void Stabilize::Update(const mjModel* m, mjData* d) {
  const Mat3 R = BodyRotation(d, body_);
  Measure(R);
  const Vec6 nu = BodyVelocity(m, d, body_);  // body frame [v; w]
  const double climb_rate = (R * nu.head<3>()).z();
  const Vec3 a = StabilizeLaw(gains_, height_ - d->xpos[3 * body_ + 2], climb_rate, roll_, pitch_,
                              nu[3], nu[4]);
  Vec6 tau = Vec6::Zero();
  // the body-z force whose vertical part is the commanded heave force (tilt <= 60 deg)
  tau[2] = heave_mass_ * a[0] / std::max(R(2, 2), 0.5);
  tau.tail<3>() = inertia_ * Vec3(a[1], a[2], 0.0);
  tau[5] = 0;  // heading is the pilot's
  const Eigen::VectorXd thrust =
      Allocate(thrusters_.B, tau, thrusters_.thrust_min, thrusters_.thrust_max);
  thrusters_.SetCommands(m, d, thrust);
}

}  // namespace nereid
