// Copyright Nereid authors.
#include "nereid/navigator.h"

#include <cmath>
#include <cstdio>

#include "nereid/error.h"
#include "nereid/kinematics.h"
#include "nereid/object_names.h"
#include "nereid/plugins.h"

namespace nereid {
namespace {

Mat3 SiteRotationInBody(const mjModel* m, int site) {
  mjtNum R[9];
  mju_quat2Mat(R, m->site_quat + 4 * site);
  return Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(R);
}
Vec3 SitePositionInBody(const mjModel* m, int site) {
  return Vec3(m->site_pos[3 * site], m->site_pos[3 * site + 1], m->site_pos[3 * site + 2]);
}

const NavigationSensors& CheckedSensors(const NavigationSensors& s, const NavigationSettings& settings,
                                        const mjModel* m, int body, const std::string& where,
                                        const std::string& model) {
  const char* b = mj_id2name(m, mjOBJ_BODY, body);
  auto missing = [&](const std::string& what) {
    throw ConfigError(where + ": the navigation filter (\"feedback\": \"estimate\" or \"navigation\") needs " + what +
                      " on body '" + (b ? b : "") + "' of model " + model + " (docs/sensors.md, \"Navigation\")");
  };
  if (!s.imu.present()) missing("a nereid.imu sensor (the filter's propagation)");
  if (!s.pressure.present()) missing("a nereid.pressure sensor (depth)");
  if (!s.dvl.present() && !s.acoustic.present()) {
    missing("a nereid.dvl or a nereid.acoustic sensor (horizontal velocity or position)");
  }
  // without its fixes ("navigation": {"acoustic": false}) only the DVL aids the horizontal
  if (!s.dvl.present() && !settings.use_acoustic) {
    missing("a nereid.dvl sensor (horizontal velocity: the acoustic fixes are off, /navigation/acoustic false)");
  }
  // the filter takes the IMU's, the DVL's and the pressure sensor's readings as of their
  // delivery: a latency there would bias the estimate without a word
  auto refuse_latency = [&](const NavigationSensors::Base& sensor, const char* plugin) {
    if (!sensor.present() || sensor.latency == 0) return;
    char value[32];
    std::snprintf(value, sizeof(value), "%g", sensor.latency);
    throw ConfigError(where + ": the navigation filter (\"feedback\": \"estimate\" or \"navigation\") "
                      "compensates only the acoustic fix's latency: " + plugin + " instance " +
                      Excerpt(QuotedNameOrId(m, mjOBJ_PLUGIN, m->sensor_plugin[sensor.sensor])) + " on body '" + (b ? b : "") +
                      "' of model " + model + " has key 'latency' = '" + value +
                      "' (s); set it to 0 for the filter (docs/sensors.md, \"Navigation\")");
  };
  refuse_latency(s.imu, kImuPlugin);
  refuse_latency(s.dvl, kDvlPlugin);
  refuse_latency(s.pressure, kPressurePlugin);
  return s;
}

nav::ErrorStateKf MakeFilter(const mjModel* m, const NavigationSensors& s, const NavigationSettings& settings) {
  nav::MatN P0 = nav::MatN::Zero();
  const double ba = std::max(s.imu.noise.accel_turn_on, 1e-4), bg = std::max(s.imu.noise.gyro_turn_on, 1e-5);
  for (int i = 0; i < 3; ++i) {
    P0(nav::kP + i, nav::kP + i) = settings.initial_position_sd * settings.initial_position_sd;
    P0(nav::kV + i, nav::kV + i) = settings.initial_velocity_sd * settings.initial_velocity_sd;
    P0(nav::kTheta + i, nav::kTheta + i) = settings.initial_attitude_sd * settings.initial_attitude_sd;
    P0(nav::kBa + i, nav::kBa + i) = ba * ba;
    P0(nav::kBg + i, nav::kBg + i) = bg * bg;
    P0(nav::kC + i, nav::kC + i) = settings.initial_current_sd * settings.initial_current_sd;
  }
  return nav::ErrorStateKf(nav::NavState{}, P0, s.imu.noise,
                           Vec3(m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]), settings.current_walk);
}

}  // namespace

bool Navigator::Clock::New(double t, double* sample_time, bool* sampled) {
  const bool due = clock.Due(t);
  if (sampled) *sampled = due;
  if (due) {
    sensors::Reading stamp{};
    stamp[0] = t;
    clock.Push(t, stamp);
  }
  const sensors::Reading* delivered = clock.Deliver(t);
  if (!delivered || (*delivered)[0] == last) return false;
  last = (*delivered)[0];
  *sample_time = last;
  return true;
}

