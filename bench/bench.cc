// Copyright Nereid authors.
#include "bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "nereid/error.h"
#include "nereid/rl.h"
#include "nereid/rollout.h"
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

// a steady push so that the vehicle moves and turns (damping and C_A are exercised), and
// thruster commands around 1600 us (the thrust maps are exercised where actuation is on)
void Push(Simulation& sim, int body) {
  mjtNum* f = sim.data()->xfrc_applied + 6 * body;
  f[0] = 20;
  f[1] = 5;
  f[2] = -3;
  f[5] = 0.5;
  for (int i = 0; i < sim.model()->nu; ++i) sim.data()->ctrl[i] = 1560 + 15 * i;
}

// N BlueROVs (models/bluerov parameters) side by side, 0.6 m apart, each welded to the
// next by a "uk:" weld
std::string UKChainXml(int n) {
  std::string ext, bodies, welds;
  for (int i = 0; i < n; ++i) {
    const std::string v = "rov" + std::to_string(i);
    ext += "<plugin plugin='nereid.hydrodynamics'><instance name='" + v + "_hydro'>"
           "<config key='body' value='" + v + "'/><config key='frame' value='frd'/>"
           "<config key='added_mass' value='2.6 18.5 13.3 0.054 0.0173 0.28'/>"
           "<config key='linear_damping' value='0 0.26 0.19 0.895 0.287 4.64'/>"
           "<config key='quadratic_damping' value='34.96 103.25 74.23 0.084 0.028 0.43'/>"
           "</instance></plugin><plugin plugin='nereid.buoyancy'><instance name='" + v +
           "_buoy'><config key='body' value='" + v + "'/><config key='frame' value='frd'/>"
           "<config key='volume' value='7.40e-3'/><config key='center_of_buoyancy' "
           "value='0 0 -0.02'/></instance></plugin>\n";
    bodies += "<body name='" + v + "' pos='0 " + std::to_string(0.6 * i) +
              " -3' simple='false'><freejoint/><inertial pos='0 0 0' mass='7.31' "
              "diaginertia='0.114 0.167 0.204'/><geom type='box' size='0.23 0.176 0.125' "
              "contype='0' conaffinity='0'/></body>\n";
    if (i > 0) {
      welds += "<weld name='uk:" + std::to_string(i) + "' body1='rov" + std::to_string(i - 1) +
               "' body2='" + v + "'/>";
    }
  }
  return "<mujoco><compiler inertiafromgeom='false'/><option timestep='0.005' "
         "integrator='RK4'/><extension>" + ext + "</extension><worldbody>" + bodies +
         "</worldbody><equality>" + welds + "</equality></mujoco>";
}

// The shipped tethered Heavy (models/bluerov2_heavy_tether) with `segments` segments and
// the given coordinates; maximal coordinates use MuJoCo's default Newton solver (the
// shipped model's PGS serves the chain's single connect). The include is made absolute so
// that the text loads from a string.
std::string TetherXml(const std::string& model_dir, int segments, const std::string& coordinates) {
  const std::filesystem::path dir = std::filesystem::path(model_dir) / "bluerov2_heavy_tether";
  std::ifstream file(dir / "bluerov2_heavy_tether.xml");
  std::string xml((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = xml.find(from);
    if (at == std::string::npos) throw ConfigError("bench: '" + from + "' not found in the tethered model");
    xml.replace(at, from.size(), to);
  };
  replace("file=\"../bluerov2_heavy/", "file=\"" + (dir / ".." / "bluerov2_heavy").string() + "/");
  replace("<config key=\"segments\" value=\"50\"/>",
          "<config key=\"segments\" value=\"" + std::to_string(segments) + "\"/><config key=\"coordinates\" value=\"" +
              coordinates + "\"/>");
  if (coordinates == "maximal") replace("<option solver=\"PGS\"/>", "");
  return xml;
}

// Environment steps and seconds, per thread, accumulated over slices of a measurement
struct Tally {
  std::vector<long> steps;
  std::vector<double> seconds;
  explicit Tally(int threads) : steps(static_cast<size_t>(threads), 0), seconds(static_cast<size_t>(threads), 0.0) {}
  // the sum of the threads' own rates: a thread whose core is busy for a while lowers it
  // by its share only
  double Rate() const {
    double rate = 0;
    for (size_t w = 0; w < steps.size(); ++w) rate += seconds[w] > 0 ? static_cast<double>(steps[w]) / seconds[w] : 0.0;
    return rate;
  }
  void Add(const Tally& other) {
    for (size_t w = 0; w < steps.size(); ++w) steps[w] += other.steps[w], seconds[w] += other.seconds[w];
  }
};

// The physics of a batch's environments without the task and without the pool, the
// bounds its env-steps/s are read against: `tally.steps.size()` threads (the calling one
// and std::threads) step, frame_skip physics steps per environment step, either the
// pool's slices of the batch's own simulations round robin (the same working set as the
// batch) or, with one_env, each the first simulation of its slice back to back (the
// working set of one simulation: hot caches), for about `seconds`. The simulations'
// states are put back afterwards, so that the batch's episodes go on as if this had not
// run (and the one simulation every 500 environment steps).
void StepBatchPhysics(rl::BatchEnv& env, bool one_env, double seconds, Tally* tally) {
  const int threads = static_cast<int>(tally->steps.size());
  const int n = env.num_envs(), frame_skip = env.spec().frame_skip;
  const mjModel* m = env.env(0).simulation().model();
  const int size = mj_stateSize(m, mjSTATE_INTEGRATION);
  std::vector<mjtNum> saved(static_cast<size_t>(n) * static_cast<size_t>(size));
  auto state = [&](int i) { return saved.data() + static_cast<size_t>(i) * static_cast<size_t>(size); };
  for (int i = 0; i < n; ++i) mj_getState(m, env.env(i).simulation().data(), state(i), mjSTATE_INTEGRATION);
  // the pool's slices as they are (the batch's working set per core); the even split when
  // one is empty (a thread that missed the last call), whose bound would count that thread
  // as stepping nothing
  std::vector<std::vector<int>> slices;
  for (int w = 0; w < threads; ++w) slices.push_back(env.SliceOf(w));
  if (std::any_of(slices.begin(), slices.end(), [](const std::vector<int>& s) { return s.empty(); })) {
    for (int w = 0; w < threads; ++w) {
      slices[static_cast<size_t>(w)].clear();
      for (int i = n * w / threads; i < n * (w + 1) / threads; ++i) slices[static_cast<size_t>(w)].push_back(i);
    }
  }
  auto work = [&](int w) {
    const std::vector<int>& slice = slices[static_cast<size_t>(w)];  // never empty (above)
    const size_t count = one_env ? 1 : slice.size();
    const auto start = std::chrono::steady_clock::now();
    const auto until = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double>(seconds));
    long steps = 0;
    auto now = start;
    while (now < until) {
      for (size_t j = 0; j < count; ++j) {
        Simulation& sim = env.env(slice[j]).simulation();
        for (int k = 0; k < frame_skip; ++k) sim.TryStep();
      }
      steps += static_cast<long>(count);
      // one simulation: back to its state every 500 environment steps (an episode of the
      // task), so that it does not drift for seconds under the same commands
      if (one_env && steps % 500 == 0) mj_setState(m, env.env(slice[0]).simulation().data(), state(slice[0]), mjSTATE_INTEGRATION);
      now = std::chrono::steady_clock::now();
    }
    tally->steps[static_cast<size_t>(w)] += steps;
    tally->seconds[static_cast<size_t>(w)] += std::chrono::duration<double>(now - start).count();
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < threads; ++w) pool.emplace_back(work, w);
  work(0);
  for (std::thread& t : pool) t.join();
  for (int i = 0; i < n; ++i) mj_setState(m, env.env(i).simulation().data(), state(i), mjSTATE_INTEGRATION);
}

