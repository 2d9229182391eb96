// Copyright Nereid authors.
// nereid::Simulation: an MJCF model stepped with Nereid's pipeline (docs/design.md, "One step"):
//   MuJoCo's position stage with J^T M_A J of every nereid.hydrodynamics body added into
//   d->M before its one factorisation -> velocity stage with the passive plugins
//   (damping, C_A, restoring, current) -> actuation -> acceleration -> constraints ->
//   integrate (semi-implicit Euler, RK4 with added mass in every stage, or implicitfast).
// With no added mass in the model a step is MuJoCo's own step to machine precision.
#ifndef NEREID_SIMULATION_H_
#define NEREID_SIMULATION_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <mujoco/mujoco.h>

#include "nereid/current.h"
#include "nereid/frames.h"
#include "nereid/mujoco_log.h"
#include "nereid/names.h"
#include "nereid/plugins.h"
#include "nereid/uk.h"

namespace nereid {

namespace uk { class ConstraintSet; }

enum class Integrator { kEuler, kRK4, kImplicitFast };
enum class Engine {
  kNereid,  // Nereid's stepper: added mass in the mass matrix
  kMuJoCo,  // plain mj_step (plugins' force terms only; for A/B comparisons)
};

// Their names (nereid/names.h); Parse returns false on unknown text.
inline constexpr std::array<Named<Integrator>, 3> kIntegratorNames{
    {{Integrator::kEuler, "euler"}, {Integrator::kRK4, "rk4"}, {Integrator::kImplicitFast, "implicitfast"}}};
inline constexpr std::array<Named<Engine>, 2> kEngineNames{{{Engine::kNereid, "nereid"}, {Engine::kMuJoCo, "mujoco"}}};
inline std::string_view ToString(Integrator integrator) { return NameOf(kIntegratorNames, integrator); }
inline std::string_view ToString(Engine engine) { return NameOf(kEngineNames, engine); }
inline bool ParseIntegrator(std::string_view text, Integrator* integrator) {
  return ParseName(kIntegratorNames, text, integrator);
}
inline bool ParseEngine(std::string_view text, Engine* engine) { return ParseName(kEngineNames, text, engine); }

struct SimulationOptions {
  Engine engine = Engine::kNereid;
  std::optional<Integrator> integrator;  // default: the model's (<option integrator>)
  std::optional<double> timestep;        // default: the model's (<option timestep>)
  // Edits the parsed model before it is compiled (e.g. removes or merges elements).
  std::function<void(mjSpec*)> edit;
  // Who enforces the model's "uk:" welds (include/nereid/uk.h): MuJoCo (default) or UK.
  ConstraintMethod constraints = ConstraintMethod::kMuJoCo;
  UKOptions uk;
};

// The inertia Nereid adds for one body: M_A (MuJoCo body frame, about the body origin,
// [lin; ang]) and where J^T M_A J lands in MuJoCo's sparse d->M.
struct AddedMassBody {
  int body = -1;
  Mat6 added_mass = Mat6::Zero();
  std::vector<int> dofs;                  // the body's dof chain (decreasing)
  int free_dof = -1;                      // first dof of its free joint, if it has one
  struct Entry { int row, col, index; };  // K(row, col) -> d->M[index]
  std::vector<Entry> entries;
};

// Throws ConfigError if one of the model's nu controls in `ctrl` is NaN, infinite or beyond
// mjMAXVAL (1e10) in magnitude -- MuJoCo would zero every control with only a warning --
// naming `what` (e.g. "ctrl"), the actuator (name and index) and the value.
void CheckControls(const mjModel* m, const mjtNum* ctrl, const std::string& what);

class Simulation final {
 public:
  // Loads an MJCF file or string (Nereid's plugins are registered first). Throws
  // LoadError (malformed or uncompilable MJCF) or ConfigError (a plugin's <config>); the
  // message starts with the file name.
  static std::unique_ptr<Simulation> LoadFile(const std::string& path,
                                              const SimulationOptions& options = {});
  static std::unique_ptr<Simulation> LoadString(const std::string& xml,
                                                const SimulationOptions& options = {},
                                                const std::string& name = "<string>");
  // Compiles an MJCF file as LoadFile does (its checks, nereid.tether's bodies, full
  // inertia storage for added-mass bodies) without making data: the caller owns the model
  // (mj_deleteModel). Throws LoadError or ConfigError.
  static mjModel* CompileFile(const std::string& path, const SimulationOptions& options = {},
                              MuJoCoWarnings* warnings = nullptr);
  // Nereid's stepper on an mjModel and mjData made elsewhere (e.g. Python's mujoco.MjModel
  // and mujoco.MjData): nothing is copied, the data keeps its state (a forward pass fills
  // its derived quantities), and neither is freed with the Simulation, which must not
  // outlive them. options.integrator and options.timestep, when given, are written into
  // the model. With the Nereid engine the data must have been made inside an EngineScope
  // (include/nereid/plugins.h), so that its nereid.hydrodynamics instances leave added
  // mass to the engine, and added-mass bodies need full inertia storage (CompileFile gives
  // both); otherwise ConfigError says so.
  static std::unique_ptr<Simulation> Attach(mjModel* m, mjData* d, const SimulationOptions& options = {},
                                            const std::string& name = "<attached>");
  // An mjData of `m` to Attach with `engine` (made inside an EngineScope for the nereid
  // engine); the caller owns it (mj_deleteData). Throws MuJoCoError naming `name`.
  static mjData* MakeData(const mjModel* m, Engine engine, const std::string& name);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  const mjModel* model() const { return m_; }
  mjModel* mutable_model() { return m_; }
  mjData* data() { return d_; }
  const mjData* data() const { return d_; }
  const std::string& source() const { return source_; }
  Engine engine() const { return options_.engine; }
  // The integrator the next step uses: the model's opt.integrator, read at every step (a
  // program may change it between steps; mjINT_IMPLICIT runs MuJoCo's implicit step with
  // the added mass and is reported as kImplicitFast).
  Integrator integrator() const;
  const std::vector<AddedMassBody>& added_mass_bodies() const { return added_mass_; }

