# Sourced by scripts/bootstrap.sh and scripts/sanitize.sh: the generator a build folder is
# configured with. Ninja where installed (the bootstrap installs it) unless CMAKE_GENERATOR
# names another: one graph of every target's objects, where the Makefiles build target
# after target and leave a core idle while a target's last object compiles (a fresh build
# 521 s -> 469 s on 2 cores, one run each; docs/design.md "CI time budget"). A folder
# configured before keeps its generator.
nereid_generator() {  # build folder; sets the array `generator` (-G arguments, or none)
  generator=()
  if [ ! -f "$1/CMakeCache.txt" ] && [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
  fi
}
