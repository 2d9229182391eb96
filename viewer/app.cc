// Copyright Nereid authors.
// nereid-view's application: construction, loading the input as `nereid run` does (the
// vehicle, the bodies welded to it, the holds' gains) and resetting it. The rest of App is
// in app_window.cc (window, OpenGL context, camera), app_input.cc (keys, mouse, gamepad,
// teleoperation), app_stepping.cc (stepping and the interactive loop), app_render.cc (the
// scene and the HUD), app_capture.cc (screenshots and recording) and app_headless.cc.
#include "app.h"

#include <algorithm>

#include "nereid/allocation.h"
#include "nereid/error.h"
#include "nereid/output.h"
#include "nereid/runner.h"
#include "recording.h"

namespace nereid::viewer {
namespace {

int FirstFreeBody(const mjModel* m) {
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] == mjJNT_FREE) return m->jnt_bodyid[j];
  }
  return -1;
}

// The bodies joined to `vehicle` by weld equalities (active or not: a docking target
// belongs in the picture too), `vehicle` first; just `vehicle` when none. Connect
// equalities (a lumped tether's chain) do not count.
std::vector<int> WeldedGroup(const mjModel* m, int vehicle) {
  std::vector<int> group = {vehicle};
  for (size_t k = 0; k < group.size(); ++k) {
    for (int e = 0; e < m->neq; ++e) {
      if (m->eq_type[e] != mjEQ_WELD || m->eq_objtype[e] != mjOBJ_BODY) continue;
      const int a = m->eq_obj1id[e], b = m->eq_obj2id[e];
      const int other = a == group[k] ? b : b == group[k] ? a : -1;
      if (other > 0 && std::find(group.begin(), group.end(), other) == group.end()) group.push_back(other);
    }
  }
  return group;
}

}  // namespace

App::App(const ViewerOptions& options)
    : options_(options), overlays_(options.overlays), underwater_(options.underwater),
      scenery_on_(options.scenery), hud_(options.hud), plots_on_(options.hud), speed_(options.speed) {
  limits_ = {options.max_force, options.max_moment};
  // --record into a folder that cannot be made or written fails now, not after the run
  if (!options_.record.empty()) {
    const std::string error = PrepareRecording(RecordingFolder(options_.record), !FindFfmpeg().empty());
    if (!error.empty()) throw OutputError("--record " + error);
  }
  Load();
  OpenWindow();
}

void App::Load() {
  // the same inputs, precedence and messages as `nereid run`
  ResolvedInput input = ResolveInput(options_.input, std::nullopt, std::nullopt, std::nullopt, options_.constraints);
  scenario_ = std::move(input.scenario);
  sim_ = Simulation::LoadFile(input.model, input.options);
  const mjModel* m = sim_->model();

  vehicle_ = FirstFreeBody(m);
  if (!options_.body.empty()) {
    vehicle_ = mj_name2id(m, mjOBJ_BODY, options_.body.c_str());
    if (vehicle_ <= 0) throw ConfigError("--body: " + sim_->source() + " has no body '" + options_.body + "'");
  }
  if (vehicle_ >= 0) thrusters_ = FindThrusters(m, vehicle_);
  if (vehicle_ >= 0) group_ = WeldedGroup(m, vehicle_);
  if (vehicle_ >= 0) {
    // PD gains from the vehicle's inertia, added mass included: omega = 1 rad/s
    double heave = m->body_subtreemass[vehicle_], yaw = m->body_inertia[3 * vehicle_ + 2];
    for (const AddedMassBody& a : sim_->added_mass_bodies()) {
      if (a.body == vehicle_) {
        heave += a.added_mass(2, 2);
        yaw += a.added_mass(5, 5);
      }
    }
    depth_gains_ = PdGains::Critical(heave, 1.0, limits_.force);
    heading_gains_ = PdGains::Critical(yaw, 1.0, limits_.moment);
  }
  SetWaterFog(sim_->mutable_model());
  scales_ = ArrowScales::ForModel(m);
  scenery_ = Scenery::For(m, scenario_ ? &*scenario_ : nullptr);
  Reset();
}

void App::Reset() {
  control_.reset();
  if (scenario_) {
    scenario_->Apply(*sim_);
    control_ = std::make_unique<ScenarioControl>(*scenario_, *sim_);
  } else {
    sim_->Reset(sim_->model()->nkey > 0 ? 0 : -1);
  }
  depth_hold_.on = heading_hold_.on = false;
  diverged_ = false;
  sim_target_ = sim_->data()->time;
  plots_.Clear();
  trail_.clear();
}

}  // namespace nereid::viewer
