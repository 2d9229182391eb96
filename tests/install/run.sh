#!/usr/bin/env bash
# Installs the build into a scratch prefix, builds tests/install/consumer against it with
# find_package(nereid), and runs the consumer. Args: BUILD_DIR WORK_DIR CONSUMER_SOURCE.
set -euo pipefail
build="$1"; work="$2"; consumer="$3"
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/consumer" -j 2 >/dev/null
"$work/consumer/consumer"
