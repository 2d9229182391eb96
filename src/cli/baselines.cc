// Copyright Nereid authors.
// `nereid baselines TASK`: zero thrust, random actions, the scripted cascaded PID and (for
// station-keeping tasks, when built with the MPC) the MPC, each over the same episodes:
// episode k is the environment reset with seed `seed + k`, as the Python NereidEnv's
// reset(seed=seed + k) gives it, so scripts/train_ppo.py's evaluation of PPO (seeds
// 10000 + k) is scored on the same episodes.
#include "cli/baselines.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <random>

#include <nlohmann/json.hpp>

#include "cli/arguments.h"
#include "cli/output_path.h"
#include "nereid/error.h"
#include "nereid/output.h"
#include "nereid/rl.h"
#ifdef NEREID_HAVE_MPC
#include "nereid/mpc.h"
#endif

namespace nereid::cli {
namespace {

constexpr int kMaxEpisodes = 10000;

struct Score {
  std::vector<double> returns, final_errors;  // per episode; final_errors: |e_p| at the end, m
  int diverged = 0;
  nlohmann::json extra = nlohmann::json::object();
};

// Runs `episodes` episodes of env 0 of `batch` under `act` (called before every step).
Score Evaluate(rl::BatchEnv& batch, int episodes, uint64_t seed, const std::function<void()>& on_reset,
               const std::function<void(float*)>& act) {
  Score score;
  std::vector<float> action(static_cast<size_t>(batch.action_size()));
  for (int k = 0; k < episodes; ++k) {
    batch.Reset(seed + static_cast<uint64_t>(k));
    on_reset();
    double total = 0;
    for (;;) {
      act(action.data());
      // the final observation before the batch resets the ended episode
      batch.Step(action.data());
      total += batch.rewards()[0];
      if (batch.terminated()[0] || batch.truncated()[0]) {
        const float* o = batch.final_observations();
        score.final_errors.push_back(std::sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]));
        score.diverged += batch.diverged()[0];
        break;
      }
    }
    score.returns.push_back(total);
  }
  return score;
}

nlohmann::json Summary(const Score& s) {
  auto mean = [](const std::vector<double>& v) {
    double m = 0;
    for (double x : v) m += x;
    return v.empty() ? 0.0 : m / static_cast<double>(v.size());
  };
  const double m = mean(s.returns);
  double var = 0;
  for (double x : s.returns) var += (x - m) * (x - m);
  nlohmann::json j = {{"mean_return", m},
                      {"std_return", s.returns.size() > 1 ? std::sqrt(var / static_cast<double>(s.returns.size() - 1)) : 0.0},
                      {"mean_final_position_error_m", mean(s.final_errors)},
                      {"diverged_episodes", s.diverged},
                      {"returns", s.returns}};
  j.update(s.extra);
  return j;
}

}  // namespace

