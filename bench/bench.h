// Copyright Nereid authors.
// `nereid bench`: cost per step of Nereid's engine against plain mj_step on the same
// model, measured in one run with the cases interleaved (machines are noisy; compare the
// ratios, not the absolute figures).
#ifndef NEREID_BENCH_H_
#define NEREID_BENCH_H_

#include <string>
#include <vector>

namespace nereid {

struct BenchCase {
  std::string name;
  double ns_per_step = 0;  // median over samples
  double ns_min = 0, ns_max = 0;
  long steps_per_sample = 0;
  int samples = 0;
  double env_steps_per_s = 0;  // RL cases: environment steps per second (all envs)
  double p99_ns = 0;             // MPC: 99th percentile of the solve time per control step
  double fraction_of_period = 0; // MPC: median solve time / control period
  double realtime_factor = 0;    // whole runs: simulated time / wall time
  double load_s = 0;             // load cases: seconds from MJCF text to a ready Simulation
  // RL and rollout cases: the figure of each run in run order (env-steps/s, or ns per
  // step), measured interleaved with the other cases' runs so that run i of two cases can
  // be compared (BenchReport::RunRatio)
  std::vector<double> runs;
};

// The median, quartiles, smallest and largest of a set of figures (all 0 when there are
// none; quartiles by linear interpolation between order statistics)
struct Spread {
  double median = 0, min = 0, max = 0;
  double q1 = 0, q3 = 0;
  int runs = 0;
};
Spread SpreadOf(std::vector<double> values);

struct BenchOptions {
  std::string model_dir;       // the models/ folder
  // each sample restarts from keyframe 0: 1 s of motion keeps every case clear of the
  // floor, so that no case pays for contacts the others do not have
  long steps_per_sample = 200;
  int samples = 75;
  // RL environments: batch sizes x thread counts, about this many env steps per run, each
  // case run rl_runs times (interleaved, so that every case sees the same moments of a
  // shared machine); the rollout cases are run rl_runs times as well
  bool rl = true;
  long rl_env_steps = 24000;
  int rl_runs = 5;
  bool mpc = true;  // the MPC cases (when built with libnereid_mpc)
  // The cost ratios with targets are also measured in paired blocks: two cases stepped in
  // turn, block_steps steps each (the order swapped every block), from keyframe 0 every
  // steps_per_sample steps, 2 x samples times; each pair of blocks gives one ratio, so that
  // the machine's drift, slower than a block, cancels. 50 steps (0.2-0.3 ms here): long
  // beside the refill of the caches after the other case's block (about a step), short
  // beside the drift of a shared host's core speed (tens of milliseconds and more).
  long block_steps = 50;
  // non-empty: only the per-step cases whose name contains it (no load, RL or MPC cases),
  // e.g. "sensors" for the sensor suite's cost beside its reference
  std::string only;
};

// A cost ratio measured in paired blocks (BenchOptions::block_steps): the spread of
// numerator block time / denominator block time over all pairs.
struct PairedRatio {
  std::string numerator, denominator;
  long block_steps = 0;
  Spread ratio;
};

struct BenchReport {
  std::string mujoco_version;
  std::vector<BenchCase> cases;
  std::vector<PairedRatio> paired;
  const PairedRatio* FindPaired(const std::string& numerator, const std::string& denominator) const;
  double Ratio(const std::string& numerator, const std::string& denominator) const;
  const BenchCase* Find(const std::string& name) const;  // null if absent
  // The spread over runs of numerator.runs[i] / denominator.runs[i] (runs measured side by
  // side); runs = 0 if either case is missing or has no runs
  Spread RunRatio(const std::string& numerator, const std::string& denominator) const;
  std::string ToJson() const;
};

BenchReport RunBenchmarks(const BenchOptions& options);
// Env-steps per second of rl::BatchEnv (station keeping) for batch 1, 16, 256 at 1 and 2
// threads, appended to `report` as cases "rl/<task>/batch<B>/threads<T>" (median of
// options.rl_runs runs, with the spread), and nereid::Rollout's ns per step at 1 and 2
// threads ("rollout/bluerov2_heavy/16x200/threads<T>").
void RunRlBenchmarks(const BenchOptions& options, BenchReport* report);
// Seconds to load the shipped tethered Heavy with 50, 200 (and, with maximal coordinates,
// 1000) segments, best of three: cases "tether_load/<coordinates>/<segments>".
void RunTetherLoadBenchmarks(const BenchOptions& options, BenchReport* report);
// The MPC cases "mpc/raybot/N15" (solve time per control step: median in ns_per_step,
// p99_ns, fraction_of_period) and "mpc/raybot/quay_wall_run" (realtime_factor) of
// scenarios/seed002/mpc_run2.json. Defined in bench_mpc.cc (builds with libnereid_mpc).
void RunMpcBenchmarks(const BenchOptions& options, BenchReport* report);

}  // namespace nereid

#endif  // NEREID_BENCH_H_
