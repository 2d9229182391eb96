// Copyright Nereid authors.
#include <algorithm>
#include <utility>

#include "nereid/current.h"
#include "nereid/error.h"

namespace nereid {
namespace {

void CheckKnots(CurrentField::Kind kind, const std::vector<double>& knots, size_t nvalues,
                const std::string& where, const char* unit) {
  if (knots.empty()) throw ConfigError(where + ": needs at least one knot");
  if (knots.size() != nvalues) {
    throw ConfigError(where + ": " + std::to_string(knots.size()) + " knots but " +
                      std::to_string(nvalues) + " velocities");
  }
  std::string rule;
  const long bad = CurrentField::BadKnot(kind, knots, &rule);
  if (bad < 0) return;
  const auto k = static_cast<size_t>(bad);
  const bool order = rule.rfind("knots", 0) == 0;  // the ordering rule: show both knots
  throw ConfigError(where + ": " + rule + (order ? std::string(" (") + unit + ")" : "") + ", got " +
                    (order ? std::to_string(knots[k - 1]) + " then " : "") + std::to_string(knots[k]));
}

// piecewise-linear interpolation with end values held; the slope is the right-hand one
// (at a knot, that of the segment that starts there; zero from the last knot on and
// before the first)
void Interpolate(const std::vector<double>& x, const std::vector<Vec3>& y, double at,
                 Vec3* value, Vec3* slope) {
  if (x.size() == 1 || at < x.front()) { *value = y.front(); slope->setZero(); return; }
  if (at >= x.back()) { *value = y.back(); slope->setZero(); return; }
  const size_t i = static_cast<size_t>(std::upper_bound(x.begin(), x.end(), at) - x.begin());
  const double h = x[i] - x[i - 1];
  *slope = (y[i] - y[i - 1]) / h;
  *value = y[i - 1] + (at - x[i - 1]) * *slope;
}

}  // namespace

long CurrentField::BadKnot(Kind kind, const std::vector<double>& knots, std::string* rule) {
  for (size_t i = 0; i < knots.size(); ++i) {
    if (kind == Kind::kDepth && !(knots[i] >= 0)) {
      *rule = "depths must be >= 0 (m below the surface)";
      return static_cast<long>(i);
    }
    if (i > 0 && !(knots[i] > knots[i - 1])) {
      *rule = "knots must be strictly increasing";
      return static_cast<long>(i);
    }
  }
  return -1;
}

CurrentField CurrentField::Constant(const Vec3& velocity) {
  CurrentField f;
  f.values_ = {velocity};
  return f;
}

CurrentField CurrentField::Profile(Kind kind, std::vector<double> knots,
                                   std::vector<Vec3> velocities, const std::string& where) {
  CheckKnots(kind, knots, velocities.size(), where, kind == Kind::kTime ? "s" : "m of depth");
  CurrentField f;
  f.kind_ = kind;
  f.knots_ = std::move(knots);
  f.values_ = std::move(velocities);
  return f;
}

CurrentField CurrentField::TimeProfile(std::vector<double> times, std::vector<Vec3> velocities,
                                       const std::string& where) {
  return Profile(Kind::kTime, std::move(times), std::move(velocities), where);
}

CurrentField CurrentField::DepthProfile(std::vector<double> depths, std::vector<Vec3> velocities,
                                        const std::string& where) {
  return Profile(Kind::kDepth, std::move(depths), std::move(velocities), where);
}

void CurrentField::SetConstant(const Vec3& velocity) {
  kind_ = Kind::kConstant;
  knots_.clear();
  values_.resize(1);
  values_.front() = velocity;
}

CurrentSample CurrentField::Evaluate(double time, double z_world) const {
  CurrentSample s;
  switch (kind_) {
    case Kind::kConstant:
      s.velocity = values_.front();
      break;
    case Kind::kTime:
      Interpolate(knots_, values_, time, &s.velocity, &s.d_dt);
      break;
    case Kind::kDepth: {
      Vec3 per_depth;
      Interpolate(knots_, values_, -z_world, &s.velocity, &per_depth);
      s.d_dz = -per_depth;  // depth = -z
      break;
    }
  }
  return s;
}

CurrentSample CurrentField::Evaluate(double time, const Vec3& p) const {
  CurrentSample s = Evaluate(time, p.z());
  if (waves_) {
    const waves::Kinematics w = waves_->At(p, time);
    s.velocity += w.velocity;
    s.d_dt += w.acceleration;
    s.d_dx = w.gradient;
    s.elevation = w.elevation;
  }
  return s;
}

Vec3 CurrentField::Velocity(double time, const Vec3& p) const {
  Vec3 velocity = Evaluate(time, p.z()).velocity;
  if (waves_) velocity += waves_->Velocity(p, time);
  return velocity;
}

void CurrentField::SetWaves(waves::WaveField waves) {
  if (waves.calm()) {
    waves_.reset();
  } else {
    waves_ = std::make_shared<const waves::WaveField>(std::move(waves));
  }
}

bool CurrentField::is_zero() const {
  return !waves_ &&
         std::all_of(values_.begin(), values_.end(), [](const Vec3& v) { return v.isZero(0); });
}

}  // namespace nereid