Navigator::Navigator(const mjModel* m, const mjData* d, int body, const NavigationSettings& settings,
                     const std::string& where, const std::string& model)
    : body_(body),
      free_dof_(FreeJointDof(m, body)),
      sensors_(CheckedSensors(FindNavigationSensors(m, body), settings, m, body, where, model)),
      settings_(settings),
      kf_(MakeFilter(m, sensors_, settings)) {
  if (free_dof_ < 0) {
    throw ConfigError(where + ": \"feedback\": \"estimate\": body '" + std::string(mj_id2name(m, mjOBJ_BODY, body)) +
                      "' has no free joint");
  }
  const int imu = sensors_.imu.site;
  C_bi_ = SiteRotationInBody(m, imu);
  r_bi_ = SitePositionInBody(m, imu);
  auto lever = [&](int site) { return Vec3(C_bi_.transpose() * (SitePositionInBody(m, site) - r_bi_)); };
  if (sensors_.dvl.present()) {
    r_dvl_ = lever(sensors_.dvl.site);
    C_dvl_ = C_bi_.transpose() * SiteRotationInBody(m, sensors_.dvl.site);
  }
  r_pressure_ = lever(sensors_.pressure.site);
  if (sensors_.acoustic.present()) r_acoustic_ = lever(sensors_.acoustic.site);
  auto clock = [](const NavigationSensors::Base& s) {
    return Clock{s.present() ? sensors::SampleClock(s.rate, s.latency) : sensors::SampleClock()};
  };
  imu_clock_ = clock(sensors_.imu);
  dvl_clock_ = clock(sensors_.dvl);
  pressure_clock_ = clock(sensors_.pressure);
  acoustic_clock_ = clock(sensors_.acoustic);
  // the filter starts at the truth, with the settings' uncertainty
  const nav::NavState x0 = TruthAtImu(d);
  kf_ = nav::ErrorStateKf(x0, kf_.covariance(), sensors_.imu.noise,
                          Vec3(m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]), settings_.current_walk);
  kf_.set_history_seconds(sensors_.acoustic.latency + 1.0);
  gravity_ = Vec3(m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]);
  last_time_ = d->time;
  MakeEstimate();
}

nav::NavState Navigator::TruthAtImu(const mjData* d) const {
  const int imu = sensors_.imu.site;
  nav::NavState x;
  x.time = d->time;
  x.p = Vec3(d->site_xpos[3 * imu], d->site_xpos[3 * imu + 1], d->site_xpos[3 * imu + 2]);
  const Mat3 R = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->site_xmat + 9 * imu);
  x.q = Eigen::Quaterniond(R).normalized();
  const mjtNum* qv = d->qvel + free_dof_;
  const Mat3 R_wb = BodyRotation(d, body_);
  const Vec3 w(qv[3], qv[4], qv[5]);
  x.v = Vec3(qv[0], qv[1], qv[2]) + R_wb * w.cross(r_bi_);
  return x;
}

void Navigator::Update(const mjModel* m, const mjData* d) {
  (void)m;
  // the readings in d were computed at the last step's start, last_time_ (the filter's time)
  const double ts = last_time_;
  const mjtNum* s = d->sensordata;
  double sample = 0;
  if (imu_clock_.New(ts, &sample)) {
    const mjtNum* r = s + sensors_.imu.adr;
    f_ = Vec3(r[0], r[1], r[2]);
    w_ = Vec3(r[3], r[4], r[5]);
    if (have_imu_) {
      const double var = sensors_.imu.heading_noise * sensors_.imu.heading_noise + 1e-12;
      kf_.UpdateHeading(r[6], var);
    }
    have_imu_ = true;
  }
  if (sensors_.dvl.present() && dvl_clock_.New(ts, &sample)) {
    const mjtNum* r = s + sensors_.dvl.adr;
    // The plugin solves the velocity from the beams' radial velocities by unweighted least
    // squares, v = (DᵀD)⁻¹Dᵀr, so its covariance is (DᵀD)⁻¹ (Σ σ_i² b_i b_iᵀ) (DᵀD)⁻¹ over
    // the beams it used, σ_i each beam's noise
    const NavigationSensors::Dvl& c = sensors_.dvl;
    const Vec3 v(r[0], r[1], r[2]);
    Mat3 DtD = Mat3::Zero(), DtSD = Mat3::Zero();
    auto add_beam = [&](const Vec3& b, double sd) {
      DtD += b * b.transpose();
      DtSD += sd * sd * b * b.transpose();
    };
    if (r[3] == 1.0) {  // bottom lock: the valid beams, each σ0 + k_v |radial| + k_r range
      for (size_t i = 0; i < c.beams.size(); ++i) {
        const double range = r[5 + i];
        if (range < 0) continue;
        add_beam(c.beams[i], c.velocity_noise + c.per_speed * std::abs(r[9 + i]) + c.per_range * range + 1e-6);
      }
      const Mat3 A = DtD.inverse();
      kf_.UpdateVelocity(v, C_dvl_, r_dvl_, w_, A * DtSD * A);
    } else if (r[3] == 2.0) {
      // water track: every beam through the water, each σ0 + k_v |radial| (the plugin's
      // water-track noise has no range term), the radial velocity read from the reading
      for (const Vec3& b : c.beams) add_beam(b, c.velocity_noise + c.per_speed * std::abs(b.dot(v)) + 1e-6);
      const Mat3 A = DtD.inverse();
      kf_.UpdateWaterVelocity(v, C_dvl_, r_dvl_, w_, A * DtSD * A);
    }
  }
  if (pressure_clock_.New(ts, &sample)) {
    const NavigationSensors::Pressure& c = sensors_.pressure;
    const double var = (c.noise * c.noise + c.resolution * c.resolution / 12) / (c.rho_g * c.rho_g) + 1e-12;
    kf_.UpdateDepth(s[c.adr + 1], r_pressure_, var);
  }
  if (sensors_.acoustic.present() && settings_.use_acoustic) {
    // a fix taken now: the pose error is cloned (after this instant's other updates), so
    // that the fix, delivered `latency` later, updates with its correlation to the
    // present error (nav::ErrorStateKf::ClonePose)
    bool sampled = false;
    const bool delivered = acoustic_clock_.New(ts, &sample, &sampled);
    if (sampled) kf_.ClonePose(ts);
    const mjtNum* r = s + sensors_.acoustic.adr;
    if (delivered && r[6] == 1.0) {
      const NavigationSensors::Acoustic& c = sensors_.acoustic;
      const Mat3 cov = nav::SphericalFixCovariance(r[3], r[4], r[5], c.range_noise, c.angle_noise) +
                       1e-12 * Mat3::Identity();
      kf_.UpdatePosition(Vec3(r[0], r[1], r[2]), r_acoustic_, cov, sample);
    } else if (delivered) {
      kf_.DropClone(sample);  // an invalid fix (lost): its clone goes
    }
  }
  if (have_imu_) kf_.Propagate(f_, w_, d->time - kf_.state().time);
  last_time_ = d->time;
  MakeEstimate();
}

