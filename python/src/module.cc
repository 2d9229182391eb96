// Copyright Nereid authors.
// nereid._nereid: Python bindings (pybind11) of
//   - the C++ batch environments. The observation, reward and flag arrays are NumPy views
//     of the batch's own buffers (no copy); they stay valid while the BatchEnv lives and
//     are overwritten by every reset and step;
//   - Nereid's stepper on MuJoCo's own Python objects (Stepper: nereid::Simulation::Attach
//     on mujoco.MjModel / mujoco.MjData, found through their `_address`), and the compile
//     step behind nereid.load (docs/python.md).
// Calls that step release the GIL; calls on one BatchEnv or Stepper from several Python
// threads run one at a time (a view read meanwhile shows whichever step finished last).
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "nereid/allocation.h"
#include "nereid/error.h"
#include "nereid/object_names.h"
#include "nereid/plugins.h"
#include "nereid/rl.h"
#include "nereid/rollout.h"
#include "nereid/runner.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"

namespace py = pybind11;

namespace {

// The C++ batch with a lock: the binding releases the GIL, so Python threads sharing one
// environment would otherwise step it concurrently.
class BatchEnv : public nereid::rl::BatchEnv {
 public:
  using nereid::rl::BatchEnv::BatchEnv;
  std::mutex mutex;
};

template <class T>
py::array View(py::object owner, T* data, py::ssize_t rows, py::ssize_t cols) {
  if (cols == 0) {
    return py::array_t<T>({rows}, {static_cast<py::ssize_t>(sizeof(T))}, data, owner);
  }
  return py::array_t<T>({rows, cols},
                        {static_cast<py::ssize_t>(sizeof(T)) * cols, static_cast<py::ssize_t>(sizeof(T))},
                        data, owner);
}

const float* CheckedActions(BatchEnv& env, const py::array_t<float, py::array::c_style | py::array::forcecast>& a) {
  const py::ssize_t expected = static_cast<py::ssize_t>(env.num_envs()) * env.action_size();
  if (a.size() != expected) {
    throw py::value_error("actions: expected " + std::to_string(env.num_envs()) + " x " +
                          std::to_string(env.action_size()) + " values, got " + std::to_string(a.size()));
  }
  return a.data();
}

// `with nereid.engine_scope():` (mjData made inside leaves added mass to Nereid's engine)
thread_local std::vector<std::unique_ptr<nereid::EngineScope>> g_engine_scopes;

template <class T>
T* Address(const py::object& object, const char* what) {
  if (!py::hasattr(object, "_address")) {
    throw py::type_error(std::string(what) + ": expected a mujoco." +
                         (std::string(what) == "model" ? "MjModel" : "MjData") + ", got " +
                         py::repr(object).cast<std::string>().substr(0, 80));
  }
  return reinterpret_cast<T*>(object.attr("_address").cast<uintptr_t>());
}

// The mjData of `data`, which must have been made for `m` (else a ValueError).
mjData* DataFor(const mjModel* m, const py::object& data) {
  mjData* d = Address<mjData>(data, "data");
  if (Address<mjModel>(data.attr("model"), "model") != m) {
    throw py::value_error("data: this mujoco.MjData was made for another mujoco.MjModel");
  }
  return d;
}

// Nereid's stepper on a mujoco.MjModel and mujoco.MjData, which it keeps alive.
class Stepper {
 public:
  Stepper(py::object model, py::object data, const nereid::SimulationOptions& options,
          const std::string& name)
      : model_(std::move(model)), data_(std::move(data)) {
    mjModel* m = Address<mjModel>(model_, "model");
    mjData* d = DataFor(m, data_);
    sim_ = nereid::Simulation::Attach(m, d, options, name);
  }
  void Step(long n) {
    if (n < 0) throw py::value_error("nstep must be >= 0, got " + std::to_string(n));
    nereid::CheckControls(sim_->model(), sim_->data()->ctrl, "data.ctrl");
    py::gil_scoped_release release;
    const std::lock_guard<std::mutex> lock(mutex_);
    for (long k = 0; k < n; ++k) sim_->Step();
  }
  void Forward() {
    nereid::CheckControls(sim_->model(), sim_->data()->ctrl, "data.ctrl");
    py::gil_scoped_release release;
    const std::lock_guard<std::mutex> lock(mutex_);
    sim_->Forward();
  }
  void Reset(int key) {
    if (key >= sim_->model()->nkey) {
      throw py::value_error("key " + std::to_string(key) + ": the model has " +
                            std::to_string(sim_->model()->nkey) + " keyframes");
    }
    const std::lock_guard<std::mutex> lock(mutex_);
    sim_->Reset(key);
  }
  void ApplyScenario(const std::string& path) {
    const std::lock_guard<std::mutex> lock(mutex_);
    nereid::Scenario scenario = nereid::Scenario::FromFile(path);
    scenario.Apply(*sim_);
  }
  nereid::Simulation& sim() { return *sim_; }
  // held by every call that reads or writes the data (a step may run with the GIL released)
  std::unique_lock<std::mutex> Lock() { return std::unique_lock<std::mutex>(mutex_); }
  const py::object& model() const { return model_; }
  const py::object& data() const { return data_; }

