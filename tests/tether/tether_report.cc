// Copyright Nereid authors.
// nereid_tether_report SCENARIO.json OUT_DIR: runs a scenario whose model has a lumped
// nereid.tether, the way `nereid run` does (scenario inputs and controller before every
// step), and writes the data behind tools/plot_tether.py:
//   OUT_DIR/tether_shape.csv    time,node,x,y,z,tension (snapshots)
//   OUT_DIR/tether_tension.csv  time,vehicle_fx,vehicle_fy,vehicle_fz,tension_vehicle,
//                               tension_anchor,vehicle_x,vehicle_y,vehicle_z
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "nereid/error.h"
#include "nereid/plugins.h"
#include "nereid/scenario.h"
#include "nereid/simulation.h"
#include "nereid/tether.h"

int main(int argc, char** argv) {
  using namespace nereid;
  if (argc != 3) {
    std::cerr << "usage: nereid_tether_report SCENARIO.json OUT_DIR\n";
    return 2;
  }
  try {
    Scenario scenario = Scenario::FromFile(argv[1]);
    SimulationOptions options;
    if (scenario.engine) options.engine = *scenario.engine;
    options.integrator = scenario.integrator;
    options.timestep = scenario.dt;
    auto sim = Simulation::LoadFile(scenario.model, options);
    scenario.Apply(*sim);
    int body = -1;
    std::unique_ptr<PathController> follower = scenario.MakeController(*sim, &body);
    const mjModel* m = sim->model();
    mjData* d = sim->data();
    const std::vector<int> tethers = FindPluginInstances(m, kTetherPlugin);
    if (tethers.empty()) throw ConfigError(scenario.model + ": no nereid.tether instance");
    const int instance = tethers.front();
    std::filesystem::create_directories(argv[2]);
    std::ofstream shape(std::filesystem::path(argv[2]) / "tether_shape.csv");
    std::ofstream tension(std::filesystem::path(argv[2]) / "tether_tension.csv");
    shape << "time,node,x,y,z,tension\n";
    tension << "time,vehicle_fx,vehicle_fy,vehicle_fz,tension_vehicle,tension_anchor,"
               "vehicle_x,vehicle_y,vehicle_z\n";
    const double duration = scenario.duration.value_or(10);
    const long steps = std::lround(duration / m->opt.timestep);
    const long every = std::max(1L, std::lround(0.1 / m->opt.timestep));
    const std::vector<double> snapshots = {0, 2, 5, 10, 20, 40, duration};
    size_t next_snapshot = 0;
    for (long k = 0; k <= steps; ++k) {
      if (k > 0) {
        scenario.ApplyInputs(*sim, d->time);
        if (follower) follower->Update(m, d, body, m->opt.timestep);
        sim->Step();
      } else {
        sim->Forward();
      }
      const bool snap = next_snapshot < snapshots.size() && d->time >= snapshots[next_snapshot] - 1e-9;
      if (k % every && !snap) continue;
      const tether::Readout r = tether::Read(m, d, instance);
      const int b = body >= 0 ? body : 1;
      tension << d->time << "," << r.vehicle_force.x() << "," << r.vehicle_force.y() << ","
              << r.vehicle_force.z() << "," << r.tension.back() << "," << r.tension.front()
              << "," << d->xpos[3 * b] << "," << d->xpos[3 * b + 1] << "," << d->xpos[3 * b + 2]
              << "\n";
      if (snap) {
        for (size_t i = 0; i < r.nodes.size(); ++i) {
          shape << d->time << "," << i << "," << r.nodes[i].x() << "," << r.nodes[i].y() << ","
                << r.nodes[i].z() << "," << r.tension[i] << "\n";
        }
        ++next_snapshot;
      }
    }
    std::cout << "wrote " << argv[2] << "/tether_shape.csv and tether_tension.csv\n";
  } catch (const Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
