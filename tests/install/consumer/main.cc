// A project outside Nereid's tree: find_package(nereid), load an installed model, step it.
#include <cmath>
#include <cstdio>

#include "nereid/simulation.h"

int main() {
  auto sim = nereid::Simulation::LoadFile(MODEL_DIR "/bluerov/bluerov.xml");
  sim->Reset(0);
  for (int k = 0; k < 200; ++k) sim->Step();
  const double z = sim->data()->qpos[2];
  const bool ok = std::isfinite(z) && !sim->added_mass_bodies().empty();
  std::printf("consumer: z = %.6f after %.2f s -> %s\n", z, sim->data()->time, ok ? "ok" : "FAILED");
  std::printf("%d passed, %d failed\n", ok ? 1 : 0, ok ? 0 : 1);
  return ok ? 0 : 1;
}
