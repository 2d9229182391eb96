// Copyright Nereid authors.
// `nereid bench` cases for the MPC (built with libnereid_mpc): the solve time per control
// step of seed 002's MPC on the Raybot's quay-wall run (Table 6.2 run 2: N = 15) and the
// real-time factor of that whole run (plans, pose sampling and 5 ms RK4 physics steps).
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "bench.h"
#include "nereid/runner.h"

namespace nereid {

void RunMpcBenchmarks(const BenchOptions& options, BenchReport* report) {
  const std::filesystem::path scenario =
      std::filesystem::path(options.model_dir) / ".." / "scenarios" / "seed002" / "mpc_run2.json";
  const std::filesystem::path out = std::filesystem::temp_directory_path() / "nereid_bench_mpc";
  RunOptions run;
  run.input = scenario.string();
  run.out_dir = out.string();
  run.record_every = 1000;
  const RunResult result = Run(run, nullptr);
  const nlohmann::json summary = nlohmann::json::parse(std::ifstream(out / "summary.json"));
  const nlohmann::json& c = summary.at("controller");
  BenchCase solve;
  solve.name = "mpc/raybot/N15";
  solve.ns_per_step = 1e9 * c.at("solve_time_median_s").get<double>();  // per control step
  solve.p99_ns = 1e9 * c.at("solve_time_p99_s").get<double>();
  solve.ns_max = 1e9 * c.at("solve_time_max_s").get<double>();
  solve.samples = c.at("plans").get<int>();
  solve.steps_per_sample = 1;
  solve.fraction_of_period = c.at("solve_time_median_fraction_of_period").get<double>();
  report->cases.push_back(solve);
  BenchCase whole;
  whole.name = "mpc/raybot/quay_wall_run";
  whole.ns_per_step = 1e9 * result.wall_time / static_cast<double>(std::max(1L, result.steps));
  whole.steps_per_sample = result.steps;
  whole.samples = 1;
  whole.realtime_factor = result.wall_time > 0 ? result.sim_time / result.wall_time : 0.0;
  report->cases.push_back(whole);
}

}  // namespace nereid
