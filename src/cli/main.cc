// Copyright Nereid authors.
// The `nereid` command line: run, bench, info, crosscheck, validate, baselines, coefficients, identify, replay, ros, version. Exit status: 0 success, 1 bad input
// (the message names the file, element/path, key and value), 2 usage, 3 diverged state.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "bench.h"
#include "cli/baselines.h"
#include "cli/coefficients.h"
#include "cli/crosscheck.h"
#include "cli/arguments.h"
#include "cli/identify.h"
#include "cli/info.h"
#include "cli/output_path.h"
#include "cli/python.h"
#include "nereid/error.h"
#include "nereid/mpc.h"
#include "nereid/output.h"
#include "nereid/paths.h"
#include "nereid/rl.h"
#include "nereid/runner.h"
#include "nereid/scenario.h"

namespace {

constexpr char kUsage[] =
    "usage:\n"
    "  nereid run MODEL.xml|SCENARIO.json [--duration S] [--dt H]\n"
    "             [--integrator euler|rk4|implicitfast] [--engine nereid|mujoco]\n"
    "             [--constraints mujoco|uk] [--out DIR] [--record-every N] [--max-output-mb MB]\n"
    "             [--exact-sensors]\n"
    "      Steps the model headless from keyframe 0 (or the scenario's initial state) and\n"
    "      writes DIR/trajectory.csv and DIR/summary.json (DIR defaults to results); refuses a\n"
    "      run whose output could exceed MB (default 1000). --exact-sensors: every Nereid\n"
    "      sensor reads without noise, bias or dropout (as NEREID_EXACT_SENSORS=1).\n"
    "  nereid bench [--out FILE.json] [--models DIR] [--steps N] [--samples N] [--block-steps N] [--no-rl] [--no-mpc]\n"
    "               [--rl-steps N] [--only TEXT]\n"
    "      Median ns per step of Nereid's engine and plain mj_step on the same model; --only runs\n"
    "      only the per-step cases whose name contains TEXT (\"sensors\": the suite's cost,\n"
    "      \"waves\": a 64-component sea's, each with its reference; \"rl\": the RL batch and\n"
    "      rollout cases alone); the cost ratios are also measured in paired blocks of\n"
    "      --block-steps steps (default 50).\n"
    "  nereid info MODEL.xml\n"
    "      Vehicles, marine plugins, thrusters and the thrust allocation matrix.\n"
    "  nereid crosscheck SCENARIO.json [--out DIR] [--no-plots]\n"
    "      Runs a multi-vehicle scenario with UK constraints, MuJoCo welds and as one merged\n"
    "      body; writes DIR/report.json, CSVs and PNG plots (docs/crosscheck.md).\n"
    "  nereid validate [--out DIR] [--work DIR] [--quick [--reference FIGURES.json]]\n"
    "      Re-runs every seed case and writes DIR/validation.md with its plots (DIR defaults\n"
    "      to the source tree's docs; runs in --work, default results/validation). Needs\n"
    "      python3 with numpy, matplotlib and dtaidistance (PYTHON overrides the interpreter).\n"
    "  nereid baselines TASK [--episodes N] [--seed S] [--out FILE.json] [--no-mpc]\n"
    "                   [--mpc-period S] [--mpc-horizon N] [--mpc-prediction seed|full]\n"
    "                   [--mpc-velocity-limit V]\n"
    "      Scores zero thrust, random actions, the scripted PID and the MPC on the same\n"
    "      episodes of an RL task (episode k: seed S + k, default 10000); the MPC's settings\n"
    "      default to the task's (docs/rl.md, \"Baselines\").\n"
    "  nereid coefficients MESH.stl|MESH.obj|MODEL.xml [--body NAME] [--ref x,y,z|cb|cg|origin]\n"
    "                      [--rho R] [--out FILE.json] [--write-model FILE.xml] [--units m|cm|mm]\n"
    "                      [--scale S] [--frame flu|frd] [--max-panels N] [--submergence D]\n"
    "                      [--damping keep|guess] [--mass KG] [--cg-drop M]\n"
    "      Added mass (6x6, SNAME order, boundary elements with Capytaine, three refinements),\n"
    "      volume, centre of buoyancy and a first quadratic-drag guess from a mesh or an MJCF\n"
    "      body's geoms; --write-model puts them in a model (docs/own_vehicle.md).\n"
    "  nereid identify tow RUNS... [--dof surge|sway|heave|roll|pitch|yaw] [--exclude RANGE]\n"
    "                  [--stationary T0:T1] [--quadratic-only] [--scale LAMBDA] [--added-mass MASSES]\n"
    "                  [--density-ratio R] [--out FILE.json] [--plot FILE.png] [--model MODEL.xml]\n"
    "                  [--write-model FILE.xml]\n"
    "      Damping from tow-test runs (files or folders; docs/logs.md): stationary segments,\n"
    "      fusion and the fit f = c1|u|u + c2 u with 95 % intervals (seed 000 4.1). RANGE is\n"
    "      [DOF=]LO:HI or [DOF=]SPEED; MASSES six added masses for seed 000's extrapolation.\n"
    "  nereid identify rig --dof surge|sway|heave|roll|pitch|yaw --speeds SPEEDS --out DIR\n"
    "                  [--model MODEL.xml] [--runs N] [--noise SIGMA] [--bias B] [--seed N] [--hold S]\n"
    "                  [--damping C1C2]\n"
    "      Simulated tow tests: writes tow runs of the model towed through a carriage.\n"
    "  nereid identify free LOG.csv --model MODEL.xml [--dofs DOFS] [--initial-velocity kf|zero]\n"
    "                  [--added-mass] [--time-offset DT] [--max-evaluations N] [--body NAME]\n"
    "                  [--out FILE.json] [--write-model FILE.xml]\n"
    "      Damping from a free-running trial log by an output-error fit (docs/own_vehicle.md).\n"
    "  nereid replay LOG.csv --model MODEL.xml|SCENARIO.json [--out DIR] [--body NAME] [--max-offset S]\n"
    "                [--kf-q Q] [--kf-r R] [--initial-velocity kf|zero] [--no-plots]\n"
    "      Drives the model with a trial log's commands and compares with its poses: time\n"
    "      offset, RMSE and DTW of position and velocity; DIR/replay.json and replay.png.\n"
    "  nereid ros MODEL.xml|SCENARIO.json [--rate HZ] [--mode realtime|fast|lockstep] [--lockstep]\n"
    "             [--speed X] [--namespace NS] [--vehicle NAME] [--duration S] [--constraints mujoco|uk]\n"
    "             [--mcap FILE.mcap]\n"
    "      ROS 2 bridge (pip wheels: requirements-ros.txt): publishes /clock, ENU/FLU odometry,\n"
    "      thruster, joint and sensor topics per vehicle; takes thruster, wrench and joint\n"
    "      commands; lock-step, pause, step, reset; MCAP recording (docs/ros.md).\n"
    "  nereid schema [--out FILE.json]\n"
    "      The JSON Schema of scenario files (draft-07), generated from the key tables: on\n"
    "      stdout, or into FILE (docs/scenario.schema.json is this output).\n"
    "  nereid version\n";

using nereid::cli::Usage;
namespace fs = std::filesystem;

// The options `nereid run` and `nereid-view` share: the model or scenario and how it is stepped.
int Run(const std::vector<std::string>& args) {
  nereid::RunOptions options;
  nereid::cli::Parser parser("run");
  CLI::App& app = parser.app();
  nereid::cli::AddInput(app, &options.input, "input");
  app.add_option_function<double>("--duration", [&](const double& x) { options.duration = x; });
  app.add_option_function<double>("--dt", [&](const double& x) { options.dt = x; });
  nereid::cli::AddChoice<nereid::Integrator>(app, "--integrator", nereid::kIntegratorNames,
                                             [&](const nereid::Integrator& x) { options.integrator = x; });
  nereid::cli::AddChoice<nereid::Engine>(app, "--engine", nereid::kEngineNames,
                                         [&](const nereid::Engine& x) { options.engine = x; });
  nereid::cli::AddChoice<nereid::ConstraintMethod>(app, "--constraints", nereid::kConstraintMethodNames,
                                                   [&](const nereid::ConstraintMethod& x) { options.constraints = x; });
  app.add_option("--out", options.out_dir);
  nereid::cli::AddNumber<long>(app, "--record-every", [&](const long& x) { options.record_every = static_cast<int>(x); },
                               1, 1000000000);
  nereid::cli::AddNumber<double>(app, "--max-output-mb", [&](const double& x) { options.max_output_bytes = 1e6 * x; },
                                 1, 1e7);
  app.add_flag("--exact-sensors", options.exact_sensors);
  parser.Parse(args);
  options.progress = ::isatty(STDERR_FILENO) != 0;
  if (options.input.empty()) throw Usage{"run needs a MODEL.xml or SCENARIO.json"};
  const nereid::RunResult result = nereid::Run(options, &std::cout, &std::cerr);
  return result.diverged ? 3 : result.mujoco_error ? 1 : 0;
}

// nereid bench's command line: the benchmarks' options and the --out file.
nereid::BenchOptions ParseBench(const std::vector<std::string>& args, std::string* out) {
  nereid::BenchOptions options;
  options.model_dir = nereid::DefaultModelDir();
  nereid::cli::Parser parser("bench");
  CLI::App& app = parser.app();
  app.add_option("--out", *out);
  app.add_option("--models", options.model_dir);
  nereid::cli::AddNumber<long>(app, "--steps", [&](const long& x) { options.steps_per_sample = x; }, 1, 1000000000);
  nereid::cli::AddNumber<long>(app, "--samples", [&](const long& x) { options.samples = static_cast<int>(x); }, 1, 100000);
  nereid::cli::AddNumber<long>(app, "--block-steps", [&](const long& x) { options.block_steps = x; }, 1, 1000000000);
  app.add_flag_callback("--no-rl", [&] { options.rl = false; });
  app.add_flag_callback("--no-mpc", [&] { options.mpc = false; });
  nereid::cli::AddNumber<long>(app, "--rl-steps", [&](const long& x) { options.rl_env_steps = x; }, 1, 1000000000);
  app.add_option("--only", options.only);
  parser.Parse(args);
  return options;
}

// The header and one line per case: env-steps/s (RL), ms per plan (MPC), load time, real-time factor or
// ns per step.
void PrintBenchCases(const nereid::BenchReport& report, const nereid::BenchOptions& options) {
  if (options.only == "rl") {  // no per-step samples: the RL cases print their runs
    std::printf("MuJoCo %s\n", report.mujoco_version.c_str());
  } else {
    std::printf("MuJoCo %s; median of %d samples x %ld steps\n", report.mujoco_version.c_str(), options.samples,
                options.steps_per_sample);
  }
  for (const nereid::BenchCase& c : report.cases) {
    if (c.env_steps_per_s > 0) {
      const nereid::Spread rate = nereid::SpreadOf(c.runs);
      std::printf("  %-50s %10.0f env-steps/s (%.0f-%.0f over %d runs)\n", c.name.c_str(), c.env_steps_per_s,
                  rate.min, rate.max, rate.runs);
    } else if (c.p99_ns > 0) {
      std::printf("  %-50s %10.2f ms/plan median, p99 %.2f ms, max %.2f ms; median = %.3f of the period\n",
                  c.name.c_str(), 1e-6 * c.ns_per_step, 1e-6 * c.p99_ns, 1e-6 * c.ns_max, c.fraction_of_period);
    } else if (c.load_s > 0) {
      std::printf("  %-50s %10.3f s to load (best of %d)\n", c.name.c_str(), c.load_s, c.samples);
    } else if (c.realtime_factor > 0) {
      std::printf("  %-50s %10.1f x real time (%ld steps)\n", c.name.c_str(), c.realtime_factor, c.steps_per_sample);
    } else {
      std::printf("  %-50s %10.1f ns/step  (min %.1f, max %.1f%s)\n", c.name.c_str(), c.ns_per_step,
                  c.ns_min, c.ns_max, c.runs.empty() ? "" : (" over " + std::to_string(c.runs.size()) + " runs").c_str());
    }
  }
}

// "0.91 (0.88-0.94 over 5 runs)": a figure with its spread over repeated runs
std::string WithSpread(const nereid::Spread& s, const char* format = "%.2f") {
  char median[32], low[32], high[32], line[128];
  std::snprintf(median, sizeof(median), format, s.median);
  std::snprintf(low, sizeof(low), format, s.min);
  std::snprintf(high, sizeof(high), format, s.max);
  std::snprintf(line, sizeof(line), "%s (%s-%s over %d runs)", median, low, high, s.runs);
  return line;
}

nereid::Spread Scaled(nereid::Spread s, double factor) {
  s.median *= factor;
  s.min *= factor;
  s.max *= factor;
  return s;
}

// A ratio's paired blocks, when measured: the median with the middle half and the whole
// range of the block pairs' ratios ("paired blocks of 50 steps", the RL batch's "paired
// slices of about 12 batch steps").
void PrintPairedCases(const nereid::BenchReport& report, const std::string& numerator, const std::string& denominator,
                      const char* blocks, const char* steps, const char* target = "", const char* label = "paired") {
  const nereid::PairedRatio* p = report.FindPaired(numerator, denominator);
  if (!p || p->ratio.runs == 0) return;
  std::printf("    %s %s %ld %s: median %.3f, middle half %.3f-%.3f, all %.3f-%.3f over %d%s\n", label, blocks,
              p->block_steps, steps, p->ratio.median, p->ratio.q1, p->ratio.q3, p->ratio.min, p->ratio.max,
              p->ratio.runs, target);
}

// The paired blocks (BenchOptions::block_steps) of two of the Heavy's per-step cases.
void PrintPaired(const nereid::BenchReport& report, const char* numerator, const char* denominator) {
  PrintPairedCases(report, std::string("bluerov2_heavy/") + numerator, std::string("bluerov2_heavy/") + denominator,
                   "blocks of", "steps");
}

// The RL batch's parallel efficiency and its fraction of the physics bound, and the
// rollout's cost per step against one Simulation's. Every figure is the median of the
// runs' figures (run i of one case against run i of another) with its range.
void PrintRlFigures(const nereid::BenchReport& report) {
  const std::string rl = "rl/BlueROV2StationKeeping-v0/";
  std::printf("  RL parallel efficiency at batch 256 (2 threads): %s (target >= 0.85)\n",
              WithSpread(Scaled(report.RunRatio(rl + "batch256/threads2", rl + "batch256/threads1"), 0.5)).c_str());
  // the batch against its physics bounds, run by run: the same 256 simulations stepped by
  // 2 threads without the task and the pool (the target's bound: what the batch adds), and
  // one simulation stepped back to back by 1 thread, times 2 (hot caches, a second core as
  // fast as the first: the ideal, which the machine's caches and cores decide)
  const std::string b256 = rl + "batch256/threads";
  const int frame_skip = nereid::rl::FindTask("BlueROV2StationKeeping-v0").frame_skip;
  const nereid::BenchCase* batch = report.Find(b256 + "2");
  const nereid::BenchCase* one = report.Find(b256 + "1/physics_one_env");
  if (batch && one && report.Find(b256 + "2/physics_same_envs")) {
    const double t = 1e9 / (frame_skip * one->env_steps_per_s);
    std::printf("  RL batch 256, 2 threads: %s env-steps/s\n", WithSpread(nereid::SpreadOf(batch->runs), "%.0f").c_str());
    std::printf("    / the same 256 simulations' physics on 2 threads (no task, no pool): %s (target >= 0.95)\n",
                WithSpread(report.RunRatio(b256 + "2", b256 + "2/physics_same_envs")).c_str());
    PrintPairedCases(report, b256 + "2", b256 + "2/physics_same_envs", "slices of about", "batch steps",
                     " (target >= 0.95: the steadier figure on a shared machine)");
    std::printf("    / physics bound 2 x 1e9 / (%d x %.0f ns), one simulation back to back: %s (no target: the "
                "machine's caches and second core)\n",
                frame_skip, t, WithSpread(Scaled(report.RunRatio(b256 + "2", b256 + "1/physics_one_env"), 0.5)).c_str());
    if (const nereid::BenchCase* single = report.Find(b256 + "1")) {
      std::printf("    1 thread: %s env-steps/s; / the same 256 simulations' physics on 1 thread: %s (the task's own work)\n",
                  WithSpread(nereid::SpreadOf(single->runs), "%.0f").c_str(),
                  WithSpread(report.RunRatio(b256 + "1", b256 + "1/physics_same_envs")).c_str());
      PrintPairedCases(report, b256 + "1", b256 + "1/physics_same_envs", "slices of about", "batch steps");
    }
    std::printf("    the machine: 256 simulations / one, 1 thread: %s; 2 threads / 1 thread: one simulation each %s, "
                "the 256 simulations %s\n",
                WithSpread(report.RunRatio(b256 + "1/physics_same_envs", b256 + "1/physics_one_env")).c_str(),
                WithSpread(report.RunRatio(b256 + "2/physics_one_env", b256 + "1/physics_one_env")).c_str(),
                WithSpread(report.RunRatio(b256 + "2/physics_same_envs", b256 + "1/physics_same_envs")).c_str());
  }
  if (report.Find(b256 + "1/sensors")) {
    std::printf("  RL batch 256, sensor observations / state observations: %s (1 thread), %s (2 threads) "
                "(target >= 0.90)\n",
                WithSpread(report.RunRatio(b256 + "1/sensors", b256 + "1")).c_str(),
                WithSpread(report.RunRatio(b256 + "2/sensors", b256 + "2")).c_str());
    for (const char* threads : {"1", "2"}) {
      const std::string sensors = b256 + threads + "/sensors", state = b256 + threads;
      PrintPairedCases(report, sensors, state, "slices of about", "batch steps",
                       " (target >= 0.90: the steadier figure on a shared machine)",
                       threads[0] == '1' ? "1 thread, paired" : "2 threads, paired");
    }
  }
  std::printf("  RL batch 16: 2 threads / 1 thread = %s (target >= 1.7)\n",
              WithSpread(report.RunRatio(rl + "batch16/threads2", rl + "batch16/threads1")).c_str());
  if (report.Ratio("rollout/bluerov2_heavy/16x200/threads1", "bluerov2_heavy/nereid_full") > 0) {
    std::printf("  rollout (16 x 200 steps) per step / one Simulation's step: %.3f (1 thread), %.3f (2 threads)\n",
                report.Ratio("rollout/bluerov2_heavy/16x200/threads1", "bluerov2_heavy/nereid_full"),
                report.Ratio("rollout/bluerov2_heavy/16x200/threads2", "bluerov2_heavy/nereid_full"));
  }
}

// "ratio A / B: 1.234 (what)" for two of the Heavy's cases, with its paired blocks when
// measured; nothing when either case was not run (`--only`)
void PrintRatio(const nereid::BenchReport& report, const char* numerator, const char* denominator,
                const char* what) {
  const double r = report.Ratio(std::string("bluerov2_heavy/") + numerator, std::string("bluerov2_heavy/") + denominator);
  if (r <= 0) return;
  std::printf("  ratio %s / %s: %.3f (%s)\n", numerator, denominator, r, what);
  PrintPaired(report, numerator, denominator);
}

// The marine physics' and the thrusters' cost against plain MuJoCo, and UK connections
// against MuJoCo's welds by chain length.
void PrintCostRatios(const nereid::BenchReport& report) {
  PrintRatio(report, "nereid_no_thrusters", "bare_mj_step", "marine physics; target <= 1.25, goal <= 1.05");
  PrintRatio(report, "nereid_full", "nereid_no_thrusters", "8 thrusters' actuation; target <= 1.10");
  PrintRatio(report, "nereid_full", "nereid_no_actuators", "8 thrusters with MuJoCo's site transmissions");
  PrintRatio(report, "nereid_mujoco_motors", "nereid_no_thrusters",
             "MuJoCo's own actuation of 8 motors on the same sites: the floor for thrusters that are MuJoCo "
             "actuators");
  PrintRatio(report, "nereid_full", "nereid_mujoco_motors", "the thruster plugin against MuJoCo's motor");
  if (report.Ratio("bluerov2_heavy/nereid_full_sensors", "bluerov2_heavy/nereid_full") > 0) {
    std::printf("  ratio nereid_full_sensors / nereid_full: %.3f (the Heavy's sensor suite: pressure, IMU, DVL, "
                "acoustic fix; target <= 1.05)\n",
                report.Ratio("bluerov2_heavy/nereid_full_sensors", "bluerov2_heavy/nereid_full"));
  }
  const nereid::Spread paired = report.RunRatio("bluerov2_heavy/nereid_full_sensors", "bluerov2_heavy/nereid_full");
  if (paired.runs > 0) {
    std::printf("    paired samples: median %.3f, %.3f-%.3f over %d\n", paired.median, paired.min, paired.max,
                paired.runs);
  }
  PrintPaired(report, "nereid_full_sensors", "nereid_full");
  PrintRatio(report, "stock_mj_step_sensors", "stock_mj_step_plugins",
             "the same suite under plain mj_step, where MuJoCo runs mj_rnePostConstraint for the IMU");
  std::string line;
  for (int n : {2, 4, 8, 16, 32}) {
    const double r = report.Ratio("uk_chain/" + std::to_string(n) + "/uk", "uk_chain/" + std::to_string(n) + "/weld");
    if (r <= 0) continue;
    char item[48];
    std::snprintf(item, sizeof(item), "%s%d: %.2f", line.empty() ? "" : ", ", n, r);
    line += item;
  }
  if (!line.empty()) std::printf("  UK / MuJoCo weld by vehicles in the chain: %s (target <= 1.0)\n", line.c_str());
  const nereid::BenchCase* waves = report.Find("bluerov2_heavy/nereid_full_waves64");
  const nereid::BenchCase* calm = report.Find("bluerov2_heavy/nereid_full");
  if (waves && calm && calm->ns_per_step > 0) {
    const nereid::Spread sea = report.RunRatio("bluerov2_heavy/nereid_full_waves64", "bluerov2_heavy/nereid_full");
    std::printf("  ratio nereid_full_waves64 / nereid_full: %.3f (a 64-component sea; target <= 1.10)\n",
                waves->ns_per_step / calm->ns_per_step);
    std::printf("    paired samples: median %.3f, %.3f-%.3f over %d\n", sea.median, sea.min, sea.max, sea.runs);
    PrintPaired(report, "nereid_full_waves64", "nereid_full");
  }
}


// The tethered model's load time in maximal coordinates, and how it grows with segments.
void PrintTetherLoad(const nereid::BenchReport& report) {
  const nereid::BenchCase* c1000 = report.Find("tether_load/maximal/1000");
  const nereid::BenchCase* c50 = report.Find("tether_load/maximal/50");
  const double load_1000 = c1000 ? c1000->load_s : 0, load_50 = c50 ? c50->load_s : 0;
  if (load_1000 > 0) {
    std::printf("  tether load, maximal coordinates: %.3f s for 1000 segments (target <= 2 s); 1000 / 50 segments = %.1f\n",
                load_1000, load_50 > 0 ? load_1000 / load_50 : 0.0);
  }
}

int Bench(const std::vector<std::string>& args) {
  std::string out;
  const nereid::BenchOptions options = ParseBench(args, &out);
  if (!out.empty()) nereid::cli::PrepareOutputFile(out, "--out");  // before minutes of benchmarks
  // --only rl: the RL batch and rollout cases alone
  const bool rl_only = options.only == "rl", all = options.only.empty();
  if (rl_only && !options.rl) throw nereid::ConfigError("--only rl with --no-rl leaves nothing to run");
  nereid::BenchReport report;
  if (rl_only) {
    report.mujoco_version = mj_versionString();
  } else {
    report = nereid::RunBenchmarks(options);
  }
  if (all) nereid::RunTetherLoadBenchmarks(options, &report);
  if ((all || rl_only) && options.rl) nereid::RunRlBenchmarks(options, &report);
#ifdef NEREID_HAVE_MPC
  if (all && options.mpc) nereid::RunMpcBenchmarks(options, &report);
#endif
  PrintBenchCases(report, options);
  if ((all || rl_only) && options.rl) PrintRlFigures(report);
  PrintCostRatios(report);
  PrintTetherLoad(report);
  if (!out.empty()) {
    nereid::WriteOutputFile(out, report.ToJson() + "\n");
    std::printf("wrote %s\n", out.c_str());
  }
  return 0;
}

// nereid validate: tools/validate.py runs the seed cases with this executable and plots
// them (docs/validation.md describes the report).
int Validate(const std::vector<std::string>& args) {
  const fs::path root = nereid::cli::SourceRoot();
  std::string out = (root / "docs").string(), work = "results/validation", reference;
  bool quick = false;
  nereid::cli::Parser parser("validate");
  parser.app().add_option("--out", out);
  parser.app().add_option("--work", work);
  parser.app().add_flag("--quick", quick,
                        "repeat the cheap runs and compare their figures with the reference (no report)");
  parser.app()
      .add_option("--reference", reference, "the figures --quick compares with (default docs/validation/figures.json)")
      ->check(CLI::ExistingFile);
  parser.Parse(args);
  const char* env_script = std::getenv("NEREID_VALIDATE_SCRIPT");
  const fs::path script = env_script ? fs::path(env_script) : root / "tools" / "validate.py";
  if (!fs::exists(script)) {
    throw nereid::ConfigError(script.string() + ": the validation script is missing (set NEREID_VALIDATE_SCRIPT)");
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw nereid::ConfigError("cannot locate the nereid executable (/proc/self/exe): " + ec.message());
  std::vector<std::string> script_args = {"--nereid", self.string(), "--out", fs::absolute(out).string(),
                                          "--work", fs::absolute(work).string()};
  if (quick) script_args.push_back("--quick");
  if (!reference.empty()) {
    script_args.push_back("--reference");
    script_args.push_back(fs::absolute(reference).string());
  }
  const std::string cmd = nereid::cli::PythonCommand(script.string(), script_args);
  // the report's and the work's folders, checked before the long run starts
  for (const auto& [flag, dir] : {std::pair{"--out", out}, std::pair{"--work", work}}) {
    std::error_code dir_error;
    fs::create_directories(dir, dir_error);
    if (dir_error) {
      throw nereid::OutputError(dir + " (" + flag + "): cannot create the folder: " + dir_error.message());
    }
    if (::access(dir.c_str(), W_OK) != 0) {
      throw nereid::OutputError(dir + " (" + flag + "): cannot write into the folder: " + std::strerror(errno));
    }
  }
  std::cout << "$ " << cmd << std::endl;
  const int status = std::system(cmd.c_str());
  if (status == -1) throw nereid::Error("validate: cannot start " + cmd + ": " + std::strerror(errno));
  if (WIFSIGNALED(status)) {
    std::cerr << "nereid: error: validation failed: the script was killed by signal " << WTERMSIG(status) << "\n";
    return 1;
  }
  if (WEXITSTATUS(status) != 0) {
    // the script has printed its reason on stderr
    std::cerr << "nereid: error: validation failed (the script exited with status " << WEXITSTATUS(status) << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef NEREID_HAVE_MPC
  nereid::EnableMpc();  // scenarios with "controller": {"type": "mpc"}
#endif
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "run") return Run(args);
    if (command == "bench") return Bench(args);
    if (command == "crosscheck") return nereid::cli::Crosscheck(args);
    if (command == "validate") return Validate(args);
    if (command == "coefficients") return nereid::cli::Coefficients(args);
    if (command == "identify") return nereid::cli::Identify(args);
    if (command == "replay") return nereid::cli::Replay(args);
    if (command == "ros") return nereid::cli::Ros(args);
    if (command == "baselines") return nereid::cli::Baselines(args, nereid::DefaultModelDir());
    if (command == "info") {
      std::string model;
      nereid::cli::Parser parser("info");
      nereid::cli::AddInput(parser.app(), &model, "model");
      parser.Parse(args);
      if (model.empty()) throw Usage{"info needs a MODEL.xml"};
      return nereid::InfoCommand(model);
    }
    if (command == "schema") {
      std::string out;
      nereid::cli::Parser parser("schema");
      parser.app().add_option("--out", out, "write the schema into this file instead of stdout");
      parser.Parse(args);
      if (out.empty()) {
        std::cout << nereid::ScenarioJsonSchema();
      } else {
        nereid::cli::PrepareOutputFile(out, "--out");
        nereid::WriteOutputFile(out, nereid::ScenarioJsonSchema());
        std::cerr << "wrote " << out << "\n";
      }
      return 0;
    }
    if (command == "version") {
      std::cout << "nereid " << NEREID_VERSION << " (MuJoCo " << mj_versionString() << ")\n";
      return 0;
    }
    throw Usage{"unknown command '" + command + "'"};
  } catch (const nereid::cli::Help&) {
    std::cout << kUsage;
    return 0;
  } catch (const Usage& u) {
    std::cerr << "nereid: " << u.message << "\n" << kUsage;
    return 2;
  } catch (const nereid::Error& e) {
    std::cerr << "nereid: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "nereid: error: " << e.what() << "\n";
    return 1;
  }
}
