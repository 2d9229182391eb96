// Copyright Nereid authors.
// `nereid info MODEL.xml`: what Nereid sees in a model: vehicles (free bodies), their
// marine plugin instances, thrusters and thrust allocation matrix.
#include "cli/info.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "nereid/allocation.h"
#include "nereid/object_names.h"
#include "nereid/plugins.h"
#include "nereid/simulation.h"

namespace nereid {
namespace {

void PrintMatrix(const char* title, const Matrix6X& B, const std::vector<std::string>& names) {
  static const char* const kRows[6] = {"X", "Y", "Z", "K", "M", "N"};
  // columns as wide as the longest actuator name (at least 8), names in full
  int width = 8;
  for (const std::string& n : names) width = std::max(width, static_cast<int>(std::min<size_t>(n.size(), 64)));
  std::printf("    %s\n         ", title);
  for (const std::string& n : names) std::printf(" %*s", width, n.c_str());
  std::printf("\n");
  for (int i = 0; i < 6; ++i) {
    std::printf("      %s  ", kRows[i]);
    for (Eigen::Index j = 0; j < B.cols(); ++j) {
      const double x = B(i, j);
      std::printf(" %*.4f", width, std::abs(x) < 5e-13 ? 0.0 : x);
    }
    std::printf("\n");
  }
}

}  // namespace

int InfoCommand(const std::string& path) {
  auto sim = Simulation::LoadFile(path);
  const mjModel* m = sim->model();
  std::printf("%s: %d bodies, nq %d, nv %d, %d actuators, timestep %g s, MuJoCo %s\n", path.c_str(),
              static_cast<int>(m->nbody), static_cast<int>(m->nq), static_cast<int>(m->nv),
              static_cast<int>(m->nactuator), m->opt.timestep, mj_versionString());
  for (const char* plugin : {kHydrodynamicsPlugin, kBuoyancyPlugin, kCurrentPlugin, kThrusterPlugin}) {
    for (int instance : FindPluginInstances(m, plugin)) {
      std::printf("  %s instance '%s'\n", plugin, PluginInstanceName(m, instance).c_str());
    }
  }
  for (int b = 1; b < m->nbody; ++b) {
    if (m->body_jntnum[b] != 1 || m->jnt_type[m->body_jntadr[b]] != mjJNT_FREE) continue;
    std::printf("vehicle body '%s': mass %.4g kg\n", OutputName(m, mjOBJ_BODY, b).c_str(), m->body_mass[b]);
    for (const AddedMassBody& block : sim->added_mass_bodies()) {
      if (block.body != b) continue;
      std::printf("    added mass diagonal (MuJoCo body frame, about the origin):");
      for (int i = 0; i < 6; ++i) std::printf(" %.4g", block.added_mass(i, i));
      std::printf("\n");
    }
    const ThrusterSet thrusters = FindThrusters(m, b);
    if (thrusters.actuators.empty()) continue;
    std::printf("    %zu thrusters; allocation matrix B (wrench about the body origin per newton)\n",
                thrusters.actuators.size());
    PrintMatrix("MuJoCo body frame (x forward, y left, z up):", thrusters.B, thrusters.names);
    PrintMatrix("SNAME/FRD (x forward, y starboard, z down):", thrusters.B_frd(), thrusters.names);
    std::printf("    thrust limits (N):");
    for (Eigen::Index j = 0; j < thrusters.B.cols(); ++j) {
      std::printf(" [%.4g, %.4g]", thrusters.thrust_min[j], thrusters.thrust_max[j]);
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace nereid
