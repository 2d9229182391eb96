// Copyright Nereid authors.
// The "sensors" observation of an RL task and its sensor-derived state (vehicle_sensors.h).
#include "rl/vehicle_sensors.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/plugins.h"

namespace nereid::rl {
namespace {

// Roll (about x), pitch (about y) of a rotation R = Rz(yaw) Ry(pitch) Rx(roll).
double Roll(const Mat3& R) { return std::atan2(R(2, 1), R(2, 2)); }
double Pitch(const Mat3& R) { return -std::asin(std::clamp(R(2, 0), -1.0, 1.0)); }

}  // namespace

std::vector<int> FindFields(const mjModel* m, const std::string& task, const std::string& model,
                            const std::string& name, const char* plugin, const std::vector<std::string>& fields,
                            int* sensor_id) {
  const std::string where = "task " + task + ", observation \"sensors\": model " + model;
  const int id = mj_name2id(m, mjOBJ_SENSOR, name.c_str());
  if (id < 0) {
    throw ConfigError(where + " has no sensor '" + name + "' (a " + plugin +
                      " sensor plugin); use observation \"state\" or a model with the sensor (docs/rl.md)");
  }
  const std::vector<std::string> names = SensorFieldNames(m, id);
  std::vector<int> adr;
  for (const std::string& field : fields) {
    const auto at = std::find(names.begin(), names.end(), field);
    if (at == names.end()) {
      throw ConfigError(where + ": sensor '" + name + "' has no field '" + field + "' (expected a " + plugin +
                        " sensor plugin)");
    }
    adr.push_back(m->sensor_adr[id] + static_cast<int>(at - names.begin()));
  }
  *sensor_id = id;
  return adr;
}

void SiteOnBody(const mjModel* m, int sensor, int body, const std::string& where, Vec3* r, Mat3* R) {
  const char* site_name = mj_getPluginConfig(m, m->sensor_plugin[sensor], "site");
  const int site = site_name ? mj_name2id(m, mjOBJ_SITE, site_name) : -1;
  const char* sensor_name = mj_id2name(m, mjOBJ_SENSOR, sensor);
  if (site < 0 || m->site_bodyid[site] != body) {
    throw ConfigError(where + ": sensor '" + std::string(sensor_name ? sensor_name : "?") +
                      "' is not on the vehicle's body '" + std::string(mj_id2name(m, mjOBJ_BODY, body)) + "'");
  }
  SiteInBody(m, site, r, R);
}

void SiteInBody(const mjModel* m, int site, Vec3* r, Mat3* R) {
  *r = Vec3(m->site_pos[3 * site], m->site_pos[3 * site + 1], m->site_pos[3 * site + 2]);
  const mjtNum* q = m->site_quat + 4 * site;
  *R = Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
}

double SensorLatency(const mjModel* m, int sensor) {
  const char* latency = mj_getPluginConfig(m, m->sensor_plugin[sensor], "latency");
  return latency && *latency ? std::atof(latency) : 0.0;  // the sensors' default: none
}

ArrivalTest::ArrivalTest(const mjModel* m, int sensor)
    : adr_(m->sensor_adr[sensor]), dim_(std::min(m->sensor_dim[sensor], static_cast<int>(last_.size()))) {}

bool ArrivalTest::Changed(const mjtNum* sensordata, bool fresh) {
  const mjtNum* s = sensordata + adr_;
  const bool changed = fresh || !std::equal(s, s + dim_, last_.begin());
  std::copy(s, s + dim_, last_.begin());
  return changed;
}

EstimateData::EstimateData(const Simulation& sim, const std::string& model)
    : data_(Simulation::MakeData(sim.model(), sim.engine(), model)),
      forces_(static_cast<size_t>(sim.model()->nout)) {}

EstimateData::~EstimateData() { mj_deleteData(data_); }

void EstimateData::Begin(const mjModel* m, const mjData* truth) {
  time_ = truth->time;
  forces_.assign(truth->actuator_force, truth->actuator_force + m->nout);  // sized at construction
  model_ = m;
  joint_count_ = 0;
  stale_ = true;
}

void EstimateData::SetFreeJoint(int qpos, int dof, const Vec3& p, const Eigen::Quaterniond& q, const Vec3& v,
                                const Vec3& w) {
  if (joint_count_ == kMaxJoints) throw std::logic_error("EstimateData: more than kMaxJoints free joints");
  joints_[static_cast<size_t>(joint_count_++)] = {qpos, dof, p, v, w, q};
}

mjData* EstimateData::Get() {
  if (stale_) {
    data_->time = time_;
    std::copy(forces_.begin(), forces_.end(), data_->actuator_force);
    for (int j = 0; j < joint_count_; ++j) {
      const FreeJoint& joint = joints_[static_cast<size_t>(j)];
      for (int i = 0; i < 3; ++i) {
        data_->qpos[joint.qpos + i] = joint.p[i];
        data_->qvel[joint.dof + i] = joint.v[i];
        data_->qvel[joint.dof + 3 + i] = joint.w[i];
      }
      data_->qpos[joint.qpos + 3] = joint.q.w();
      data_->qpos[joint.qpos + 4] = joint.q.x();
      data_->qpos[joint.qpos + 5] = joint.q.y();
      data_->qpos[joint.qpos + 6] = joint.q.z();
    }
    mj_kinematics(model_, data_);
    stale_ = false;
  }
  return data_;
}

Eigen::Quaterniond AttitudeFilter::Update(const Vec3& f, const Vec3& w, double heading, double dt, bool fresh) {
  // roll and pitch from the specific force (gravity at rest), yaw from the heading; the
  // gyro propagates roll and pitch, which relax towards the gravity direction's with time
  // constant kTau, so that the vehicle's own accelerations tilt the estimate little
  constexpr double kTau = 2.0;  // s
  double roll = std::atan2(f.y(), f.z()), pitch = std::atan2(-f.x(), std::hypot(f.y(), f.z()));
  if (!fresh) {
    const Mat3 turn = Eigen::AngleAxisd(w.norm() * dt, w.normalized()).toRotationMatrix();
    const Mat3 propagated = attitude_.toRotationMatrix() * turn;
    const double k = dt / (kTau + dt), propagated_roll = Roll(propagated), propagated_pitch = Pitch(propagated);
    roll = propagated_roll + k * WrapAngle(roll - propagated_roll);
    pitch = propagated_pitch + k * (pitch - propagated_pitch);
  }
  attitude_ = Eigen::AngleAxisd(heading, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
              Eigen::AngleAxisd(roll, Vec3::UnitX());
  return attitude_;
}

void RestartSensors(const mjModel* m, mjData* d) {
  for (int i = 0; i < m->nplugin; ++i) {
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[i]);
    if (plugin && (plugin->capabilityflags & mjPLUGIN_SENSOR) && plugin->reset) {
      plugin->reset(m, d->plugin_state + m->plugin_stateadr[i], reinterpret_cast<void*>(d->plugin_data[i]), i);
    }
  }
}

VehicleSensors::VehicleSensors(const Simulation& sim, int body, const std::string& task, const std::string& model,
                               const Names& names)
    : sim_(&sim), body_(body), estimate_(sim, model) {
  const mjModel* m = sim.model();
  const std::string where = "task " + task + ", observation \"sensors\": model " + model;
  int id = -1;
  Vec3 unused;
  Mat3 unused_rotation;
  depth_ = FindFields(m, task, model, names.pressure, "nereid.pressure", {"depth"}, &id)[0];
  SiteOnBody(m, id, body, where, &r_pressure_, &unused_rotation);
  std::vector<int> f = FindFields(m, task, model, names.imu, "nereid.imu", {"acc_x", "gyro_x", "heading"}, &id);
  acc_ = f[0], gyro_ = f[1], heading_ = f[2];
  SiteOnBody(m, id, body, where, &unused, &R_imu_);
  f = FindFields(m, task, model, names.dvl, "nereid.dvl", {"vx", "status"}, &id);
  dvl_v_ = f[0], dvl_status_ = f[1];
  SiteOnBody(m, id, body, where, &r_dvl_, &R_dvl_);
  f = FindFields(m, task, model, names.acoustic, "nereid.acoustic", {"x", "valid"}, &id);
  fix_ = f[0], fix_valid_ = f[1];
  SiteOnBody(m, id, body, where, &r_acoustic_, &unused_rotation);
  fix_arrival_ = ArrivalTest(m, id);
  fix_latency_ = SensorLatency(m, id);
  dof_ = FreeJointDof(m, body);
  if (dof_ < 0) throw ConfigError(where + ": the vehicle's body has no free joint");
  qpos_ = m->jnt_qposadr[m->body_jntadr[body]];
}

VehicleSensors::~VehicleSensors() = default;

void VehicleSensors::Update(const Simulation& sim) {
  sim_ = &sim;  // what a first estimate() after this update restarts from
  const mjModel* m = sim.model();
  const mjData* d = sim.data();
  const mjtNum* s = d->sensordata;
  const double t = d->time;
  const double dt = fresh_ ? 0.0 : t - last_time_;
  last_time_ = t;

  // the acoustic fix: a reading that differs from the one held arrived in the last step;
  // its age is the time since then plus the sensor's latency (what the vehicle knows: when
  // the message came and the system's latency)
  const bool changed = fix_arrival_.Changed(s, fresh_);
  const bool valid = s[fix_valid_] > 0.5;
  const bool new_fix = changed && valid;
  if (fresh_) has_fix_ = false;
  if (new_fix) {
    has_fix_ = true;
    arrival_ = t;
    fix_position_ = Vec3(s[fix_], s[fix_ + 1], s[fix_ + 2]);
  }
  const double age = FixAge(t);

  readings_[0] = s[depth_];
  for (int i = 0; i < 3; ++i) {
    readings_[1 + i] = s[acc_ + i];
    readings_[4 + i] = s[gyro_ + i];
    readings_[8 + i] = s[dvl_v_ + i];
    readings_[12 + i] = s[fix_ + i];
  }
  readings_[7] = s[heading_];
  readings_[11] = s[dvl_status_];
  readings_[15] = s[fix_valid_];
  readings_[16] = age;

  // the sensor-derived state: kept while it is tracked, and at every episode's start
  if (tracked_ || fresh_) {
    UpdateEstimate(m, d, dt, fresh_, new_fix, age);
  }
  estimate_current_ = tracked_ || fresh_;
  fresh_ = false;
}

void VehicleSensors::UpdateEstimate(const mjModel* m, const mjData* d, double dt, bool fresh, bool new_fix,
                                    double age) {
  // the attitude (AttitudeFilter); rates from the gyro; velocity from the DVL (its lever
  // arm's rotational part removed; held while it has no lock); depth from the pressure;
  // the horizontal position from the latest fix (moved on by the velocity over its age),
  // dead-reckoned on the velocity between fixes
  const mjtNum* s = d->sensordata;
  const Vec3 f = R_imu_ * Vec3(s[acc_], s[acc_ + 1], s[acc_ + 2]);
  const Vec3 w = R_imu_ * Vec3(s[gyro_], s[gyro_ + 1], s[gyro_ + 2]);
  const Eigen::Quaterniond q = attitude_.Update(f, w, s[heading_], dt, fresh);
  const Mat3 R = q.toRotationMatrix();
  if (fresh) velocity_.setZero();
  if (s[dvl_status_] > 0.5) velocity_ = R_dvl_ * Vec3(s[dvl_v_], s[dvl_v_ + 1], s[dvl_v_ + 2]) - w.cross(r_dvl_);
  const Vec3 v_world = R * velocity_;
  if (fresh) position_.setZero();
  position_.head<2>() += dt * v_world.head<2>();
  if (new_fix) {
    position_.head<2>() = (fix_position_ - R * r_acoustic_ + age * v_world).head<2>();
  }
  position_.z() = -s[depth_] - (R * r_pressure_).z();

  estimate_.Begin(m, d);
  estimate_.SetFreeJoint(qpos_, dof_, position_, q, v_world, w);
}

mjData* VehicleSensors::estimate() {
  if (!tracked_) {
    tracked_ = true;
    // first asked for after the episode's start: started again from the readings of now,
    // as at a reset, with the latest fix (if any) moved on by its age
    if (!estimate_current_) {
      // (asked between a Reset and its first Update: no fix yet, and that Update starts
      // the estimate afresh anyway)
      const mjData* d = sim_->data();
      UpdateEstimate(sim_->model(), d, 0.0, true, has_fix_ && !fresh_, FixAge(d->time));
      estimate_current_ = true;
    }
  }
  return estimate_.Get();
}

void VehicleSensors::Observe(const Vec3& target, double target_heading, float* out) const {
  for (int i = 0; i < kReadings; ++i) out[i] = static_cast<float>(readings_[static_cast<size_t>(i)]);
  for (int i = 0; i < 3; ++i) out[kReadings + i] = has_fix_ ? static_cast<float>(target[i] - fix_position_[i]) : 0.0f;
  out[kReadings + 3] = static_cast<float>(-target.z() - readings_[0]);
  out[kReadings + 4] = static_cast<float>(WrapAngle(target_heading - readings_[7]));
}

}  // namespace nereid::rl