 private:
  py::object model_, data_;
  std::unique_ptr<nereid::Simulation> sim_;
  std::mutex mutex_;
};

std::optional<nereid::ConstraintMethod> ParseConstraints(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  nereid::ConstraintMethod method;
  if (!nereid::ParseConstraintMethod(*text, &method)) {
    throw py::value_error("constraints: expected 'mujoco' or 'uk', got '" + *text + "'");
  }
  return method;
}

nereid::SimulationOptions Options(const std::optional<std::string>& engine,
                                  const std::optional<std::string>& constraints,
                                  const std::optional<std::string>& integrator,
                                  std::optional<double> timestep) {
  nereid::SimulationOptions options;
  if (engine && !nereid::ParseEngine(*engine, &options.engine)) {
    throw py::value_error("engine: expected 'nereid' or 'mujoco', got '" + *engine + "'");
  }
  options.constraints = ParseConstraints(constraints).value_or(options.constraints);
  if (integrator) {
    nereid::Integrator i;
    if (!nereid::ParseIntegrator(*integrator, &i)) {
      throw py::value_error("integrator: expected 'euler', 'rk4' or 'implicitfast', got '" + *integrator + "'");
    }
    options.integrator = i;
  }
  options.timestep = timestep;
  return options;
}

// How many objects of `type` the model has, for the kinds Nereid names in its outputs
// (trajectory.csv, the ROS bridge's topics, the viewer); -1 for any other kind.
mjtSize OutputObjectCount(const mjModel* m, int type) {
  switch (type) {
    case mjOBJ_BODY: return m->nbody;
    case mjOBJ_JOINT: return m->njnt;
    case mjOBJ_GEOM: return m->ngeom;
    case mjOBJ_SITE: return m->nsite;
    case mjOBJ_ACTUATOR: return m->nu;
    case mjOBJ_SENSOR: return m->nsensor;
    default: return -1;
  }
}

// The module's functions: the task list, the model folder, the engine scope, the compile
// step behind nereid.load and the rollouts
void BindFunctions(py::module_& m) {
  m.def("tasks", [] {
    py::list out;
    for (const nereid::rl::TaskSpec& spec : nereid::rl::Tasks()) {
      py::dict d;
      d["id"] = spec.id;
      d["model"] = spec.model;
      d["sensors_model"] = spec.ModelFor(nereid::rl::Observation::kSensors);
      d["description"] = spec.description;
      d["frame_skip"] = spec.frame_skip;
      d["max_episode_steps"] = spec.max_episode_steps;
      out.append(d);
    }
    return out;
  }, "The task registry: a list of dicts (id, model, description, frame_skip, max_episode_steps).");
  m.def("default_model_dir", &nereid::rl::DefaultModelDir);

  m.def("_engine_scope_enter", [] { g_engine_scopes.push_back(std::make_unique<nereid::EngineScope>()); });
  m.def("_engine_scope_exit", [] {
    if (!g_engine_scopes.empty()) g_engine_scopes.pop_back();
  });
  // the reason a Nereid plugin gave for failing to load, kept (not printed) inside a scope;
  // "" when none since the last call
  m.def("_take_last_plugin_error", &nereid::TakeLastPluginError);
  // MODEL.xml or SCENARIO.json -> (address of an mjModel the caller must wrap with
  // mujoco.MjModel._from_model_ptr, which takes ownership; the scenario or None; the
  // resolved settings as a dict)
  m.def("_compile", [](const std::string& input, std::optional<std::string> constraints) {
    nereid::ResolvedInput in =
        nereid::ResolveInput(input, std::nullopt, std::nullopt, std::nullopt, ParseConstraints(constraints));
    mjModel* model = nereid::Simulation::CompileFile(in.model, in.options);
    py::dict settings;
    settings["model"] = in.model;
    settings["engine"] = std::string(nereid::ToString(in.options.engine));
    settings["constraints"] = std::string(nereid::ToString(in.options.constraints));
    settings["integrator"] = in.options.integrator ? py::object(py::str(std::string(nereid::ToString(*in.options.integrator)))) : py::none();
    settings["timestep"] = in.options.timestep ? py::object(py::float_(*in.options.timestep)) : py::none();
    settings["scenario"] = in.scenario ? py::object(py::str(in.scenario->source)) : py::none();
    return py::make_tuple(reinterpret_cast<uintptr_t>(model), settings);
  }, py::arg("input"), py::arg("constraints") = py::none());

  // rollouts: initial_state (nroll, nstate), control (nroll, nstep, nu) -> state
  // (nroll, nstep, nstate), sensordata (nroll, nstep, nsensordata); python/nereid/engine.py
  // checks and broadcasts the shapes
  m.def("_rollout", [](py::object model, const py::array_t<double, py::array::c_style | py::array::forcecast>& initial_state,
                       const py::array_t<double, py::array::c_style | py::array::forcecast>& control, long nstep,
                       int nthread, std::optional<std::string> engine, std::optional<std::string> constraints) {
    mjModel* mm = Address<mjModel>(model, "model");
    const nereid::RolloutSizes n = nereid::RolloutSizesOf(mm);
    const long nroll = initial_state.ndim() == 2 ? static_cast<long>(initial_state.shape(0)) : -1;
    if (nroll < 0 || initial_state.shape(1) != n.nstate) {
      throw py::value_error("initial_state: expected shape (nroll, " + std::to_string(n.nstate) + ")");
    }
    if (n.nu > 0 && (control.ndim() != 3 || control.shape(0) != nroll || control.shape(1) != nstep ||
                     control.shape(2) != n.nu)) {
      throw py::value_error("control: expected shape (" + std::to_string(nroll) + ", " + std::to_string(nstep) +
                            ", " + std::to_string(n.nu) + ")");
    }
    const nereid::SimulationOptions options = Options(engine, constraints, std::nullopt, std::nullopt);
    if (nroll > nereid::kMaxRollouts || nstep > nereid::kMaxRolloutSteps || nstep < 0) {
      nereid::Rollout(mm, nroll, nstep, nullptr, nullptr, nullptr, nullptr, nthread, options);  // says why
    }
    py::array_t<double> state({static_cast<py::ssize_t>(nroll), static_cast<py::ssize_t>(nstep),
                               static_cast<py::ssize_t>(n.nstate)});
    py::array_t<double> sensors({static_cast<py::ssize_t>(nroll), static_cast<py::ssize_t>(nstep),
                                 static_cast<py::ssize_t>(n.nsensordata)});
    const double* init = initial_state.data();
    const double* ctrl = n.nu > 0 ? control.data() : nullptr;
    double* out_state = state.mutable_data();
    double* out_sensors = sensors.mutable_data();
    {
      py::gil_scoped_release release;
      nereid::Rollout(mm, nroll, nstep, init, ctrl, out_state, out_sensors, nthread, options);
    }
    return py::make_tuple(state, sensors);
  }, py::arg("model"), py::arg("initial_state"), py::arg("control"), py::arg("nstep"), py::arg("nthread"),
     py::arg("engine") = py::none(), py::arg("constraints") = py::none());
  // nereid::OutputName: an object's name in Nereid's outputs (ros.py's topics, the viewer)
  m.def("_output_name", [](py::object model, int type, int id) {
    const mjModel* mm = Address<mjModel>(model, "model");
    const mjtSize count = OutputObjectCount(mm, type);
    if (count < 0) throw py::value_error("_output_name: object type " + std::to_string(type) + " is not named in outputs");
    if (id < 0 || id >= count) {
      throw py::value_error("_output_name: id " + std::to_string(id) + " is not a " + mju_type2Str(type) +
                            " of the model (0.." + std::to_string(count - 1) + ")");
    }
    return nereid::OutputName(mm, static_cast<mjtObj>(type), id);
  });
  m.def("set_exact_sensors", [](py::object model, py::object data, bool exact) {
    const mjModel* mm = Address<mjModel>(model, "model");
    nereid::SetSensorsExact(mm, DataFor(mm, data), exact);
  }, py::arg("model"), py::arg("data"), py::arg("exact") = true,
     "Makes every Nereid sensor of `data` exact (no noise, bias, quantisation or dropout; rates, "
     "latency and limits stay), or as configured again with exact=False, and restarts them: they "
     "sample anew at the next step or forward. The same as NEREID_EXACT_SENSORS=1 when the data is "
     "made, or `nereid run --exact-sensors` (docs/sensors.md).");
  m.def("_state_size", [](py::object model) { return nereid::RolloutSizesOf(Address<mjModel>(model, "model")).nstate; });
}

// nereid.Stepper: Nereid's stepper on MuJoCo's Python objects
// Stepper.set_current: a constant water current, world frame, m/s (finite).
void SetCurrent(Stepper& s, double vx, double vy, double vz) {
  const double v[3] = {vx, vy, vz};
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(v[i])) {
      throw py::value_error(std::string("set_current: ") + "xyz"[i] + " velocity v" + "xyz"[i] +
                            " is " + std::to_string(v[i]) + "; expected a finite number (m/s)");
    }
  }
  const auto lock = s.Lock();
  s.sim().SetCurrent(nereid::Vec3(vx, vy, vz));
}

