// Copyright Nereid authors.
// `nereid baselines TASK`: zero thrust, random actions, the scripted cascaded PID and (when
// built with the MPC) the MPC, each over the same episodes:
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
#include <optional>
#include <random>
#include <string>
#include <vector>

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
// The final position error: the state observation's first three values (with sensor
// observations too: the task's state observation of the truth).
Score Evaluate(rl::BatchEnv& batch, int episodes, uint64_t seed, const std::function<void()>& on_reset,
               const std::function<void(float*)>& act) {
  Score score;
  std::vector<float> action(static_cast<size_t>(batch.action_size()));
  std::vector<float> o(static_cast<size_t>(batch.observation_size()));
  rl::Env& env = batch.env(0);
  std::vector<float> state(static_cast<size_t>(env.task().observation_size()));
  for (int k = 0; k < episodes; ++k) {
    batch.Reset(seed + static_cast<uint64_t>(k));  // seeds env 0 as the batch does
    on_reset();
    double total = 0;
    for (;;) {
      act(action.data());
      // the env itself: it does not start the next episode, so the ended one can be read
      const rl::StepOutcome out = env.Step(action.data(), o.data());
      total += out.reward;
      if (out.terminated || out.truncated) {
        if (env.observation() == rl::Observation::kSensors) {  // the truth: the state observation's
          env.task().Observe(env.simulation(), state.data());
          score.final_errors.push_back(std::sqrt(state[0] * state[0] + state[1] * state[1] + state[2] * state[2]));
        } else {
          score.final_errors.push_back(std::sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]));
        }
        score.diverged += out.diverged;
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

// The command line of `nereid baselines`.
struct BaselinesOptions {
  std::string task, out;
  long episodes = 10, seed = 10000;
  bool mpc = true;
#ifdef NEREID_HAVE_MPC
  // unset: the task's (MpcPolicy::DefaultsFor)
  std::optional<double> mpc_period, mpc_velocity_limit;
  std::optional<long> mpc_horizon;
  std::optional<MpcPrediction> mpc_prediction;
#endif
  rl::Observation observation = rl::Observation::kState;
};

// Throws Usage (no task) or CLI11's errors, as Parser::Parse does.
BaselinesOptions ParseBaselines(const std::vector<std::string>& args) {
  BaselinesOptions o;
  Parser parser("baselines");
  CLI::App& app = parser.app();
  AddInput(app, &o.task, "task");
  AddNumber<long>(app, "--episodes", [&](const long& x) { o.episodes = x; }, 1, kMaxEpisodes);
  // read as text: CLI11 caps an integer beyond long's range at its maximum without a word
  app.add_option_function<std::string>("--seed", [&](const std::string& text) {
    const char* end = text.data() + text.size();
    const auto [at, error] = std::from_chars(text.data(), end, o.seed);
    if (error == std::errc::result_out_of_range || (error == std::errc() && at == end && o.seed < 0)) {
      throw CLI::ValidationError("--seed", "must be in 0..9223372036854775807, got " + Excerpt(text));
    }
    if (error != std::errc() || at != end) {
      throw CLI::ValidationError("--seed", "expected an integer, got '" + Excerpt(text) + "'");
    }
  });
  app.add_option("--out", o.out);
  app.add_flag_callback("--no-mpc", [&] { o.mpc = false; });  // (a build without the MPC scores none)
#ifdef NEREID_HAVE_MPC
  AddNumber<double>(app, "--mpc-period", [&](const double& x) { o.mpc_period = x; }, 1e-3, 60);
  AddNumber<double>(app, "--mpc-velocity-limit", [&](const double& x) { o.mpc_velocity_limit = x; }, 1e-3, 10);
  AddNumber<long>(app, "--mpc-horizon", [&](const long& x) { o.mpc_horizon = x; }, 1, MpcOptions::kMaxHorizon);
  AddChoice<MpcPrediction>(app, "--mpc-prediction", kMpcPredictionNames,
                           [&](const MpcPrediction& x) { o.mpc_prediction = x; });
#endif
  AddChoice<rl::Observation>(app, "--observation", rl::kObservationNames,
                             [&](const rl::Observation& x) { o.observation = x; });
  parser.Parse(args);
  if (o.task.empty()) throw Usage{"baselines needs a TASK (e.g. BlueROV2StationKeeping-v0)"};
  return o;
}

// The summary of `act` (the action of env 0 of a fresh batch, before every step) over the
// episodes.
nlohmann::json ScorePolicy(const BaselinesOptions& o, const std::string& model_dir,
                           const std::function<void(rl::BatchEnv&, float*)>& act) {
  rl::BatchEnv batch(o.task, 1, 1, model_dir, o.observation);
  return Summary(Evaluate(batch, static_cast<int>(o.episodes), static_cast<uint64_t>(o.seed), [] {},
                          [&](float* a) { act(batch, a); }));
}

#ifdef NEREID_HAVE_MPC
// The MPC's summary over the episodes (its settings, plans and solve times added).
nlohmann::json ScoreMpc(const BaselinesOptions& o, const std::string& model_dir) {
  rl::BatchEnv batch(o.task, 1, 1, model_dir, o.observation);
  MpcOptions options = MpcPolicy::DefaultsFor(batch.spec());  // unless the command line sets them
  if (o.mpc_period) options.control_period = *o.mpc_period;
  if (o.mpc_horizon) options.horizon = static_cast<int>(*o.mpc_horizon);
  if (o.mpc_prediction) options.prediction = *o.mpc_prediction;
  if (o.mpc_velocity_limit) options.velocity_limit = *o.mpc_velocity_limit;
  MpcPolicy policy(batch.env(0), options);  // the nominal model: before any reset
  Score score = Evaluate(batch, static_cast<int>(o.episodes), static_cast<uint64_t>(o.seed),
                         [&] { policy.Reset(); }, [&](float* a) { policy.Act(a); });
  score.extra = {{"control_period_s", options.control_period},
                 {"horizon", options.horizon},
                 {"prediction", ToString(options.prediction)},
                 {"velocity_limit", options.velocity_limit},
                 {"plans", policy.plans()},
                 {"failed_solves", policy.failed_solves()},
                 {"solve_time_median_s", NearestRankQuantile(policy.solve_times(), 0.5)}};
  return Summary(score);
}
#endif

// Each policy's mean return with its spread and the mean final position error.
void PrintScores(const nlohmann::json& report, const std::string& task, const BaselinesOptions& o) {
  std::printf("%s, %d episodes (seeds %ld..%ld), %s observations: mean return, final position error\n",
              task.c_str(), static_cast<int>(o.episodes), o.seed, o.seed + static_cast<int>(o.episodes) - 1,
              std::string(rl::ToString(o.observation)).c_str());
  for (const auto& [name, p] : report["policies"].items()) {
    std::printf("  %-14s %10.2f +- %8.2f   %.4f m\n", name.c_str(), p["mean_return"].get<double>(),
                p["std_return"].get<double>(), p["mean_final_position_error_m"].get<double>());
  }
}

}  // namespace

int Baselines(const std::vector<std::string>& args, const std::string& model_dir) {
  const BaselinesOptions o = ParseBaselines(args);
  const rl::TaskSpec& spec = rl::FindTask(o.task);  // throws, listing the tasks, if unknown
  if (!o.out.empty()) PrepareOutputFile(o.out, "--out");  // before the episodes
  nlohmann::json report = {{"task", spec.id}, {"episodes", static_cast<int>(o.episodes)}, {"seed", o.seed},
                           {"observation", rl::ToString(o.observation)},
                           {"note", "episode k: reset(seed + k); mean return over the episodes"}};
  report["policies"]["zero"] = ScorePolicy(o, model_dir, [](rl::BatchEnv& batch, float* a) {
    std::fill(a, a + batch.action_size(), 0.0f);
  });
  std::mt19937_64 rng(0);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  report["policies"]["random"] = ScorePolicy(o, model_dir, [&](rl::BatchEnv& batch, float* a) {
    for (int j = 0; j < batch.action_size(); ++j) a[j] = uniform(rng);
  });
  report["policies"]["scripted_pid"] = ScorePolicy(o, model_dir, [](rl::BatchEnv& batch, float* a) {
    batch.env(0).ScriptedAction(a);
  });
#ifdef NEREID_HAVE_MPC
  if (o.mpc) report["policies"]["mpc"] = ScoreMpc(o, model_dir);
#endif
  PrintScores(report, spec.id, o);
  if (!o.out.empty()) {
    WriteOutputFile(o.out, report.dump(2) + "\n");
    std::printf("wrote %s\n", o.out.c_str());
  }
  return 0;
}

}  // namespace nereid::cli
