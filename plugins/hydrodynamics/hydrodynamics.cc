// Copyright Nereid authors.
#include "hydrodynamics/hydrodynamics.h"

#include <atomic>
#include <cstdio>
#include <string>

#include "common/config_reader.h"
#include "common/plugin_base.h"
#include "current/current_plugin.h"
#include "nereid/error.h"
#include "nereid/fossen.h"
#include "nereid/kinematics.h"

namespace nereid {
namespace {

constexpr double kSymmetryTolerance = 1e-9;   // relative to the largest entry
constexpr double kDefinitenessTolerance = 1e-12;

std::string FormatNumber(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", x);
  return buffer;
}

void RequireNonNegative(const ConfigReader& config, const ConfigKey& key, const Vec6& values) {
  static const char* const kDof[] = {"surge", "sway", "heave", "roll", "pitch", "yaw"};
  for (int i = 0; i < 6; ++i) {
    if (values[i] < 0) {
      config.Fail(key, std::string("coefficient ") + std::to_string(i) + " (" + kDof[i] +
                           ") is negative (" + FormatNumber(values[i]) +
                           "); give positive magnitudes as in the SNAME tables");
    }
  }
}

std::atomic<bool> g_warned_stock = false;

}  // namespace

HydrodynamicsConfig HydrodynamicsConfig::FromModel(const mjModel* m, int instance) {
  namespace k = hydrodynamics_keys;
  ConfigReader config(m, instance, kHydrodynamicsPlugin);
  HydrodynamicsConfig c;
  c.name = PluginInstanceName(m, instance);
  c.body = config.Body(k::kBody);

  c.frame = config.Frame(k::kFrame);
  if (!ParseName(kStockFallbackNames, *config.Text(k::kStockFallback), &c.stock_fallback)) {
    config.Fail(k::kStockFallback, "expected " + NameChoices(kStockFallbackNames, '\''));
  }

  const Mat6 added_mass = *config.Matrix6(k::kAddedMass);
  const Mat6 linear = *config.Matrix6(k::kLinearDamping);
  const std::vector<double> quadratic = *config.Numbers(k::kQuadraticDamping, 6);
  const Vec3 reference = *config.Vector3(k::kReferencePoint);

  // added mass: symmetric and positive semi-definite (zero rows mean no added mass there)
  RequireNonNegative(config, k::kAddedMass, added_mass.diagonal());
  const double asymmetry = fossen::RelativeAsymmetry(added_mass);
  if (asymmetry > kSymmetryTolerance) {
    config.Fail(k::kAddedMass, "the 6x6 matrix is not symmetric (relative asymmetry " +
                                  FormatNumber(asymmetry) + ")");
  }
  const double scale = std::max(1.0, added_mass.cwiseAbs().maxCoeff());
  const double min_eig = fossen::MinSymmetricEigenvalue(added_mass);
  if (min_eig < -kDefinitenessTolerance * scale) {
    config.Fail(k::kAddedMass, "the 6x6 matrix is not positive semi-definite (smallest "
                              "eigenvalue " + FormatNumber(min_eig) + ")");
  }
  // damping: non-negative, and the linear part dissipative (symmetric part PSD)
  RequireNonNegative(config, k::kLinearDamping, linear.diagonal());
  const double linear_min = fossen::MinSymmetricEigenvalue(linear);
  if (linear_min < -kDefinitenessTolerance * std::max(1.0, linear.cwiseAbs().maxCoeff())) {
    config.Fail(k::kLinearDamping, "the 6x6 matrix is not dissipative: its symmetric part has "
                                  "eigenvalue " + FormatNumber(linear_min) + " < 0");
  }
  Vec6 d_q;
  for (int i = 0; i < 6; ++i) d_q[i] = quadratic[static_cast<size_t>(i)];
  RequireNonNegative(config, k::kQuadraticDamping, d_q);

  // the one conversion from SNAME notation to MuJoCo's body frame (nereid/frames.h)
  c.reference_point = ToMujoco(reference, c.frame);
  c.added_mass = fossen::ShiftToOrigin(ToMujoco(added_mass, c.frame), c.reference_point);
  c.added_mass = 0.5 * (c.added_mass + c.added_mass.transpose());
  c.linear_damping = ToMujoco(linear, c.frame);
  c.quadratic_damping = d_q;  // a diagonal is the same in FRD and FLU
  return c;
}

std::unique_ptr<Hydrodynamics> Hydrodynamics::Create(const mjModel* m, mjData*, int instance) {
  auto h = std::make_unique<Hydrodynamics>();
  h->config_ = HydrodynamicsConfig::FromModel(m, instance);
  h->base_ = h->config_;
  h->engine_owned_ = EngineScope::active();
  if (h->config_.has_added_mass() && !h->engine_owned_) {
    if (h->config_.stock_fallback == StockFallback::kRefuse) {
      throw ConfigError(std::string(kName) + " instance '" + h->config_.name + "': key '" +
                        hydrodynamics_keys::kStockFallback.name + "' = 'refuse': added mass needs Nereid's "
                        "engine (nereid::Simulation, `nereid run`), which puts M_A into the "
                        "mass matrix; plain MuJoCo cannot. Use stock_fallback=drop to run "
                        "without added mass.");
    }
    if (!g_warned_stock.exchange(true)) {
      mju_warning("%s: plain MuJoCo stepping; added mass (instance '%s' and any other) is "
                  "dropped with its Coriolis terms; damping, buoyancy and current still act. "
                  "Step with Nereid's engine for added mass.",
                  kName, h->config_.name.c_str());
    }
  }
  h->use_added_mass_ = h->config_.has_added_mass() && h->engine_owned_;
  h->current_instance_ = FindCurrentInstance(m);
  h->chain_ = BodyDofChain(m, h->config_.body);
  h->free_dof_ = FreeJointDof(m, h->config_.body);
  return h;
}

void Hydrodynamics::Compute(const mjModel* m, mjData* d, int) noexcept {
  const int b = config_.body;
  const Mat3 R = BodyRotation(d, b);
  const Vec3 p = BodyPosition(d, b);
  Vec6 nu;
  if (free_dof_ >= 0) {  // free joint: qvel = [world velocity of the origin; body rates]
    const mjtNum* qvel = d->qvel + free_dof_;
    nu << R.transpose() * Vec3(qvel[0], qvel[1], qvel[2]), qvel[3], qvel[4], qvel[5];
  } else {
    nu = BodyVelocity(m, d, b);
  }

  // velocity relative to the water
  Vec6 nu_r = nu;
  CurrentSample current;
  if (const std::optional<CurrentSample> water = CurrentPlugin::OnBody(d, current_instance_, b, p)) {
    current = *water;
    nu_r.head<3>() -= R.transpose() * current.velocity;
  }

  // damping at the reference point, moved to the origin
  if (config_.reference_point.isZero(0)) {
    last_damping_ = -fossen::Damping(config_.linear_damping, config_.quadratic_damping, nu_r);
  } else {
    const Mat6 H = fossen::Transport(config_.reference_point);
    last_damping_ = -H.transpose() *
                    fossen::Damping(config_.linear_damping, config_.quadratic_damping, H * nu_r);
  }

  last_coriolis_.setZero();
  if (use_added_mass_) {
    last_coriolis_ = -fossen::AddedMassCoriolis(config_.added_mass, nu_r);
    // M_A nudot_r = M_A (J qacc) + M_A (Jdot qvel - nudot_c); the engine holds the first
    // term in d->M, the second is applied here
    Vec6 bias;
    if (free_dof_ >= 0) {
      bias << -nu.tail<3>().cross(nu.head<3>()), Vec3::Zero();
    } else {
      bias = BodyBiasAcceleration(m, d, b, chain_);
    }
    if (!current.velocity.isZero(0) || !current.d_dt.isZero(0) || !current.d_dz.isZero(0) ||
        !current.d_dx.isZero(0)) {
      const Vec3 v_c = R.transpose() * current.velocity;
      const Vec3 x_rate = R * nu.head<3>();  // the rate of the water seen along the body's path
      bias.head<3>() -= -nu.tail<3>().cross(v_c) +
                        R.transpose() * (current.d_dt + current.d_dz * x_rate.z() + current.d_dx * x_rate);
    }
    last_coriolis_ -= config_.added_mass * bias;
  }

  const Vec6 tau = last_damping_ + last_coriolis_;
  ApplyWrench(m, d, b, free_dof_, R * tau.head<3>(), R * tau.tail<3>(), p, d->qfrc_passive);
}

void Hydrodynamics::Scale(double added_mass, double damping) {
  config_.added_mass = added_mass * base_.added_mass;
  config_.linear_damping = damping * base_.linear_damping;
  config_.quadratic_damping = damping * base_.quadratic_damping;
}

void ScaleHydrodynamics(mjData* d, int instance, double added_mass, double damping) {
  if (Hydrodynamics* h = PluginObject<Hydrodynamics>(d, instance)) h->Scale(added_mass, damping);
}

void ScaleHydrodynamics(const mjModel* m, mjData* d, double added_mass, double damping) {
  for (int instance : FindPluginInstances(m, kHydrodynamicsPlugin)) {
    ScaleHydrodynamics(d, instance, added_mass, damping);
  }
}

void Hydrodynamics::RegisterPlugin() { RegisterPassivePlugin<Hydrodynamics>(); }

}  // namespace nereid
