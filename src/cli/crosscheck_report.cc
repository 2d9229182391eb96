// Copyright Nereid authors.
// nereid crosscheck: the report (report.json, CSVs, the printed summary) of the runs
// (crosscheck_parts.h; fields in docs/crosscheck.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "cli/crosscheck_parts.h"
#include "nereid/output.h"

namespace nereid::cli {
namespace {

using nlohmann::json;

std::string Name(CrosscheckMethod method) { return Scenario::Crosscheck::Name(method); }

json Summary(const RunResult& r, const std::vector<std::string>& names, const RunResult* merged) {
  json j = {{"method", Name(r.method)}, {"ran", r.ran}};
  if (!r.ran) { j["skipped"] = r.skipped; return j; }
  j["steps"] = r.steps;
  j["ns_per_step"] = r.ns_per_step;
  if (r.first_peak) j["first_peak_s"] = *r.first_peak;
  json conns = json::array();
  for (size_t k = 0; k < names.size() && r.method != CrosscheckMethod::kMerged; ++k) {
    double pe = 0, ae = 0, fmax = 0, tmax = 0;
    for (const Sample& x : r.samples) {
      pe = std::max(pe, x.pos_err[k]);
      ae = std::max(ae, x.ang_err[k]);
      fmax = std::max(fmax, x.force[k].norm());
      tmax = std::max(tmax, x.torque[k].norm());
    }
    conns.push_back({{"name", names[k]}, {"max_position_drift_mm", 1e3 * pe},
                     {"max_angle_drift_deg", ae * 180 / M_PI}, {"max_force_N", fmax},
                     {"max_torque_Nm", tmax}});
  }
  if (r.method != CrosscheckMethod::kMerged) j["connections"] = conns;
  if (merged && merged->ran && r.method != CrosscheckMethod::kMerged) {
    double dmax = 0, dend = 0;
    for (size_t i = 0; i < std::min(r.samples.size(), merged->samples.size()); ++i) {
      dend = (r.samples[i].com - merged->samples[i].com).norm();
      dmax = std::max(dmax, dend);
    }
    j["com_difference_vs_merged_max_m"] = dmax;
    j["com_difference_vs_merged_final_m"] = dend;
  }
  const Sample& last = r.samples.back();
  j["final_com"] = {last.com.x(), last.com.y(), last.com.z()};
  return j;
}

}  // namespace

void WriteCsv(const std::string& file, const RunResult& r, const std::vector<std::string>& names) {
  OutputFile out(file);  // a temporary beside it, every write checked, renamed (throws OutputError)
  std::ostream& f = out.stream();
  f << "t,com_x,com_y,com_z";
  if (r.method != CrosscheckMethod::kMerged) {
    for (const std::string& n : names) {
      for (const char* c : {"pos_err_mm", "ang_err_deg", "fx", "fy", "fz", "tx", "ty", "tz"}) f << "," << n << ":" << c;
    }
  }
  f << "\n";
  char buf[64];
  auto put = [&](double v) { std::snprintf(buf, sizeof(buf), ",%.10g", v); f << buf; };
  for (const Sample& x : r.samples) {
    std::snprintf(buf, sizeof(buf), "%.10g", x.t);
    f << buf;
    put(x.com.x()); put(x.com.y()); put(x.com.z());
    for (size_t k = 0; k < x.pos_err.size(); ++k) {
      put(1e3 * x.pos_err[k]);
      put(x.ang_err[k] * 180 / M_PI);
      for (int c = 0; c < 3; ++c) put(x.force[k][c]);
      for (int c = 0; c < 3; ++c) put(x.torque[k][c]);
    }
    f << "\n";
    out.Check();  // a full disk stops the write at once
  }
  out.Commit();
}


json Report(const CrosscheckCase& c, const std::string& input, const std::map<CrosscheckMethod, RunResult>& results,
            const std::vector<std::string>& names) {
  const Scenario& s = *c.scenario;
  const Scenario::Crosscheck& x = *s.crosscheck;
  const auto merged_run = results.find(CrosscheckMethod::kMerged);
  const RunResult* merged = merged_run != results.end() ? &merged_run->second : nullptr;
  const auto uk = results.find(CrosscheckMethod::kUK), weld = results.find(CrosscheckMethod::kWeld);
  json report = {{"scenario", input}, {"model", s.model}, {"duration_s", s.duration.value_or(10.0)},
                 {"mujoco_version", mj_versionString()},
                 {"weld", {{"solref", {x.solref[0], x.solref[1]}},
                           {"solimp", {x.solimp[0], x.solimp[1], x.solimp[2], x.solimp[3], x.solimp[4]}}}},
                 {"uk", {{"baumgarte_omega", x.uk.baumgarte_omega}, {"baumgarte_zeta", x.uk.baumgarte_zeta},
                         {"project", x.uk.project}, {"dense", x.uk.dense}}},
                 {"connections", names}, {"assembly", c.assembly}, {"methods", json::object()}};
  if (!x.reference.empty()) report["reference"] = json::parse(x.reference);
  for (const auto& [method, r] : results) report["methods"][Name(method)] = Summary(r, names, merged);
  if (uk != results.end() && weld != results.end() && uk->second.ran && weld->second.ran) {
    // constraint wrenches of (a) against (b), per connection: over the whole run, during
    // the soft weld's start-up (its reference dynamics settle within about five time
    // constants solref[0]) and after it, where the two methods should agree
    json diff = json::array();
    const RunResult& a = uk->second;
    const RunResult& b = weld->second;
    const double settle = x.solref[0] > 0 ? 5 * x.solref[0] : 0.1;
    for (size_t k = 0; k < names.size(); ++k) {
      double fd = 0, td = 0, fd_start = 0, td_start = 0, fd_after = 0, td_after = 0, f_after = 0;
      for (size_t i = 0; i < std::min(a.samples.size(), b.samples.size()); ++i) {
        const double f = (a.samples[i].force[k] - b.samples[i].force[k]).norm();
        const double t = (a.samples[i].torque[k] - b.samples[i].torque[k]).norm();
        fd = std::max(fd, f);
        td = std::max(td, t);
        if (a.samples[i].t < settle) {
          fd_start = std::max(fd_start, f);
          td_start = std::max(td_start, t);
        } else {
          fd_after = std::max(fd_after, f);
          td_after = std::max(td_after, t);
          f_after = std::max(f_after, a.samples[i].force[k].norm());
        }
      }
      diff.push_back({{"name", names[k]}, {"max_force_difference_N", fd}, {"max_torque_difference_Nm", td},
                      {"start_up", {{"until_s", settle}, {"max_force_difference_N", fd_start},
                                    {"max_torque_difference_Nm", td_start}}},
                      {"settled", {{"from_s", settle}, {"max_force_difference_N", fd_after},
                                   {"max_torque_difference_Nm", td_after},
                                   {"max_force_uk_N", f_after},
                                   {"relative_force_difference", f_after > 0 ? fd_after / f_after : 0.0}}}});
    }
    report["uk_vs_weld_wrench"] = diff;
    report["cost_ratio_uk_over_weld"] = a.ns_per_step / b.ns_per_step;
  }
  return report;
}

void PrintSummary(const json& report, const std::map<CrosscheckMethod, RunResult>& results) {
  for (const auto& [method, r] : results) {
    const std::string name_text = Name(method);
    const char* name = name_text.c_str();
    if (!r.ran) { std::printf("  %-7s skipped: %s\n", name, r.skipped.c_str()); continue; }
    std::printf("  %-7s %9.0f ns/step", name, r.ns_per_step);
    if (r.first_peak) std::printf("  first peak %.4f s", *r.first_peak);
    const json& sj = report["methods"][name];
    if (sj.contains("connections")) {
      double pe = 0, ae = 0;
      for (const json& c : sj["connections"]) {
        pe = std::max(pe, c["max_position_drift_mm"].get<double>());
        ae = std::max(ae, c["max_angle_drift_deg"].get<double>());
      }
      std::printf("  drift %.3g mm %.3g deg", pe, ae);
    }
    if (sj.contains("com_difference_vs_merged_max_m")) {
      std::printf("  |com - merged| %.3g m", sj["com_difference_vs_merged_max_m"].get<double>());
    }
    std::printf("\n");
  }
}

}  // namespace nereid::cli