// Stepper.plugin_wrenches: what the passive plugins applied in the last forward pass
// (include/nereid/plugins.h), one dict per wrench.
py::list PluginWrenches(Stepper& s) {
  const auto lock = s.Lock();
  const mjModel* mm = s.sim().model();
  const mjData* d = s.sim().data();
  py::list out;
  auto add = [&](int i, const char* kind, const nereid::PluginWrench& w) {
    py::dict e;
    e["instance"] = nereid::PluginInstanceName(mm, i);
    e["kind"] = kind;
    e["body"] = w.body;
    e["force"] = py::make_tuple(w.force.x(), w.force.y(), w.force.z());
    e["torque"] = py::make_tuple(w.torque.x(), w.torque.y(), w.torque.z());
    e["point"] = py::make_tuple(w.point.x(), w.point.y(), w.point.z());
    out.append(e);
  };
  for (int i = 0; i < mm->nplugin; ++i) {
    nereid::PluginWrench w;
    if (nereid::LastPluginWrench(mm, d, i, &w, nereid::WrenchPart::kDamping)) {  // hydrodynamics
      add(i, "damping", w);
      if (nereid::LastPluginWrench(mm, d, i, &w, nereid::WrenchPart::kAddedMass)) add(i, "added_mass", w);
    } else if (nereid::LastPluginWrench(mm, d, i, &w)) {  // buoyancy
      add(i, "buoyancy", w);
    }
  }
  return out;
}

