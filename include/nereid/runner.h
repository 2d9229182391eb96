// Copyright Nereid authors.
// The `nereid run` job: load a model or a scenario, step it headless, and write
// OUT/trajectory.csv and OUT/summary.json. Column layout: docs/outputs.md.
#ifndef NEREID_RUNNER_H_
#define NEREID_RUNNER_H_

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "nereid/scenario.h"
#include "nereid/simulation.h"

namespace nereid {

struct RunOptions {
  std::string input;                     // MODEL.xml or SCENARIO.json
  std::optional<double> duration;        // s (default: scenario's, else 10)
  std::optional<double> dt;              // s (default: scenario's, else the model's)
  std::optional<Integrator> integrator;  // default: scenario's, else the model's
  std::optional<Engine> engine;          // default: scenario's, else nereid
  std::optional<ConstraintMethod> constraints;  // "uk:" welds; default: scenario's, else MuJoCo
  std::string out_dir = "results";
  int record_every = 1;                  // write every N-th step (the first and last always)
};

struct RunResult {
  long steps = 0;
  double sim_time = 0;   // s
  double wall_time = 0;  // s
  bool diverged = false;
  bool mujoco_error = false;  // MuJoCo raised a fatal error (MuJoCoError) during the run
  std::string error;
};

// An input (MODEL.xml or SCENARIO.json) resolved into what to load: the scenario if any,
// the model file, and the simulation options (overrides, else the scenario's, else the
// model's). Throws ConfigError for an input that is neither, or a bad scenario.
struct ResolvedInput {
  std::optional<Scenario> scenario;
  std::string model;
  SimulationOptions options;
};
ResolvedInput ResolveInput(const std::string& input, std::optional<Engine> engine = std::nullopt,
                           std::optional<Integrator> integrator = std::nullopt,
                           std::optional<double> dt = std::nullopt,
                           std::optional<ConstraintMethod> constraints = std::nullopt);

// Runs the job and writes its outputs. Throws ConfigError / LoadError for bad input; a
// diverging state ends the run early with result.diverged, a MuJoCo fatal error with
// result.mujoco_error (the outputs are still written, ending at the last good state).
RunResult Run(const RunOptions& options, std::ostream* log = nullptr);

// Trajectory columns for a model: time, then per free-joint body
// <body>.px .py .pz .qw .qx .qy .qz .vx .vy .vz .wx .wy .wz, then <joint>.q .qd per
// hinge/slide joint.
std::vector<std::string> TrajectoryColumns(const mjModel* m);
// One row of values in the order of TrajectoryColumns.
void TrajectoryRow(const mjModel* m, const mjData* d, std::vector<double>* row);

}  // namespace nereid

#endif  // NEREID_RUNNER_H_
