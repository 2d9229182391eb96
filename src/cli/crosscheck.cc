// Copyright Nereid authors.
#include "cli/crosscheck.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <mujoco/mujoco.h>
#include <nlohmann/json.hpp>

#include "cli/arguments.h"
#include "cli/crosscheck_parts.h"
#include "cli/python.h"
#include "nereid/error.h"
#include "nereid/output.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "uk/constraint_set.h"
#include "uk/merge.h"

namespace nereid::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string PlotScript() {
  if (const char* env = std::getenv("NEREID_CROSSCHECK_PLOT")) return env;
  return (SourceRoot() / "scripts" / "crosscheck_plots.py").string();
}

}  // namespace

int Crosscheck(const std::vector<std::string>& args) {
  std::string input, out = "results/crosscheck";
  bool plots = true;
  Parser parser("crosscheck");
  AddInput(parser.app(), &input, "scenario");
  parser.app().add_option("--out", out);
  parser.app().add_flag_callback("--no-plots", [&] { plots = false; });
  parser.Parse(args);
  if (input.empty()) throw Usage{"crosscheck needs a SCENARIO.json"};
  const Scenario s = Scenario::FromFile(input);
  if (!s.crosscheck) {
    throw ConfigError(input + ": not a cross-check scenario (none of its keys: peak, reference, record_every, "
                      "methods, weld, uk; docs/crosscheck.md); run it with nereid run");
  }
  std::unique_ptr<Simulation> probe = Simulation::LoadFile(s.model);
  CrosscheckCase c;
  c.scenario = &s;
  c.original = probe->model();
  c.welds = uk::FindUKWelds(c.original, s.model);
  if (c.welds.empty()) {
    throw ConfigError(s.model + ": no <weld name=\"uk:...\"> connections to cross-check");
  }
  std::vector<std::string> names;
  for (int eq : c.welds) {
    names.push_back(mj_id2name(c.original, mjOBJ_EQUALITY, eq));
    for (int b : {c.original->eq_obj1id[eq], c.original->eq_obj2id[eq]}) {
      const std::string n = mj_id2name(c.original, mjOBJ_BODY, b);
      if (std::find(c.assembly.begin(), c.assembly.end(), n) == c.assembly.end()) c.assembly.push_back(n);
    }
  }
  if (std::find(s.crosscheck->methods.begin(), s.crosscheck->methods.end(), CrosscheckMethod::kMerged) !=
      s.crosscheck->methods.end()) {
    c.merged_xml = uk::MergedModelXml(s.model, c.original, &c.merge_refused);
    if (const char* dump = std::getenv("NEREID_CROSSCHECK_DUMP_MERGED")) WriteOutputFile(dump, c.merged_xml);
  }
  // the output folder is made before the runs, so that one that cannot be made fails at once
  std::error_code dir_error;
  fs::create_directories(out, dir_error);
  if (dir_error) throw OutputError(out + ": cannot create the output folder: " + dir_error.message());
  std::fprintf(stderr, "crosscheck %s: %zu connection(s), %g s\n", input.c_str(), c.welds.size(),
               s.duration.value_or(10.0));
  std::map<CrosscheckMethod, RunResult> results;
  for (CrosscheckMethod method : s.crosscheck->methods) results[method] = RunOne(c, method);
  const json report = Report(c, input, results, names);
  for (const auto& [method, r] : results) {
    if (r.ran) WriteCsv((fs::path(out) / (std::string(Scenario::Crosscheck::Name(method)) + ".csv")).string(), r, names);
  }
  WriteOutputFile((fs::path(out) / "report.json").string(), report.dump(2) + "\n");
  std::printf("wrote %s\n", (fs::path(out) / "report.json").c_str());
  PrintSummary(report, results);
  if (plots) {
    const std::string script = PlotScript();
    const std::string cmd = PythonCommand(script, {out});
    if (!fs::exists(script) || std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "warning: plots not written (needs python3 with matplotlib: %s)\n", script.c_str());
    }
  }
  return 0;
}

}  // namespace nereid::cli