// Stepper.connections: the UK connections' forces and errors, one dict each.
py::list Connections(Stepper& s) {
  const auto lock = s.Lock();
  py::list out;
  for (const nereid::ConnectionReport& r : s.sim().ConnectionReports()) {
    py::dict e;
    e["name"] = r.name;
    e["active"] = r.active;
    e["body1"] = r.body1;
    e["body2"] = r.body2;
    e["force"] = py::make_tuple(r.force.x(), r.force.y(), r.force.z());
    e["torque"] = py::make_tuple(r.torque.x(), r.torque.y(), r.torque.z());
    e["point"] = py::make_tuple(r.point.x(), r.point.y(), r.point.z());
    e["position_error"] = r.position_error;
    e["angle_error"] = r.angle_error;
    out.append(e);
  }
  return out;
}

// Stepper.drive's body: a name (str) or a body id (an int or a NumPy integer; not a bool,
// which Python would otherwise take as id 0 or 1), within 1..nbody-1.
int DrivenBody(const mjModel* mm, const py::object& body) {
  if (py::isinstance<py::str>(body)) {
    const std::string name = body.cast<std::string>();
    const int b = mj_name2id(mm, mjOBJ_BODY, name.c_str());
    if (b < 0) throw py::value_error("drive: no body named '" + nereid::Excerpt(name) + "'");
    return b;
  }
  if (py::isinstance<py::bool_>(body) || !PyIndex_Check(body.ptr())) {
    throw py::type_error("drive: body must be a body name (str) or a body id (int), not " +
                         std::string(py::str(py::type::of(body).attr("__name__"))));
  }
  const py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(body.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long b = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0 || b < 1 || b >= mm->nbody) {
    throw py::value_error("drive: body id " + nereid::Excerpt(std::string(py::str(index))) +
                          " is not a body of the model (1.." + std::to_string(mm->nbody - 1) + ")");
  }
  return static_cast<int>(b);
}