  // Advances one time step. Throws DivergenceError when qpos, qvel or qacc stop being
  // finite or exceed 1e10 (MuJoCo has then reset the data to the model's defaults, unless
  // mjDSBL_AUTORESET is set). The model's options (mjOption) are read at every step, so a
  // program may change them between steps; one the stepper cannot honour (a time step
  // that is not positive and finite, no valid integrator, RK4 with sleep or delays, springs
  // and dampers both disabled with marine plugins) throws ConfigError, naming the field and
  // its value, before anything is stepped (Step, TryStep and Forward alike).
  // Every call into MuJoCo (step, forward, reset, load) throws MuJoCoError if MuJoCo
  // raises a fatal error (e.g. its stack arena overflows); the data is then reset.
  void Step();
  // As Step, without exceptions for divergence: false (with a message). No allocation.
  bool TryStep(std::string* error = nullptr);
  // Forward dynamics at the current state (added mass included), without integrating.
  void Forward();
  // Resets to the model's defaults (key -1), or to keyframe `key` (>= 0); a key below -1
  // is a ConfigError.
  void Reset(int key = -1);

  // The nereid.current instance's field in this mjData (nullptr if the model has none).
  CurrentField* current();
  // Replaces the current. Throws ConfigError if the model has no nereid.current instance.
  void SetCurrent(const CurrentField& field);
  // A constant current (m/s, world), without allocating.
  void SetCurrent(const Vec3& velocity);
  // The free-surface elevation eta (world z, m) above (x, y) now (d->time): the waves of
  // the model's nereid.current (a scenario's "waves"), 0 in calm water or without one.
  // What the buoyancy plugin takes as its waterline; nereid-view draws the surface from it
  // (CurrentField::Elevation for another time).
  double SurfaceElevation(double x, double y) const;

  // Domain randomisation: added mass and damping of every nereid.hydrodynamics body times
  // the given factors (> 0), relative to the model; the engine's mass-matrix blocks follow.
  void ScaleHydrodynamics(double added_mass, double damping);

  // Kinetic energy 1/2 qvel^T M qvel, with M including added mass (after Forward/Step).
  double KineticEnergy() const;

  // UK rigid connections ("uk:" welds; include/nereid/uk.h). With kUK: Connect runs a
  // forward pass, activates the connection (capture: at the current relative pose) and
  // projects the velocities impulsively (momentum-conserving); Release frees it. With
  // kMuJoCo they switch the MuJoCo weld (capture rewrites its relpose). Throw ConfigError
  // for an unknown name. Reports: one per "uk:" weld (forces are UK's; empty for kMuJoCo).
  void Connect(const std::string& name, bool capture = true);
  void Release(const std::string& name);
  std::vector<ConnectionReport> ConnectionReports() const;
  ConstraintMethod constraints() const { return options_.constraints; }

  // Warnings MuJoCo raised in this simulation's calls (kept here, never printed).
  const MuJoCoWarnings& mujoco_warnings() const { return warnings_; }