// Back to keyframe 0 (the model's initial state without one), the runner's current set:
// where every sample starts
void Restart(Runner& r) {
  Simulation& sim = *r.sim;
  sim.Reset(sim.model()->nkey > 0 ? 0 : -1);
  sim.SetCurrent(r.current);
}

// Nanoseconds for `steps` of the runner's steps, each after the bench's push
double TimeSteps(Runner& r, long steps) {
  Simulation& sim = *r.sim;
  const int body = sim.model()->nbody > 1 ? 1 : 0;
  const auto start = std::chrono::steady_clock::now();
  for (long k = 0; k < steps; ++k) {
    Push(sim, body);
    r.step(sim);
  }
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
}

// numerator / denominator in paired blocks (BenchOptions::block_steps): both restart
// together and cover the same steps of the same motion, block by block in turn, the
// order swapped every block; the first round warms up
PairedRatio MeasurePaired(Runner& numerator, Runner& denominator, const BenchOptions& options) {
  const long block = std::clamp<long>(options.block_steps, 1, options.steps_per_sample);
  std::vector<double> ratios;
  for (int round = 0; round <= 2 * options.samples; ++round) {
    Restart(numerator);
    Restart(denominator);
    bool swap = false;
    for (long done = 0; done + block <= options.steps_per_sample; done += block, swap = !swap) {
      double a = 0, b = 0;
      if (swap) {
        b = TimeSteps(denominator, block);
        a = TimeSteps(numerator, block);
      } else {
        a = TimeSteps(numerator, block);
        b = TimeSteps(denominator, block);
      }
      if (round > 0 && b > 0) ratios.push_back(a / b);
    }
  }
  return {numerator.name, denominator.name, block, SpreadOf(ratios)};
}

}  // namespace

Spread SpreadOf(std::vector<double> values) {
  Spread s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  s.median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  auto quantile = [&](double q) {
    const double at = q * static_cast<double>(n - 1);
    const size_t below = static_cast<size_t>(at);
    const double frac = at - static_cast<double>(below);
    return below + 1 < n ? values[below] + frac * (values[below + 1] - values[below]) : values[below];
  };
  s.q1 = quantile(0.25);
  s.q3 = quantile(0.75);
  s.min = values.front();
  s.max = values.back();
  s.runs = static_cast<int>(n);
  return s;
}

const PairedRatio* BenchReport::FindPaired(const std::string& numerator, const std::string& denominator) const {
  for (const PairedRatio& p : paired) {
    if (p.numerator == numerator && p.denominator == denominator) return &p;
  }
  return nullptr;
}