// Stepper.drive: the thrusters of `body` (a name or an id) set for a body-frame wrench
// through the thrust allocation; returns the thrusts (N).
std::vector<double> Drive(Stepper& s, const py::object& body, const std::vector<double>& wrench) {
  const mjModel* mm = s.sim().model();
  const int b = DrivenBody(mm, body);
  const std::string name = nereid::OutputName(mm, mjOBJ_BODY, b);
  if (wrench.size() != 6) throw py::value_error("drive: expected 6 values [fx fy fz tx ty tz] (body frame)");
  for (size_t i = 0; i < 6; ++i) {
    if (!std::isfinite(wrench[i])) {
      static constexpr const char* kNames[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};
      throw py::value_error("drive: wrench " + std::string(kNames[i]) + " (index " + std::to_string(i) +
                            ") is " + std::to_string(wrench[i]) + "; expected a finite number");
    }
  }
  const nereid::ThrusterSet set = nereid::FindThrusters(mm, b);
  if (set.actuators.empty()) throw py::value_error("drive: body '" + name + "' has no nereid.thruster actuators");
  const auto lock = s.Lock();
  nereid::Vec6 tau;
  for (int i = 0; i < 6; ++i) tau[i] = wrench[static_cast<size_t>(i)];
  const Eigen::VectorXd thrust = nereid::Allocate(set.B, tau, set.thrust_min, set.thrust_max);
  set.SetCommands(mm, s.sim().data(), thrust);
  return std::vector<double>(thrust.data(), thrust.data() + thrust.size());
}

