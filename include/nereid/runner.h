// Copyright Nereid authors.
// The `nereid run` job: load a model or a scenario, step it headless, and write
// OUT/trajectory.csv and OUT/summary.json. Column layout: docs/outputs.md.
#ifndef NEREID_RUNNER_H_
#define NEREID_RUNNER_H_

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nereid/path.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "nereid/stabilize.h"
#include "nereid/vms.h"

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
  // the run is refused when its output files could exceed this (an upper bound estimated from
  // rows x columns before the first step; docs/outputs.md)
  double max_output_bytes = 1e9;
  bool progress = false;  // report progress on stderr (the CLI sets it when stderr is a terminal)
  // every Nereid sensor exact (SetSensorsExact; as NEREID_EXACT_SENSORS=1)
  bool exact_sensors = false;
};

// An upper bound of the bytes a run's CSV files take: `rows` rows of `columns` numbers.
double EstimateCsvBytes(double rows, size_t columns);

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
// What a scenario does before every step, in `nereid run`'s order (docs/scenarios.md, "When
// things happen"): its controls and wrenches, then the path controller or the vms
// controller, then the depth and attitude holds. `nereid run` and nereid-view share it, so
// a scenario plays the same in both. The scenario and the simulation must outlive it.
class ScenarioControl {
 public:
  // Call after scenario.Apply(sim). Throws ConfigError naming the scenario's JSON paths.
  ScenarioControl(const Scenario& scenario, Simulation& sim);
  ~ScenarioControl();
  ScenarioControl(const ScenarioControl&) = delete;
  ScenarioControl& operator=(const ScenarioControl&) = delete;

  // Before each step. False when the path controller has reached its last point and the
  // scenario stops there (controller.stop_when_done): the run should end.
  bool BeforeStep();

  PathController* follower() const { return follower_.get(); }
  int controlled_body() const { return controlled_body_; }
  VmsController* vms() const { return vms_.get(); }
  const std::vector<Stabilize>& holds() const { return holds_; }
  // The navigation filter (scenario "navigation" or "feedback": "estimate"; null without):
  // after each BeforeStep() its estimate() is the vehicle's estimated state at d->time
  // (nereid/navigator.h), what a viewer draws as the vehicle's ghost.
  const Navigator* navigator() const { return navigator_.get(); }

 private:
  const Scenario& scenario_;
  Simulation& sim_;
  std::unique_ptr<PathController> follower_;
  std::unique_ptr<VmsController> vms_;
  std::vector<Stabilize> holds_;
  int controlled_body_ = -1;
  std::unique_ptr<Navigator> navigator_;
};

// `log` gets the progress lines ("nereid run: ...", "wrote ..."), `errors` a diverged or
// failed run's error (default: `log`).
RunResult Run(const RunOptions& options, std::ostream* log = nullptr, std::ostream* errors = nullptr);

// The state `nereid run` writes as summary.json's "final_state" (docs/outputs.md), as JSON text.
std::string FinalStateJson(const mjModel* m, const mjData* d);

// Trajectory columns for a model: time, then per free-joint body
// <body>.px .py .pz .qw .qx .qy .qz .vx .vy .vz .wx .wy .wz, then <joint>.q .qd per
// hinge/slide joint, then <sensor>.<field> per plugin sensor (SensorFieldNames: Nereid's
// marine sensors; the reading the step that ended at the row's time computed).
std::vector<std::string> TrajectoryColumns(const mjModel* m);
// One row of values in the order of TrajectoryColumns.
void TrajectoryRow(const mjModel* m, const mjData* d, std::vector<double>* row);

}  // namespace nereid

#endif  // NEREID_RUNNER_H_
