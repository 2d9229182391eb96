// Copyright Nereid authors.
#include "bench.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>

#include <nlohmann/json.hpp>

#include "nereid/simulation.h"

namespace nereid {
namespace {

struct Runner {
  std::string name;
  std::unique_ptr<Simulation> sim;
  std::function<void(Simulation&)> step;
  std::vector<double> samples;
  CurrentField current;  // set after every reset
};

// a steady push so that the vehicle moves and turns (damping and C_A are exercised)
void Push(Simulation& sim, int body) {
  mjtNum* f = sim.data()->xfrc_applied + 6 * body;
  f[0] = 20;
  f[1] = 5;
  f[2] = -3;
  f[5] = 0.5;
}

}  // namespace

double BenchReport::Ratio(const std::string& numerator, const std::string& denominator) const {
  double a = 0, b = 0;
  for (const BenchCase& c : cases) {
    if (c.name == numerator) a = c.ns_per_step;
    if (c.name == denominator) b = c.ns_per_step;
  }
  return b > 0 ? a / b : 0;
}

std::string BenchReport::ToJson() const {
  nlohmann::json j = {{"mujoco_version", mujoco_version}, {"cases", nlohmann::json::array()}};
  for (const BenchCase& c : cases) {
    j["cases"].push_back({{"name", c.name}, {"ns_per_step", c.ns_per_step},
                          {"ns_per_step_min", c.ns_min}, {"ns_per_step_max", c.ns_max},
                          {"steps_per_sample", c.steps_per_sample}, {"samples", c.samples}});
  }
  j["ratios"] = {{"nereid_full/bare_mj_step",
                  Ratio("bluerov2_heavy/nereid_full", "bluerov2_heavy/bare_mj_step")},
                 {"stock_mj_step_plugins/bare_mj_step",
                  Ratio("bluerov2_heavy/stock_mj_step_plugins", "bluerov2_heavy/bare_mj_step")}};
  return j.dump(2);
}

BenchReport RunBenchmarks(const BenchOptions& options) {
  const std::string heavy =
      (std::filesystem::path(options.model_dir) / "bluerov2_heavy" / "bluerov2_heavy.xml").string();
  std::vector<Runner> runners;
  {
    // same MJCF, plain mj_step, marine plugins off (all passive forces disabled)
    SimulationOptions o;
    o.engine = Engine::kMuJoCo;
    Runner r{"bluerov2_heavy/bare_mj_step", Simulation::LoadFile(heavy, o), {}, {}, {}};
    r.sim->mutable_model()->opt.disableflags |= mjDSBL_SPRING | mjDSBL_DAMPER;
    r.step = [](Simulation& s) { mj_step(s.model(), s.data()); };
    runners.push_back(std::move(r));
  }
  {
    // same MJCF, plain mj_step with Nereid's plugins (force terms; no added mass)
    SimulationOptions o;
    o.engine = Engine::kMuJoCo;
    Runner r{"bluerov2_heavy/stock_mj_step_plugins", Simulation::LoadFile(heavy, o), {}, {}, {}};
    r.current = CurrentField::Constant(Vec3(0.3, 0.1, 0));
    r.step = [](Simulation& s) { mj_step(s.model(), s.data()); };
    runners.push_back(std::move(r));
  }
  {
    // Nereid's engine: added mass in M, damping, C_A, buoyancy, current
    Runner r{"bluerov2_heavy/nereid_full", Simulation::LoadFile(heavy), {}, {}, {}};
    r.current = CurrentField::Constant(Vec3(0.3, 0.1, 0));
    r.step = [](Simulation& s) { s.TryStep(); };
    runners.push_back(std::move(r));
  }

  for (int sample = 0; sample < options.samples + 1; ++sample) {  // sample 0 warms up
    for (Runner& r : runners) {
      Simulation& sim = *r.sim;
      sim.Reset(sim.model()->nkey > 0 ? 0 : -1);
      sim.SetCurrent(r.current);
      const int body = sim.model()->nbody > 1 ? 1 : 0;
      const auto start = std::chrono::steady_clock::now();
      for (long k = 0; k < options.steps_per_sample; ++k) {
        Push(sim, body);
        r.step(sim);
      }
      const double ns = std::chrono::duration<double, std::nano>(
                            std::chrono::steady_clock::now() - start).count();
      if (sample > 0) r.samples.push_back(ns / static_cast<double>(options.steps_per_sample));
    }
  }

  BenchReport report;
  report.mujoco_version = mj_versionString();
  for (Runner& r : runners) {
    std::vector<double> s = r.samples;
    std::sort(s.begin(), s.end());
    BenchCase c;
    c.name = r.name;
    c.samples = static_cast<int>(s.size());
    c.steps_per_sample = options.steps_per_sample;
    c.ns_per_step = s.empty() ? 0 : (s.size() % 2 ? s[s.size() / 2]
                                                   : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]));
    c.ns_min = s.empty() ? 0 : s.front();
    c.ns_max = s.empty() ? 0 : s.back();
    report.cases.push_back(c);
  }
  return report;
}

}  // namespace nereid