void BindStepper(py::module_& m) {
  py::class_<Stepper>(m, "Stepper", R"(Nereid's stepper on a mujoco.MjModel and mujoco.MjData.

Steps them in place (added mass in the mass matrix, RK4 with added mass in every stage, UK
connections with constraints='uk'); nothing is copied. The data must come from
nereid.make_data (or nereid.load). It keeps both alive.)")
      .def(py::init([](py::object model, py::object data, std::optional<std::string> engine,
                       std::optional<std::string> constraints, std::optional<std::string> integrator,
                       std::optional<double> timestep, const std::string& name) {
             return std::make_unique<Stepper>(model, data, Options(engine, constraints, integrator, timestep), name);
           }), py::arg("model"), py::arg("data"), py::kw_only(), py::arg("engine") = py::none(),
           py::arg("constraints") = py::none(), py::arg("integrator") = py::none(),
           py::arg("timestep") = py::none(), py::arg("name") = "<python>")
      .def("step", &Stepper::Step, py::arg("nstep") = 1, "Advances nstep time steps (GIL released).")
      .def("forward", &Stepper::Forward, "Forward dynamics at the current state, added mass included.")
      .def("reset", &Stepper::Reset, py::arg("key") = -1,
           "Resets to the model's defaults, or to keyframe `key` (>= 0), then a forward pass.")
      .def("_apply_scenario", &Stepper::ApplyScenario, py::arg("path"))
      .def("set_current", &SetCurrent, py::arg("vx"), py::arg("vy"), py::arg("vz"),
           "A constant water current, world frame, m/s.")
      .def("kinetic_energy", [](Stepper& s) {
             const auto lock = s.Lock();
             return s.sim().KineticEnergy();
           },
           "1/2 qvel^T M qvel with M including added mass (after forward or step).")
      .def("plugin_wrenches", &PluginWrenches,
           "The wrenches Nereid's passive plugins applied in the last forward pass: dicts with "
           "instance, kind (damping, added_mass, buoyancy), body, force and torque (world), point.")
      .def("connections", &Connections,
           "UK connections (constraints='uk'): name, active, bodies, the constraint force and "
           "couple on body1 at the connection point (world), and the errors.")
      .def("drive", &Drive, py::arg("body"), py::arg("wrench"),
           "Sets the thrusters of `body` (its name, or its id, e.g. for a nameless body) for a body-frame "
           "wrench [fx fy fz tx ty tz] (N, N m) through the thrust allocation; returns the thrusts (N).")
      .def_property_readonly("engine", [](Stepper& s) { return std::string(nereid::ToString(s.sim().engine())); })
      .def_property_readonly("integrator", [](Stepper& s) {
             // the model's opt.integrator, which the next step uses
             if (s.sim().model()->opt.integrator == mjINT_IMPLICIT) return std::string("implicit");
             return std::string(nereid::ToString(s.sim().integrator()));
           })
      .def_property_readonly("constraints", [](Stepper& s) { return std::string(nereid::ToString(s.sim().constraints())); })
      .def_property_readonly("model", &Stepper::model)
      .def_property_readonly("data", &Stepper::data)
      .def_property_readonly("mujoco_warnings", [](Stepper& s) { return s.sim().mujoco_warnings().messages(); });
}