const BenchCase* BenchReport::Find(const std::string& name) const {
  for (const BenchCase& c : cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

Spread BenchReport::RunRatio(const std::string& numerator, const std::string& denominator) const {
  const BenchCase* a = Find(numerator);
  const BenchCase* b = Find(denominator);
  if (!a || !b) return {};
  std::vector<double> ratios;
  for (size_t i = 0; i < a->runs.size() && i < b->runs.size(); ++i) {
    if (b->runs[i] > 0) ratios.push_back(a->runs[i] / b->runs[i]);
  }
  return SpreadOf(ratios);
}

double BenchReport::Ratio(const std::string& numerator, const std::string& denominator) const {
  const BenchCase* a = Find(numerator);
  const BenchCase* b = Find(denominator);
  return a && b && b->ns_per_step > 0 ? a->ns_per_step / b->ns_per_step : 0;
}

namespace {

// One object per case: its timing, and what the case measured besides (rates, latency
// percentiles, real-time factor, load time) when it did.
nlohmann::json CaseJson(const BenchCase& c) {
  nlohmann::json j = {{"name", c.name}, {"ns_per_step", c.ns_per_step},
                      {"ns_per_step_min", c.ns_min}, {"ns_per_step_max", c.ns_max},
                      {"steps_per_sample", c.steps_per_sample}, {"samples", c.samples}};
  if (c.env_steps_per_s > 0) {
    const Spread rate = SpreadOf(c.runs);
    j["env_steps_per_s"] = c.env_steps_per_s;
    j["env_steps_per_s_min"] = rate.min;
    j["env_steps_per_s_max"] = rate.max;
  }
  if (!c.runs.empty()) j["runs"] = c.runs;
  if (c.p99_ns > 0) j["p99_ns"] = c.p99_ns;
  if (c.fraction_of_period > 0) j["solve_time_median_fraction_of_period"] = c.fraction_of_period;
  if (c.realtime_factor > 0) j["realtime_factor"] = c.realtime_factor;
  if (c.load_s > 0) j["load_s"] = c.load_s;
  return j;
}

// The ratios of the Heavy's cases; one whose cases did not both run (`--only`) is left out.
nlohmann::json HeavyRatiosJson(const BenchReport& r) {
  nlohmann::json ratios = {{"nereid_no_thrusters/bare_mj_step",
                  r.Ratio("bluerov2_heavy/nereid_no_thrusters", "bluerov2_heavy/bare_mj_step")},
                 {"nereid_full/nereid_no_thrusters",
                  r.Ratio("bluerov2_heavy/nereid_full", "bluerov2_heavy/nereid_no_thrusters")},
                 {"nereid_full/nereid_no_actuators",
                  r.Ratio("bluerov2_heavy/nereid_full", "bluerov2_heavy/nereid_no_actuators")},
                 {"nereid_full/bare_mj_step",
                  r.Ratio("bluerov2_heavy/nereid_full", "bluerov2_heavy/bare_mj_step")},
                 {"stock_mj_step_plugins/bare_mj_step",
                  r.Ratio("bluerov2_heavy/stock_mj_step_plugins", "bluerov2_heavy/bare_mj_step")},
                 {"nereid_full/nereid_mujoco_motors",
                  r.Ratio("bluerov2_heavy/nereid_full", "bluerov2_heavy/nereid_mujoco_motors")},
                 {"nereid_mujoco_motors/nereid_no_thrusters",
                  r.Ratio("bluerov2_heavy/nereid_mujoco_motors", "bluerov2_heavy/nereid_no_thrusters")},
                 {"nereid_full_sensors/nereid_full",
                  r.Ratio("bluerov2_heavy/nereid_full_sensors", "bluerov2_heavy/nereid_full")},
                 {"stock_mj_step_sensors/stock_mj_step_plugins",
                  r.Ratio("bluerov2_heavy/stock_mj_step_sensors", "bluerov2_heavy/stock_mj_step_plugins")}};
  nlohmann::json measured = nlohmann::json::object();
  for (const auto& [name, value] : ratios.items()) {
    if (value.get<double>() > 0) measured[name] = value;
  }
  return measured;
}

// The figures read from samples taken side by side, into j: the sensor suite's paired
// ratios (median and range), the paired blocks, and the RL batch with sensor observations
// against state observations, run by run.
void AddPairedJson(const BenchReport& r, nlohmann::json* j) {
  const Spread suite = r.RunRatio("bluerov2_heavy/nereid_full_sensors", "bluerov2_heavy/nereid_full");
  if (suite.runs > 0) {
    (*j)["sensor_suite_paired"] = {{"median", suite.median}, {"min", suite.min}, {"max", suite.max},
                                   {"samples", suite.runs}};
  }
  for (const PairedRatio& p : r.paired) {
    (*j)["paired_blocks"].push_back({{"numerator", p.numerator}, {"denominator", p.denominator},
                                     {"block_steps", p.block_steps}, {"median", p.ratio.median},
                                     {"q1", p.ratio.q1}, {"q3", p.ratio.q3}, {"min", p.ratio.min},
                                     {"max", p.ratio.max}, {"pairs", p.ratio.runs}});
  }
  for (const char* threads : {"1", "2"}) {
    const std::string b = std::string("rl/BlueROV2StationKeeping-v0/batch256/threads") + threads;
    const Spread s = r.RunRatio(b + "/sensors", b);
    if (s.runs > 0) {
      (*j)["rl_sensors_over_state"][std::string("threads") + threads] = {
          {"median", s.median}, {"min", s.min}, {"max", s.max}, {"samples", s.runs}, {"target", 0.90}};
    }
  }
}

// Growth exponent of the UK / weld chain cases: least squares of log(ns) on log(N); empty
// when fewer than two sizes of either ran.
nlohmann::json UkChainFitJson(const BenchReport& r) {
  nlohmann::json fit = nlohmann::json::object();
  for (const char* method : {"uk", "weld"}) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int n : {2, 4, 8, 16, 32}) {
      for (const BenchCase& c : r.cases) {
        if (c.name != "uk_chain/" + std::to_string(n) + "/" + method || c.ns_per_step <= 0) continue;
        const double x = std::log(n), y = std::log(c.ns_per_step);
        sx += x; sy += y; sxx += x * x; sxy += x * y; ++k;
      }
    }
    if (k >= 2) fit[std::string(method) + "_exponent"] = (k * sxy - sx * sy) / (k * sxx - sx * sx);
  }
  if (!fit.empty()) fit["uk/weld_at_2"] = r.Ratio("uk_chain/2/uk", "uk_chain/2/weld");
  return fit;
}

// nereid.tether: the 50-segment Heavy against the Heavy alone (same engine, Euler), with the
// load times; null when the tether cases did not run.
nlohmann::json TetherJson(const BenchReport& r) {
  const double tether = r.Ratio("bluerov2_heavy_tether/nereid_full_50_segments", "bluerov2_heavy/nereid_full");
  if (!(tether > 0)) return nullptr;
  double heavy_ns = 0, tether_ns = 0, rk4_ns = 0, maximal_ns = 0;
  for (const BenchCase& c : r.cases) {
    if (c.name == "bluerov2_heavy/nereid_full") heavy_ns = c.ns_per_step;
    if (c.name == "bluerov2_heavy_tether/nereid_full_50_segments") tether_ns = c.ns_per_step;
    if (c.name == "bluerov2_heavy_tether/nereid_full_50_segments_rk4") rk4_ns = c.ns_per_step;
    if (c.name == "bluerov2_heavy_tether/nereid_full_50_segments_maximal") maximal_ns = c.ns_per_step;
  }
  nlohmann::json j = {{"segments", 50},
                      {"ns_per_segment_step", (tether_ns - heavy_ns) / 50},
                      {"ns_per_segment_step_maximal", maximal_ns > 0 ? (maximal_ns - heavy_ns) / 50 : 0.0},
                      {"tether50/nereid_full", tether},
                      {"realtime_factor_rk4_5ms", rk4_ns > 0 ? 5e6 / rk4_ns : 0.0}};
  nlohmann::json load = nlohmann::json::object();
  for (const BenchCase& c : r.cases) {
    if (c.load_s > 0) load[c.name.substr(std::string("tether_load/").size())] = c.load_s;
  }
  if (!load.empty()) j["load_s"] = load;
  return j;
}

}  // namespace