int Baselines(const std::vector<std::string>& args, const std::string& model_dir) {
  std::string task, out;
  long episodes = 10, seed = 10000;
  bool mpc = true;
  double mpc_period = 0.1;
  long mpc_horizon = 20;
  MpcPrediction mpc_prediction = MpcPrediction::kFull;
  Parser parser("baselines");
  CLI::App& app = parser.app();
  AddInput(app, &task, "task");
  AddNumber<long>(app, "--episodes", [&](const long& x) { episodes = x; }, 1, kMaxEpisodes);
  // read as text: CLI11 caps an integer beyond long's range at its maximum without a word
  app.add_option_function<std::string>("--seed", [&](const std::string& text) {
    const char* end = text.data() + text.size();
    const auto [at, error] = std::from_chars(text.data(), end, seed);
    if (error == std::errc::result_out_of_range || (error == std::errc() && at == end && seed < 0)) {
      throw CLI::ValidationError("--seed", "must be in 0..9223372036854775807, got " + Excerpt(text));
    }
    if (error != std::errc() || at != end) {
      throw CLI::ValidationError("--seed", "expected an integer, got '" + Excerpt(text) + "'");
    }
  });
  app.add_option("--out", out);
  app.add_flag_callback("--no-mpc", [&] { mpc = false; });
  AddNumber<double>(app, "--mpc-period", [&](const double& x) { mpc_period = x; }, 1e-3, 60);
  AddNumber<long>(app, "--mpc-horizon", [&](const long& x) { mpc_horizon = x; }, 1, MpcOptions::kMaxHorizon);
  AddChoice<MpcPrediction>(app, "--mpc-prediction", kMpcPredictionNames,
                           [&](const MpcPrediction& x) { mpc_prediction = x; });
  parser.Parse(args);
  if (task.empty()) throw Usage{"baselines needs a TASK (e.g. BlueROV2StationKeeping-v0)"};
  const int n = static_cast<int>(episodes);
  const uint64_t s0 = static_cast<uint64_t>(seed);
  const rl::TaskSpec& spec = rl::FindTask(task);  // throws, listing the tasks, if unknown
  if (!out.empty()) PrepareOutputFile(out, "--out");  // before the episodes
  nlohmann::json report = {{"task", spec.id}, {"episodes", n}, {"seed", seed},
                           {"note", "episode k: reset(seed + k); mean return over the episodes"}};
  auto none = [] {};
  {
    rl::BatchEnv batch(task, 1, 1, model_dir);
    report["policies"]["zero"] = Summary(Evaluate(batch, n, s0, none, [&](float* a) {
      std::fill(a, a + batch.action_size(), 0.0f);
    }));
  }
  {
    rl::BatchEnv batch(task, 1, 1, model_dir);
    std::mt19937_64 rng(0);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    report["policies"]["random"] = Summary(Evaluate(batch, n, s0, none, [&](float* a) {
      for (int j = 0; j < batch.action_size(); ++j) a[j] = uniform(rng);
    }));
  }
  {
    rl::BatchEnv batch(task, 1, 1, model_dir);
    report["policies"]["scripted_pid"] = Summary(Evaluate(batch, n, s0, none, [&](float* a) {
      batch.env(0).ScriptedAction(a);
    }));
  }
#ifdef NEREID_HAVE_MPC
  if (mpc) {
    rl::BatchEnv batch(task, 1, 1, model_dir);
    if (!batch.env(0).task().station()) {
      report["policies"]["mpc"] = {{"skipped", "the task holds no station"}};
    } else {
      MpcOptions options;
      options.control_period = mpc_period;
      options.horizon = static_cast<int>(mpc_horizon);
      options.prediction = mpc_prediction;
      MpcStationPolicy policy(batch.env(0), options);  // the nominal model: before any reset
      Score score = Evaluate(batch, n, s0, [&] { policy.Reset(); }, [&](float* a) { policy.Act(a); });
      score.extra = {{"control_period_s", options.control_period},
                     {"horizon", options.horizon},
                     {"prediction", ToString(options.prediction)},
                     {"plans", policy.plans()},
                     {"failed_solves", policy.failed_solves()},
                     {"solve_time_median_s", NearestRankQuantile(policy.solve_times(), 0.5)}};
      report["policies"]["mpc"] = Summary(score);
    }
  }
#else
  (void)mpc, (void)mpc_period, (void)mpc_horizon;
#endif
  std::printf("%s, %d episodes (seeds %ld..%ld): mean return, final position error\n", spec.id.c_str(), n, seed,
              seed + n - 1);
  for (const auto& [name, p] : report["policies"].items()) {
    if (!p.contains("mean_return")) continue;
    std::printf("  %-14s %10.2f +- %8.2f   %.4f m\n", name.c_str(), p["mean_return"].get<double>(),
                p["std_return"].get<double>(), p["mean_final_position_error_m"].get<double>());
  }
  if (!out.empty()) {
    WriteOutputFile(out, report.dump(2) + "\n");
    std::printf("wrote %s\n", out.c_str());
  }
  return 0;
}

}  // namespace nereid::cli