// nereid.BatchEnv: the C++ batch environments, their arrays as NumPy views
void BindBatchEnv(py::module_& m) {
  py::class_<BatchEnv>(m, "BatchEnv")
      .def(py::init([](const std::string& task, int num_envs, int num_threads, const std::string& model_dir,
                       const std::string& observation) {
             return std::make_unique<BatchEnv>(task, num_envs, num_threads, model_dir,
                                               nereid::rl::ParseObservation(observation));
           }), py::arg("task"), py::arg("num_envs") = 1, py::arg("num_threads") = 1,
           py::arg("model_dir") = nereid::rl::DefaultModelDir(), py::arg("observation") = "state")
      .def_property_readonly("observation", [](BatchEnv& e) {
             return std::string(nereid::rl::ToString(e.env(0).observation()));
           })
      .def_property_readonly("num_envs", &BatchEnv::num_envs)
      .def_property_readonly("num_threads", &BatchEnv::num_threads)
      .def_property_readonly("observation_size", &BatchEnv::observation_size)
      .def_property_readonly("action_size", &BatchEnv::action_size)
      .def_property_readonly("max_episode_steps", [](BatchEnv& e) { return e.spec().max_episode_steps; })
      .def("reset", [](BatchEnv& e, uint64_t seed) {
             py::gil_scoped_release release;
             const std::lock_guard<std::mutex> lock(e.mutex);
             e.Reset(seed);
           }, py::arg("seed"))
      .def("step", [](BatchEnv& e, const py::array_t<float, py::array::c_style | py::array::forcecast>& a) {
             const float* actions = CheckedActions(e, a);
             py::gil_scoped_release release;
             const std::lock_guard<std::mutex> lock(e.mutex);
             e.Step(actions);
           }, py::arg("actions"))
      .def("scripted_actions", [](BatchEnv& e) {
             py::array_t<float> out({e.num_envs(), e.action_size()});
             float* data = out.mutable_data();
             {
               py::gil_scoped_release release;
               const std::lock_guard<std::mutex> lock(e.mutex);
               e.ScriptedActions(data);
             }
             return out;
           })
      .def("qpos", [](BatchEnv& e, int i) {
             if (i < 0 || i >= e.num_envs()) throw py::index_error("env " + std::to_string(i) + " of " + std::to_string(e.num_envs()));
             const std::lock_guard<std::mutex> lock(e.mutex);
             const nereid::Simulation& sim = e.env(i).simulation();
             return py::array_t<double>(sim.model()->nq, sim.data()->qpos);
           }, py::arg("env"), "A copy of environment `env`'s qpos (for rendering).")
      .def("sensordata", [](BatchEnv& e, int i) {
             if (i < 0 || i >= e.num_envs()) throw py::index_error("env " + std::to_string(i) + " of " + std::to_string(e.num_envs()));
             const std::lock_guard<std::mutex> lock(e.mutex);
             const nereid::Simulation& sim = e.env(i).simulation();
             return py::array_t<double>(sim.model()->nsensordata, sim.data()->sensordata);
           }, py::arg("env"), "A copy of environment `env`'s sensordata (MuJoCo's layout of its model).")
      .def_property_readonly("observations", [](py::object self) {
             BatchEnv& e = self.cast<BatchEnv&>();
             return View(self, e.observations(), e.num_envs(), e.observation_size());
           })
      .def_property_readonly("final_observations", [](py::object self) {
             BatchEnv& e = self.cast<BatchEnv&>();
             return View(self, e.final_observations(), e.num_envs(), e.observation_size());
           })
      .def_property_readonly("rewards", [](py::object self) {
             BatchEnv& e = self.cast<BatchEnv&>();
             return View(self, e.rewards(), e.num_envs(), 0);
           })
      .def_property_readonly("terminated", [](py::object self) {
             BatchEnv& e = self.cast<BatchEnv&>();
             return View(self, e.terminated(), e.num_envs(), 0).attr("view")("bool");
           })
      .def_property_readonly("truncated", [](py::object self) {
             BatchEnv& e = self.cast<BatchEnv&>();
             return View(self, e.truncated(), e.num_envs(), 0).attr("view")("bool");
           })
      .def_property_readonly("diverged", [](py::object self) {
             BatchEnv& e = self.cast<BatchEnv&>();
             return View(self, e.diverged(), e.num_envs(), 0).attr("view")("bool");
           });
}

}  // namespace

PYBIND11_MODULE(_nereid, m) {
  m.doc() = "Nereid's C++ reinforcement-learning environments";
  auto& error = py::register_exception<nereid::Error>(m, "Error", PyExc_ValueError);
  // MuJoCo raised a fatal error (mju_error) in a step: a nereid.Error, never a process exit
  py::register_exception<nereid::MuJoCoError>(m, "MuJoCoError", error.ptr());
  // the state stopped being finite (or exceeded 1e10) in a step; MuJoCo reset the data
  py::register_exception<nereid::DivergenceError>(m, "DivergenceError", error.ptr());
  BindFunctions(m);
  BindStepper(m);
  BindBatchEnv(m);
}