BodyEstimate Navigator::BodyFromImu(const nav::NavState& x) const {
  BodyEstimate e;
  const Mat3 R_wi = x.q.toRotationMatrix();
  const Mat3 R_wb = R_wi * C_bi_.transpose();
  const Vec3 w_b = C_bi_ * (w_ - x.bg);
  e.quaternion = Eigen::Quaterniond(R_wb).normalized();
  e.position = x.p - R_wb * r_bi_;
  e.velocity = x.v - R_wb * w_b.cross(r_bi_);
  e.angular_velocity = w_b;
  return e;
}

double Navigator::Nees(const mjData* d) const {
  const nav::NavState t = TruthAtImu(d);
  const nav::NavState& x = kf_.state();
  const double h = d->time - x.time;
  return nav::Nees(h > 0 ? nav::PropagateNominal(x, f_, w_, h, gravity_) : x, kf_.covariance(), t.p, t.v, t.q);
}

std::vector<std::string> Navigator::EstColumns() {
  return {"est.px",     "est.py",     "est.pz",     "est.qw",     "est.qx",      "est.qy",      "est.qz",
          "est.vx",     "est.vy",     "est.vz",     "est.err_px", "est.err_py",  "est.err_pz",  "est.err_vx",
          "est.err_vy", "est.err_vz", "est.err_rx", "est.err_ry", "est.err_rz",  "est.sd_px",   "est.sd_py",
          "est.sd_pz",  "est.nees"};
}

void Navigator::EstRow(const mjData* d, std::vector<double>* row) const {
  const nav::NavState& x = kf_.state();
  const double h = d->time - x.time;
  const BodyEstimate e = h > 0 ? BodyFromImu(nav::PropagateNominal(x, f_, w_, h, gravity_)) : estimate_;
  const Eigen::Quaterniond& q = e.quaternion;
  const Vec3 p = BodyPosition(d, body_);
  const mjtNum* qv = d->qvel + free_dof_;
  const Vec3 v(qv[0], qv[1], qv[2]);
  const Eigen::Quaterniond q_true(BodyRotation(d, body_));
  const Vec3 dr = nav::LogQuat(q.conjugate() * q_true);  // truth = estimate ⊗ Exp(dr), body frame
  const nav::MatN& P = kf_.covariance();
  const double values[] = {e.position.x(), e.position.y(), e.position.z(), q.w(), q.x(), q.y(), q.z(),
                           e.velocity.x(), e.velocity.y(), e.velocity.z(),
                           e.position.x() - p.x(), e.position.y() - p.y(), e.position.z() - p.z(),
                           e.velocity.x() - v.x(), e.velocity.y() - v.y(), e.velocity.z() - v.z(),
                           dr.x(), dr.y(), dr.z(),
                           std::sqrt(P(0, 0)), std::sqrt(P(1, 1)), std::sqrt(P(2, 2)), Nees(d)};
  row->insert(row->end(), std::begin(values), std::end(values));
}

}  // namespace nereid