std::string BenchReport::ToJson() const {
  nlohmann::json j = {{"mujoco_version", mujoco_version}, {"cases", nlohmann::json::array()}};
  for (const BenchCase& c : cases) j["cases"].push_back(CaseJson(c));
  j["ratios"] = HeavyRatiosJson(*this);
  AddPairedJson(*this, &j);
  if (nlohmann::json fit = UkChainFitJson(*this); !fit.empty()) j["uk_chain_fit"] = fit;
  // waves: the Heavy in a 64-component sea against the Heavy alone, over samples taken side
  // by side (median and range of the paired ratios)
  if (const BenchCase* w = Find("bluerov2_heavy/nereid_full_waves64")) {
    if (const BenchCase* calm = Find("bluerov2_heavy/nereid_full"); calm && calm->ns_per_step > 0) {
      const Spread sea = RunRatio("bluerov2_heavy/nereid_full_waves64", "bluerov2_heavy/nereid_full");
      j["waves"] = {{"components", 64},
                    {"waves64/nereid_full", w->ns_per_step / calm->ns_per_step},
                    {"paired_median", sea.median},
                    {"min", sea.min},
                    {"max", sea.max},
                    {"samples", sea.runs},
                    {"target", 1.10}};
    }
  }
  if (nlohmann::json tether = TetherJson(*this); !tether.is_null()) j["tether"] = tether;
  return j.dump(2);
}

