// Copyright Nereid authors.
// nereid._nereid: Python bindings of the C++ batch environments (pybind11). The
// observation, reward and flag arrays are NumPy views of the batch's own buffers (no copy);
// they stay valid while the BatchEnv lives and are overwritten by every reset and step.
// Calls release the GIL; calls on one BatchEnv from several Python threads run one at a
// time (a view read meanwhile shows whichever step finished last).
#include <cstdint>
#include <mutex>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "nereid/error.h"
#include "nereid/rl.h"

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

}  // namespace

PYBIND11_MODULE(_nereid, m) {
  m.doc() = "Nereid's C++ reinforcement-learning environments";
  auto& error = py::register_exception<nereid::Error>(m, "Error", PyExc_ValueError);
  // MuJoCo raised a fatal error (mju_error) in a step: a nereid.Error, never a process exit
  py::register_exception<nereid::MuJoCoError>(m, "MuJoCoError", error.ptr());

  m.def("tasks", [] {
    py::list out;
    for (const nereid::rl::TaskSpec& spec : nereid::rl::Tasks()) {
      py::dict d;
      d["id"] = spec.id;
      d["model"] = spec.model;
      d["description"] = spec.description;
      d["frame_skip"] = spec.frame_skip;
      d["max_episode_steps"] = spec.max_episode_steps;
      out.append(d);
    }
    return out;
  }, "The task registry: a list of dicts (id, model, description, frame_skip, max_episode_steps).");
  m.def("default_model_dir", &nereid::rl::DefaultModelDir);

  py::class_<BatchEnv>(m, "BatchEnv")
      .def(py::init<const std::string&, int, int, const std::string&>(), py::arg("task"),
           py::arg("num_envs") = 1, py::arg("num_threads") = 1,
           py::arg("model_dir") = nereid::rl::DefaultModelDir())
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