 private:
  // d == nullptr: makes (and owns) the data and owns m; otherwise attaches to both
  Simulation(mjModel* m, mjData* d, std::string source, const SimulationOptions& options,
             MuJoCoWarnings load_warnings = {});
  // The constructor's parts, in order: the options checked and applied to the model (its
  // time step, integrator and keyframe times), the owned mjData made, (FindAddedMass,) the
  // UK connections (engine "nereid" only), the stepper's buffers and plugin lists, the
  // starting state. The first two free the model before they throw; the constructor frees
  // the model and data when one of the others throws.
  void ApplyOptions();
  void MakeOwnedData();
  void CreateUkConnections();
  void PrepareStepper();
  void StartState();
  void FreeModel();
  void FreeData();
  void FindAddedMass();
  void AddInertia();
  // added_mass_[k].added_mass <- the sum of its sources (the hydrodynamics objects own M_A)
  void ReadAddedMass();
  // MuJoCo's position stage with the added mass in d->M before its factorisation
  void PositionStage();
  void ForwardNereid(bool skip_sensor);
  void StepNereid();
  void RungeKutta4();
  void Advance(const mjtNum* act_dot, const mjtNum* qacc, const mjtNum* qvel);
  std::string DivergenceMessage() const;
  // The first of the model's options the stepper cannot honour, said as the user set it,
  // or "" when there is none.
  enum class OptionSource {
    kMjcf,      // a model loaded here: its MJCF <option>
    kAttached,  // a model made elsewhere: the MJCF attribute and the mjModel.opt field
    kChanged,   // changed after loading: the mjModel.opt field
  };
  std::string UnsupportedOption(OptionSource source) const;
  // Before a step or forward pass: UnsupportedOption again when one of the fields it reads
  // changed since the last check (a few comparisons otherwise); throws ConfigError.
  void CheckOptions();
  // UK connections follow the model's equality constraints: off while mjDSBL_CONSTRAINT or
  // mjDSBL_EQUALITY is set, as MuJoCo's welds are.
  bool UkEnabled() const;
  // Runs f under CallMuJoCo; a MuJoCo fatal error resets the data and throws MuJoCoError.
  template <class F>
  void Guarded(const char* what, F&& f);

  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  bool owned_ = true;  // false: Attach'ed to a model and data someone else frees
  std::string source_;
  SimulationOptions options_;
  // the option fields UnsupportedOption read when it last found nothing
  struct CheckedOptions {
    mjtNum timestep = 0;
    int integrator = -1, disableflags = 0, enableflags = 0;
  } checked_;
  std::vector<AddedMassBody> added_mass_;
  // per added-mass block, the M_A of its hydrodynamics objects in d_ (they own it)
  std::vector<std::vector<const Mat6*>> added_mass_sources_;
  int current_instance_ = -1;
  bool skip_rne_post_ = false;  // SensorsSkipRnePost(m_): ForwardNereid leaves it out
  // NereidSensorCalls(m_): ForwardNereid computes the sensors itself, without MuJoCo's stages
  std::optional<SensorCalls> sensor_calls_;
  // one sensor stage (mjSTAGE_POS, VEL, ACC): sensor_calls_'s, else mj_sensorPos/Vel/Acc
  void ComputeSensors(int stage);
  // The model MuJoCo's stages step with (StageModel()): m_ with engine mujoco, else
  // stage_model_, a shallow copy of *m_ (the same arrays). When the model's last plugin
  // instances are Nereid sensors that sensor_calls_ computes, its nplugin leaves them out of
  // the actuator, passive and advance loops that would walk them at every step
  // (PluginsBeforeTrailingSensors; docs/sensors.md "Cost"). Before every step and forward
  // pass (SyncStageModel) it takes m_'s opt and stat and the scalars mj_setConst
  // recomputes, so that changes to the model are honoured; sizes and array pointers never
  // change after compiling.
  std::unique_ptr<mjModel> stage_model_;
  const mjModel* StageModel() const { return stage_model_ ? stage_model_.get() : m_; }
  // The passive plugin instances (FindPassiveCalls), when Nereid's engine may call them
  // itself; own_passive_: it does in this step, because MuJoCo's own passive forces are all
  // zero (MuJoCoPassiveIsZero, checked at every step) and no dof sleeps. The stage model
  // then has springs and dampers disabled around mj_fwdVelocity, so that its mj_passive
  // only clears (src/passive_stage.h).
  std::optional<std::vector<PluginCall>> passive_calls_;
  bool own_passive_ = false;
  // Scratch for the engine's own site transmission (src/site_transmission.h), which the
  // single-pass position stage uses when every actuator is a site without a reference.
  std::vector<int> transmission_chain_;
  void SyncStageModel();
  // mj_forwardSkip's velocity stage and what follows, the passive plugins called directly
  void VelocityOnward(bool skip_sensor);
  std::vector<int> hydrodynamics_instances_;
  double step_start_time_ = 0;  // for divergence messages (MuJoCo resets the time)
  std::vector<mjtNum> rk_buffer_;  // RK4 stage storage, allocated once
  // per added-mass body: J and J^T M_A J scratch, sized once
  std::vector<Eigen::Matrix<double, 6, Eigen::Dynamic>> jacobians_, mass_jacobians_;
  std::vector<Eigen::MatrixXd> inertias_;
  std::unique_ptr<uk::ConstraintSet> uk_;  // kUK with "uk:" welds only
  MuJoCoWarnings warnings_;
};

}  // namespace nereid

#endif  // NEREID_SIMULATION_H_