namespace {

void NereidStep(Simulation& s) { s.TryStep(); }
void MuJoCoStep(Simulation& s) { mj_step(s.model(), s.data()); }

// A case in a constant current, stepped by Nereid's engine (TryStep) or by plain mj_step.
Runner CurrentRunner(const std::string& name, std::unique_ptr<Simulation> sim, const Vec3& current,
                     void (*step)(Simulation&) = NereidStep) {
  Runner r{name, std::move(sim), {}, {}, {}};
  r.current = CurrentField::Constant(current);
  r.step = step;
  return r;
}

// The BlueROV2 Heavy's cases: bare mj_step, the plugins under mj_step, Nereid's engine
// without actuators, without thrusters, with everything, in a sea, with the sensor suite
// (under Nereid's engine and mj_step), and with MuJoCo motors for thrusters.
void AddHeavyRunners(const BenchOptions& options, std::vector<Runner>* runners) {
  const std::string heavy =
      (std::filesystem::path(options.model_dir) / "bluerov2_heavy" / "bluerov2_heavy.xml").string();
  const std::string sensors =
      (std::filesystem::path(options.model_dir) / "bluerov2_heavy" / "bluerov2_heavy_sensors.xml").string();
  const Vec3 current(0.3, 0.1, 0);
  SimulationOptions stock;
  stock.engine = Engine::kMuJoCo;
  {
    // same MJCF, plain mj_step, marine plugins off (passive forces and actuation disabled)
    Runner r{"bluerov2_heavy/bare_mj_step", Simulation::LoadFile(heavy, stock), {}, {}, {}};
    // the flags only around mj_step: the Simulation's own calls (Reset) refuse springs and
    // dampers both disabled on a model with marine plugins
    r.step = [](Simulation& s) {
      constexpr int kBare = mjDSBL_SPRING | mjDSBL_DAMPER | mjDSBL_ACTUATION;
      s.mutable_model()->opt.disableflags |= kBare;
      mj_step(s.model(), s.data());
      s.mutable_model()->opt.disableflags &= ~kBare;
    };
    runners->push_back(std::move(r));
  }
  // same MJCF, plain mj_step with Nereid's plugins (force terms, thrusters; no added mass)
  runners->push_back(CurrentRunner("bluerov2_heavy/stock_mj_step_plugins", Simulation::LoadFile(heavy, stock),
                                   current, MuJoCoStep));
  {
    // Nereid's engine, the same vehicle without its thruster actuators (and their MuJoCo
    // site transmissions): the reference for the thrusters' full cost
    SimulationOptions o;
    o.edit = [](mjSpec* spec) {
      while (mjsElement* a = mjs_firstElement(spec, mjOBJ_ACTUATOR)) mjs_delete(spec, a);
      for (mjsElement* k = mjs_firstElement(spec, mjOBJ_KEY); k; k = mjs_nextElement(spec, k)) {
        mjs_setDouble(mjs_asKey(k)->ctrl, nullptr, 0);
      }
    };
    runners->push_back(CurrentRunner("bluerov2_heavy/nereid_no_actuators", Simulation::LoadFile(heavy, o), current));
  }
  {
    // Nereid's engine: added mass in M, damping, C_A, buoyancy, current; thrusters off
    Runner r = CurrentRunner("bluerov2_heavy/nereid_no_thrusters", Simulation::LoadFile(heavy), current);
    r.sim->mutable_model()->opt.disableflags |= mjDSBL_ACTUATION;
    runners->push_back(std::move(r));
  }
  // Nereid's engine with everything, the 8 T200 thrusters included
  runners->push_back(CurrentRunner("bluerov2_heavy/nereid_full", Simulation::LoadFile(heavy), current));
  {
    // the same in an irregular sea of 64 components (JONSWAP, H_s 0.3 m, T_p 4 s, 20 m of
    // water): every body evaluates the waves (orbital velocity, acceleration, gradient)
    // in its hydrodynamics and buoyancy, every thruster for its inflow
    Runner r = CurrentRunner("bluerov2_heavy/nereid_full_waves64", Simulation::LoadFile(heavy), current);
    waves::SeaState sea;
    sea.significant_height = 0.3;
    sea.peak_period = 4;
    sea.components = 64;
    r.current.SetWaves(waves::WaveField::Irregular(sea, 20));
    runners->push_back(std::move(r));
  }
  // the same with the Heavy's sensor suite (bluerov2_heavy_sensors.xml: pressure, IMU,
  // DVL with 4 rays, acoustic fix at their default rates): the cost of sensing
  runners->push_back(CurrentRunner("bluerov2_heavy/nereid_full_sensors", Simulation::LoadFile(sensors), current));
  // the suite under plain mj_step: MuJoCo runs mj_rnePostConstraint for the IMU there
  runners->push_back(CurrentRunner("bluerov2_heavy/stock_mj_step_sensors", Simulation::LoadFile(sensors, stock),
                                   current, MuJoCoStep));
  {
    // the floor of any thruster that is a MuJoCo actuator on its site: the 8 thrusters
    // turned into MuJoCo's simplest actuator, a `motor` (force = ctrl, no plugin), on the
    // same sites and gears; ctrl is clamped to the T200's thrust range (N)
    SimulationOptions o;
    o.edit = [](mjSpec* spec) {
      for (mjsElement* e = mjs_firstElement(spec, mjOBJ_ACTUATOR); e; e = mjs_nextElement(spec, e)) {
        mjsActuator* a = mjs_asActuator(e);
        a->plugin.active = false;
        mjs_setToMotor(a);
        a->ctrllimited = mjLIMITED_TRUE;
        a->ctrlrange[0] = -40;
        a->ctrlrange[1] = 52;
      }
    };
    runners->push_back(CurrentRunner("bluerov2_heavy/nereid_mujoco_motors", Simulation::LoadFile(heavy, o), current));
  }
}

// UK rigid connections against MuJoCo's welds (src/uk): chains of N BlueROVs joined by
// "uk:" welds, the same MJCF run both ways (RK4, 5 ms); the growth exponent of each is
// fitted in ToJson ("uk_chain_fit")
void AddUkChainRunners(std::vector<Runner>* runners) {
  for (int n : {2, 4, 8, 16, 32}) {
    for (ConstraintMethod method : {ConstraintMethod::kUK, ConstraintMethod::kMuJoCo}) {
      SimulationOptions o;
      o.constraints = method;
      const std::string name = "uk_chain/" + std::to_string(n) + "/" +
                               (method == ConstraintMethod::kUK ? "uk" : "weld");
      Runner r{name, Simulation::LoadString(UKChainXml(n), o, name), {}, {}, {}};
      r.step = NereidStep;
      runners->push_back(std::move(r));
    }
  }
}

// nereid.tether (plugins/tether): the Heavy on a 30 m, 50-segment lumped tether
// (models/bluerov2_heavy_tether), with the model's Euler step and with the RK4 of
// scenarios/heavy_tether_station.json, and with maximal coordinates; the cost per segment
// is reported in ToJson
void AddTetherRunners(const BenchOptions& options, std::vector<Runner>* runners) {
  const std::string tethered = (std::filesystem::path(options.model_dir) /
                                "bluerov2_heavy_tether" / "bluerov2_heavy_tether.xml").string();
  if (!std::filesystem::exists(tethered)) return;
  const Vec3 current(0.5, 0, 0);
  for (bool rk4 : {false, true}) {
    SimulationOptions o;
    if (rk4) o.integrator = Integrator::kRK4;
    runners->push_back(CurrentRunner(std::string("bluerov2_heavy_tether/nereid_full_50_segments") + (rk4 ? "_rk4" : ""),
                                    Simulation::LoadFile(tethered, o), current));
  }
  // the same tether with maximal coordinates (Euler)
  runners->push_back(CurrentRunner("bluerov2_heavy_tether/nereid_full_50_segments_maximal",
                                  Simulation::LoadString(TetherXml(options.model_dir, 50, "maximal"), {}, "tether50_maximal"),
                                  current));
}

// --only TEXT: the cases whose name contains it; a sensor or sea case keeps its reference
void KeepOnly(const std::string& only, std::vector<Runner>* runners) {
  if (only.empty()) return;
  std::erase_if(*runners, [&](const Runner& r) {
    const bool sensors = only.find("sensors") != std::string::npos, sea = only.find("waves") != std::string::npos;
    const bool reference = ((sensors || sea) && r.name == "bluerov2_heavy/nereid_full") ||
                           (sensors && r.name == "bluerov2_heavy/stock_mj_step_plugins");
    return r.name.find(only) == std::string::npos && !reference;
  });
}

// The report of the timed runners: the ratios with a target or goal in paired blocks, and
// each case's spread.
BenchReport ReportOf(std::vector<Runner>& runners, const BenchOptions& options) {
  BenchReport report;
  auto runner = [&](const std::string& name) -> Runner* {
    for (Runner& r : runners) {
      if (r.name == name) return &r;
    }
    return nullptr;
  };
  for (const auto& [numerator, denominator] :
       {std::pair{"nereid_no_thrusters", "bare_mj_step"}, std::pair{"nereid_full", "nereid_no_thrusters"},
        std::pair{"nereid_full_sensors", "nereid_full"}, std::pair{"nereid_full_waves64", "nereid_full"}}) {
    Runner* a = runner(std::string("bluerov2_heavy/") + numerator);
    Runner* b = runner(std::string("bluerov2_heavy/") + denominator);
    if (a && b) report.paired.push_back(MeasurePaired(*a, *b, options));
  }
  report.mujoco_version = mj_versionString();
  for (Runner& r : runners) {
    const Spread s = SpreadOf(r.samples);
    BenchCase c;
    c.name = r.name;
    c.samples = s.runs;
    c.steps_per_sample = options.steps_per_sample;
    c.ns_per_step = s.median;
    c.ns_min = s.min;
    c.ns_max = s.max;
    // the sensor suite, the sea and their references keep every sample (RunRatio pairs them)
    if (r.name.find("sensors") != std::string::npos || r.name == "bluerov2_heavy/nereid_full" ||
        r.name == "bluerov2_heavy/nereid_full_waves64" ||
        r.name == "bluerov2_heavy/stock_mj_step_plugins") {
      c.runs = r.samples;
    }
    report.cases.push_back(c);
  }
  return report;
}

}  // namespace

