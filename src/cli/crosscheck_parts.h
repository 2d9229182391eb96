// Copyright Nereid authors.
// The parts of `nereid crosscheck` (crosscheck.h): the measurement of one method's run
// (crosscheck_measure.cc) and the report (crosscheck_report.cc). The scenario is a
// nereid::Scenario with its Crosscheck extension; the merged model is uk::MergeWelded's.
#ifndef NEREID_SRC_CLI_CROSSCHECK_PARTS_H_
#define NEREID_SRC_CLI_CROSSCHECK_PARTS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>
#include <nlohmann/json.hpp>

#include "nereid/scenario.h"
#include "uk/rigid_connection.h"

namespace nereid::cli {

using CrosscheckMethod = Scenario::Crosscheck::Method;

struct Sample {
  double t;
  std::vector<double> pos_err, ang_err;  // per connection (m, rad)
  std::vector<uk::Vec3> force, torque;   // per connection, on body1 at the point
  uk::Vec3 com;                          // the assembly's centre of mass
};

struct RunResult {
  CrosscheckMethod method = CrosscheckMethod::kUK;
  bool ran = false;
  std::string skipped;
  std::vector<Sample> samples;
  double ns_per_step = 0;
  std::optional<double> first_peak;
  long steps = 0;
};

// What every run shares: the scenario (with its Crosscheck keys), the model compiled as
// written, its "uk:" welds and the names of the welded bodies (the assembly).
struct CrosscheckCase {
  const Scenario* scenario = nullptr;
  const mjModel* original = nullptr;
  std::vector<int> welds;
  std::vector<std::string> assembly;
  std::string merged_xml;  // uk::MergedModelXml's, or "" with the reason in merge_refused
  std::string merge_refused;
};

// Runs the scenario with one method: (a) UK, (b) MuJoCo's welds, (c) the merged body.
// (c) is returned not ran, with the reason, when the model cannot be merged.
RunResult RunOne(const CrosscheckCase& c, CrosscheckMethod method);

// report.json's content for the runs, and the lines printed for them.
nlohmann::json Report(const CrosscheckCase& c, const std::string& input,
                      const std::map<CrosscheckMethod, RunResult>& results, const std::vector<std::string>& names);
void WriteCsv(const std::string& file, const RunResult& r, const std::vector<std::string>& names);
void PrintSummary(const nlohmann::json& report, const std::map<CrosscheckMethod, RunResult>& results);

}  // namespace nereid::cli

#endif  // NEREID_SRC_CLI_CROSSCHECK_PARTS_H_
