// Copyright Nereid authors.
// The docking task's "sensors" observation and its sensor-derived state (docking_sensors.h).
#include "rl/docking_sensors.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nereid/control.h"
#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/plugins.h"

namespace nereid::rl {

DockingSensors::DockingSensors(const Simulation& sim, int chaser, int target, double offset, const std::string& task,
                               const std::string& model, const Names& names)
    : chaser_(chaser), offset_(offset), estimate_(sim, model) {
  const mjModel* m = sim.model();
  const std::string where = "task " + task + ", observation \"sensors\": model " + model;
  int id = -1;
  Vec3 unused;
  Mat3 unused_rotation;
  depth_ = FindFields(m, task, model, names.pressure, kPressurePlugin, {"depth"}, &id)[0];
  SiteOnBody(m, id, chaser, where, &r_pressure_, &unused_rotation);
  std::vector<int> f = FindFields(m, task, model, names.imu, kImuPlugin, {"acc_x", "gyro_x", "heading"}, &id);
  acc_ = f[0], gyro_ = f[1], heading_ = f[2];
  SiteOnBody(m, id, chaser, where, &unused, &R_imu_);
  f = FindFields(m, task, model, names.camera, kMarkerPlugin, {"x", "valid"}, &id);
  marker_ = f[0], valid_ = f[1];
  SiteOnBody(m, id, chaser, where, &r_camera_, &R_camera_);
  arrival_ = ArrivalTest(m, id);
  latency_ = SensorLatency(m, id);
  // the marker's site on the target: where the board is is known to the vehicle
  const char* marker_name = mj_getPluginConfig(m, m->sensor_plugin[id], "marker");
  const int site = marker_name ? mj_name2id(m, mjOBJ_SITE, marker_name) : -1;
  if (site < 0 || m->site_bodyid[site] != target) {
    throw ConfigError(where + ": sensor '" + names.camera + "' does not look for a marker on the target body '" +
                      std::string(mj_id2name(m, mjOBJ_BODY, target)) + "'");
  }
  SiteInBody(m, site, &r_marker_, &R_marker_);
  chaser_dof_ = FreeJointDof(m, chaser);
  target_dof_ = FreeJointDof(m, target);
  if (chaser_dof_ < 0 || target_dof_ < 0) throw ConfigError(where + ": the vehicles' bodies need free joints");
  chaser_qpos_ = m->jnt_qposadr[m->body_jntadr[chaser]];
  target_qpos_ = m->jnt_qposadr[m->body_jntadr[target]];
}

DockingSensors::~DockingSensors() = default;

const DockingSensors::Past& DockingSensors::At(double time) const {
  // the newest first; the oldest kept when `time` is older still
  const Past* best = nullptr;
  for (size_t i = 1; i <= past_count_; ++i) {
    const Past& p = past_[(past_head_ + past_.size() - i) % past_.size()];
    best = &p;
    if (p.time <= time + 1e-9) break;
  }
  return best ? *best : present_;
}

void DockingSensors::Update(const Simulation& sim) {
  const mjModel* m = sim.model();
  const mjData* d = sim.data();
  const mjtNum* s = d->sensordata;
  const double t = d->time;
  const double dt = fresh_ ? 0.0 : t - last_time_;
  last_time_ = t;
  if (fresh_) has_dock_ = false;

  const bool detection = arrival_.Changed(s, fresh_) && s[valid_] > 0.5;
  if (detection) arrival_time_ = t;
  const double age = has_dock_ || detection ? t - arrival_time_ + latency_ : -1.0;
  readings_[0] = s[depth_];
  for (int i = 0; i < 3; ++i) {
    readings_[1 + i] = s[acc_ + i];
    readings_[4 + i] = s[gyro_ + i];
  }
  readings_[7] = s[heading_];
  for (int i = 0; i < 6; ++i) readings_[8 + i] = s[marker_ + i];
  readings_[14] = s[valid_];
  readings_[15] = age;

  const Vec3 f = R_imu_ * Vec3(s[acc_], s[acc_ + 1], s[acc_ + 2]);
  rate_ = R_imu_ * Vec3(s[gyro_], s[gyro_ + 1], s[gyro_ + 2]);
  attitude_q_ = attitude_filter_.Update(f, rate_, s[heading_], dt, fresh_);
  const Mat3 R = attitude_q_.toRotationMatrix();

  // propagation on the accelerometer: a = R f + g, the world's gravity; the depth corrects
  // the vertical at every step (an alpha-beta filter with gains kDepthAlpha and
  // kDepthAlpha^2 / (2 - kDepthAlpha)), the detections the horizontal (below)
  const double z = -s[depth_] - (R * r_pressure_).z();
  if (fresh_) {
    position_ = Vec3(0, 0, z);
    velocity_.setZero();
  } else {
    const Vec3 a = R * f + Vec3(m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]);
    position_ += dt * velocity_ + 0.5 * dt * dt * a;
    velocity_ += dt * a;
    // without a detection for long the horizontal velocity (unobserved) relaxes to zero
    // rather than integrate the accelerometer's bias and the attitude's error
    if (has_dock_ && t - last_detection_ > kLostAfter) velocity_.head<2>() *= 1 - dt / (kLostAfter + dt);
    const double residual = z - position_.z();
    position_.z() += kDepthAlpha * residual;
    if (dt > 0) velocity_.z() += kDepthAlpha * kDepthAlpha / (2 - kDepthAlpha) / dt * residual;
  }
  if (fresh_) past_count_ = 0;
  present_ = Past{t, position_, attitude_q_};  // a detection with no estimate before it
  if (detection) {
    // the target in the chaser's frame, from the camera's view of the marker:
    // R_bt = R_c R_cm R_mᵀ, p_bt = r_c + R_c p_m - R_bt r_m; the docking pose offset_ behind it
    const Vec3 p_m(s[marker_], s[marker_ + 1], s[marker_ + 2]);
    const Vec3 r(s[marker_ + 3], s[marker_ + 4], s[marker_ + 5]);
    const Mat3 R_cm = r.norm() > 0 ? Mat3(Eigen::AngleAxisd(r.norm(), r.normalized())) : Mat3::Identity();
    const Mat3 R_bt = R_camera_ * R_cm * R_marker_.transpose();
    const Vec3 p_bt = r_camera_ + R_camera_ * p_m - R_bt * r_marker_;
    const Vec3 p_bd = p_bt + R_bt * Vec3(-offset_, 0, 0);
    // the frame was taken `age` ago: it is combined with the estimate of that instant (the
    // delayed-measurement approximation: the correction found then is applied now)
    const Past& then = At(t - age);
    const Mat3 R_then = then.attitude.toRotationMatrix();
    if (!has_dock_) {  // the first: the frame's horizontal origin at the chaser
      dock_p_.head<2>() = then.position.head<2>() + (R_then * p_bd).head<2>();
      velocity_.head<2>().setZero();
    } else {  // the chaser's position in the target's frame then, against the estimate then
      const Eigen::Vector2d residual = dock_p_.head<2>() - (R_then * p_bd).head<2>() - then.position.head<2>();
      const double period = std::max(t - last_detection_, 1e-6);
      position_.head<2>() += kAlpha * residual;
      velocity_.head<2>() += kAlpha * kAlpha / (2 - kAlpha) / period * residual;
    }
    // the target's depth from each detection (it drifts, e.g. rising when buoyant); its
    // attitude changes slowly: each detection turns it kSmooth of the way (all of it on the
    // first), which averages the camera's angle noise
    dock_p_.z() = then.position.z() + (R_then * p_bd).z();
    dock_q_ = dock_q_.slerp(has_dock_ ? kSmooth : 1.0, Eigen::Quaterniond(R_then * R_bt)).normalized();
    has_dock_ = true;
    last_detection_ = t;
  }
  // the estimate of this instant, for detections to come
  past_[past_head_] = Past{t, position_, attitude_q_};
  past_head_ = (past_head_ + 1) % past_.size();
  past_count_ = std::min(past_count_ + 1, past_.size());
  fresh_ = false;

  // the target at rest where the docking pose puts it
  estimate_.Begin(m, d);
  estimate_.SetFreeJoint(chaser_qpos_, chaser_dof_, position_, attitude_q_, velocity_, rate_);
  estimate_.SetFreeJoint(target_qpos_, target_dof_, dock_p_ + dock_q_.toRotationMatrix() * Vec3(offset_, 0, 0), dock_q_,
                         Vec3::Zero(), Vec3::Zero());
}

mjData* DockingSensors::estimate() { return estimate_.Get(); }

void DockingSensors::Observe(float* out) {
  for (int i = 0; i < kReadings; ++i) out[i] = static_cast<float>(readings_[static_cast<size_t>(i)]);
  const Vec6 e = has_dock_ ? PoseError(estimate(), chaser_, dock_p_, dock_q_) : Vec6::Zero();
  for (int i = 0; i < 6; ++i) out[kReadings + i] = static_cast<float>(e[i]);
}

}  // namespace nereid::rl