BenchReport RunBenchmarks(const BenchOptions& options) {
  std::vector<Runner> runners;
  AddHeavyRunners(options, &runners);
  AddUkChainRunners(&runners);
  AddTetherRunners(options, &runners);
  KeepOnly(options.only, &runners);
  for (int sample = 0; sample < options.samples + 1; ++sample) {  // sample 0 warms up
    for (Runner& r : runners) {
      Restart(r);
      const double ns = TimeSteps(r, options.steps_per_sample);
      if (sample > 0) r.samples.push_back(ns / static_cast<double>(options.steps_per_sample));
    }
  }
  return ReportOf(runners, options);
}

void RunTetherLoadBenchmarks(const BenchOptions& options, BenchReport* report) {
  const std::string tethered = (std::filesystem::path(options.model_dir) /
                                "bluerov2_heavy_tether" / "bluerov2_heavy_tether.xml").string();
  if (!std::filesystem::exists(tethered)) return;
  struct Load { const char* coordinates; int segments; };
  // the chain at 1000 would take about a minute (its load grows with segments^3)
  for (const Load& load : {Load{"reduced", 50}, Load{"reduced", 200}, Load{"maximal", 50},
                           Load{"maximal", 200}, Load{"maximal", 1000}}) {
    const std::string xml = TetherXml(options.model_dir, load.segments, load.coordinates);
    double best = 1e300;
    for (int run = 0; run < 3; ++run) {
      const auto start = std::chrono::steady_clock::now();
      auto sim = Simulation::LoadString(xml, {}, "tether");
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    BenchCase c;
    c.name = std::string("tether_load/") + load.coordinates + "/" + std::to_string(load.segments);
    c.load_s = best;
    c.samples = 3;
    report->cases.push_back(c);
  }
}

namespace {

struct RlCase {
  std::unique_ptr<rl::BatchEnv> env;
  std::vector<float> actions;
  long steps = 0;  // batch steps per run
  BenchCase result;
};

// Station keeping at batch 1, 16 and 256 on 1 and 2 threads with state observations, and
// batch 256 with sensor observations (the Heavy's sensor suite, docs/rl.md): its rate
// against the state batch's, run by run (".../batch256/threads<T>/sensors").
std::vector<RlCase> RlCases(const BenchOptions& options, const std::string& task) {
  std::vector<RlCase> cases;
  auto add = [&](int batch, int threads, rl::Observation observation) {
    RlCase c;
    c.env = std::make_unique<rl::BatchEnv>(task, batch, threads, options.model_dir, observation);
    c.env->Reset(1);
    c.actions.resize(static_cast<size_t>(batch * c.env->action_size()));
    for (size_t i = 0; i < c.actions.size(); ++i) c.actions[i] = 0.3f * static_cast<float>(i % 7) / 7.f - 0.1f;
    c.steps = std::max<long>(20, options.rl_env_steps / batch);
    for (int k = 0; k < 10; ++k) c.env->Step(c.actions.data());  // warm up
    c.result.name = "rl/" + task + "/batch" + std::to_string(batch) + "/threads" + std::to_string(threads) +
                    (observation == rl::Observation::kSensors ? "/sensors" : "");
    cases.push_back(std::move(c));
  };
  for (int batch : {1, 16, 256}) {
    for (int threads : {1, 2}) add(batch, threads, rl::Observation::kState);
  }
  for (int threads : {1, 2}) add(256, threads, rl::Observation::kSensors);
  return cases;
}

// A sensor batch's state batch of the same size and threads (nullptr for any other case).
RlCase* StatePartner(std::vector<RlCase>& cases, const RlCase& c) {
  if (!c.env || c.env->env(0).observation() != rl::Observation::kSensors) return nullptr;
  for (RlCase& s : cases) {
    if (s.env && s.env->num_envs() == c.env->num_envs() && s.env->num_threads() == c.env->num_threads() &&
        s.env->env(0).observation() == rl::Observation::kState) {
      return &s;
    }
  }
  return nullptr;
}

double TimeBatchSteps(RlCase& c, long steps) {
  const auto start = std::chrono::steady_clock::now();
  for (long k = 0; k < steps; ++k) c.env->Step(c.actions.data());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The largest batch's physics bounds, measured in every run with the batch: cases
// ".../physics_same_envs" (the batch's own simulations) and ".../physics_one_env" (one
// simulation per thread). A shared host's core speed drifts within a second, so the batch
// and its bounds are measured in kSlices slices taken in turn, and each figure sums its
// slices: the fractions compare the same moments.
constexpr int kSlices = 8;

// What the runs of the RL cases collect besides each case's rates.
struct RlMeasures {
  double bound_seconds = 0;      // the bounds' time per run
  std::vector<BenchCase> bounds;  // ".../physics_same_envs", ".../physics_one_env"
  // Each slice's batch against its same-envs bound, slice by slice: the ratio of their
  // rates (one per slice, the two measured back to back, the order swapped every slice),
  // whose median a burst of the host's stolen time moves by one pair at most (the runs'
  // sums take it whole); report.paired, JSON "paired_blocks" (docs/rl.md "Throughput").
  // And the sensor batches against the state batch of the same threads, slice by slice in
  // the same way (the state batch stepped beside each slice, outside its own timing): the
  // sensor observations' cost, read from the median of the slices' ratios.
  std::map<std::string, std::vector<double>> slice_ratios;
};

// One run of case c: its rate, and with it its bounds or its state partner's slices.
void RunRlCase(RlCase& c, RlCase* partner, RlMeasures* measures) {
  const bool with_bounds = c.env->num_envs() == 256 && c.env->env(0).observation() == rl::Observation::kState;
  const int slices = with_bounds || partner ? kSlices : 1;
  const double bound_seconds = measures->bound_seconds;
  std::vector<double>& ratios = measures->slice_ratios[c.result.name];
  double seconds = 0;
  Tally same(c.env->num_threads()), one(c.env->num_threads());
  for (int slice = 0; slice < slices; ++slice) {
    const long steps = c.steps * (slice + 1) / slices - c.steps * slice / slices;
    Tally same_slice(c.env->num_threads());
    const bool bound_first = slice % 2 == 1;
    if (with_bounds && bound_first) StepBatchPhysics(*c.env, false, bound_seconds / slices, &same_slice);
    const double partner_before = partner && bound_first ? TimeBatchSteps(*partner, steps) : 0;
    const double slice_seconds = TimeBatchSteps(c, steps);
    seconds += slice_seconds;
    if (partner) {
      const double partner_seconds = bound_first ? partner_before : TimeBatchSteps(*partner, steps);
      // rates' ratio: (steps / slice_seconds) / (steps / partner_seconds)
      if (slice_seconds > 0 && partner_seconds > 0) ratios.push_back(partner_seconds / slice_seconds);
    }
    if (!with_bounds) continue;
    if (!bound_first) StepBatchPhysics(*c.env, false, bound_seconds / slices, &same_slice);
    StepBatchPhysics(*c.env, true, bound_seconds / slices, &one);
    same.Add(same_slice);
    if (slice_seconds > 0 && same_slice.Rate() > 0) {
      ratios.push_back(static_cast<double>(steps * c.env->num_envs()) / slice_seconds / same_slice.Rate());
    }
  }
  if (ratios.empty()) measures->slice_ratios.erase(c.result.name);
  c.result.runs.push_back(static_cast<double>(c.steps * c.env->num_envs()) / seconds);
  if (!with_bounds) return;
  std::vector<BenchCase>& bounds = measures->bounds;
  for (const auto& [suffix, tally] : {std::pair{"/physics_same_envs", &same}, std::pair{"/physics_one_env", &one}}) {
    const std::string name = c.result.name + suffix;
    auto b = std::find_if(bounds.begin(), bounds.end(), [&](const BenchCase& x) { return x.name == name; });
    if (b == bounds.end()) {
      bounds.emplace_back();
      bounds.back().name = name;
      b = bounds.end() - 1;
    }
    b->runs.push_back(tally->Rate());
  }
}

// nereid::Rollout (nereid.rollout in Python): 16 rollouts of 200 Heavy steps from the
// keyframe with fixed thruster commands, 1 and 2 threads; ns per physics step over all
// rollouts, beside bluerov2_heavy/nereid_full (one Simulation stepped alone)
void RunRolloutBenchmarks(const BenchOptions& options, int runs, BenchReport* report) {
  const std::string heavy = (std::filesystem::path(options.model_dir) / "bluerov2_heavy" / "bluerov2_heavy.xml").string();
  mjModel* m = Simulation::CompileFile(heavy);
  auto sim = Simulation::LoadFile(heavy);
  sim->Reset(sim->model()->nkey > 0 ? 0 : -1);
  const RolloutSizes n = RolloutSizesOf(m);
  constexpr long kRollouts = 16, kSteps = 200;
  std::vector<mjtNum> init(static_cast<size_t>(kRollouts * n.nstate));
  for (long r = 0; r < kRollouts; ++r) mj_getState(sim->model(), sim->data(), init.data() + r * n.nstate, kRolloutState);
  std::vector<mjtNum> ctrl(static_cast<size_t>(kRollouts * kSteps * n.nu));
  for (size_t i = 0; i < ctrl.size(); ++i) {
    const int a = static_cast<int>(i % static_cast<size_t>(n.nu));
    ctrl[i] = m->actuator_ctrlrange[2 * a] + (0.3 + 0.05 * (a % 5)) * (m->actuator_ctrlrange[2 * a + 1] - m->actuator_ctrlrange[2 * a]);
  }
  std::vector<mjtNum> state(static_cast<size_t>(kRollouts * kSteps * n.nstate));
  std::vector<mjtNum> sensors(static_cast<size_t>(kRollouts * kSteps * n.nsensordata));
  BenchCase rollout[2];
  for (int run = 0; run <= runs; ++run) {  // run 0 warms up; the 1- and 2-thread runs interleaved
    for (int threads : {1, 2}) {
      const auto start = std::chrono::steady_clock::now();
      Rollout(m, kRollouts, kSteps, init.data(), ctrl.data(), state.data(), sensors.data(), threads);
      const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
      if (run > 0) rollout[threads - 1].runs.push_back(ns / static_cast<double>(kRollouts * kSteps));
    }
  }
  for (int threads : {1, 2}) {
    BenchCase& c = rollout[threads - 1];
    const Spread ns = SpreadOf(c.runs);
    c.name = "rollout/bluerov2_heavy/16x200/threads" + std::to_string(threads);
    c.ns_per_step = ns.median;
    c.ns_min = ns.min;
    c.ns_max = ns.max;
    c.steps_per_sample = kRollouts * kSteps;
    c.samples = runs;
    report->cases.push_back(c);
  }
  mj_deleteModel(m);
}

}  // namespace

void RunRlBenchmarks(const BenchOptions& options, BenchReport* report) {
  const int runs = std::max(1, options.rl_runs);
  std::vector<RlCase> rl_cases = RlCases(options, "BlueROV2StationKeeping-v0");
  RlMeasures measures;
  measures.bound_seconds = std::max(0.02, 0.15 * static_cast<double>(options.rl_env_steps) / 24000.0);
  // the cases interleaved in each run: a busy moment of the machine touches every case
  for (int run = 0; run < runs; ++run) {
    for (RlCase& c : rl_cases) RunRlCase(c, StatePartner(rl_cases, c), &measures);
  }
  for (BenchCase& b : measures.bounds) rl_cases.push_back({nullptr, {}, 0, b});
  for (const RlCase& c : rl_cases) {
    const auto ratios = measures.slice_ratios.find(c.result.name);
    if (ratios == measures.slice_ratios.end()) continue;
    // block_steps: the batch steps per slice, rounded (the slices take the run's steps in
    // 8 nearly equal parts)
    const RlCase* partner = StatePartner(rl_cases, c);
    report->paired.push_back({c.result.name, partner ? partner->result.name : c.result.name + "/physics_same_envs",
                              (c.steps + kSlices / 2) / kSlices, SpreadOf(ratios->second)});
  }
  for (RlCase& c : rl_cases) {
    const Spread rate = SpreadOf(c.result.runs);
    c.result.env_steps_per_s = rate.median;
    c.result.ns_per_step = 1e9 / rate.median;  // per environment step (frame_skip physics steps each)
    c.result.ns_min = 1e9 / rate.max;
    c.result.ns_max = 1e9 / rate.min;
    c.result.steps_per_sample = c.env ? c.steps * c.env->num_envs() : 0;
    c.result.samples = runs;
    report->cases.push_back(c.result);
  }
  RunRolloutBenchmarks(options, runs, report);
}

}  // namespace nereid
