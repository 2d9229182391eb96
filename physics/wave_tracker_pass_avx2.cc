// Copyright Nereid authors.
// waves::detail::PassAvx2 (wave_tracker_pass.h): the same source as Pass, compiled with
// -mavx2 (physics/CMakeLists.txt, x86-64 only); called only where HaveAvx2().
#include <algorithm>
#include <cmath>

#include "wave_tracker_pass.h"

#define NEREID_PASS_NAME PassAvx2
#include "wave_tracker_pass.inc"
