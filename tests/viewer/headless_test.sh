#!/usr/bin/env bash
# End to end: nereid-view --headless renders the BlueROV2 Heavy (and the default scenario)
# offscreen under Xvfb with Mesa, and nereid_view_check inspects the screenshots.
# Usage: headless_test.sh NEREID_VIEW NEREID_VIEW_CHECK SOURCE_DIR OUT_DIR
set -uo pipefail
view="$1" check="$2" src="$3" out="$4"
mkdir -p "$out"
rm -f "$out"/*.png "$out"/*.json
model="$src/models/bluerov2_heavy/bluerov2_heavy.xml"
scenario="$src/scenarios/default.json"

# a virtual display when there is none
run_x=()
if [ -z "${DISPLAY:-}" ]; then run_x=(xvfb-run -a -s "-screen 0 1280x1024x24"); fi

passed=0 failed=0
check() {  # check DESCRIPTION COMMAND...: a check of this script's own
  if "${@:2}"; then echo "PASS $1"; passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}
view() {  # view NAME ARGS...: a headless run writing NAME.png and NAME.json
  local name="$1"; shift
  "${run_x[@]}" "$view" "$@" --headless --width 640 --height 360 \
    --screenshot "$out/$name.png" --report "$out/$name.json"
}
inspect() {  # inspect ARGS...: nereid_view_check, its counts added to ours
  local log; log="$("$check" "$@")"; echo "$log"
  local last; last="$(tail -n 1 <<<"$log")"
  if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
  else
    echo "FAIL nereid_view_check $*"; failed=$((failed + 1))
  fi
}

# the model at rest: weight and buoyancy, against a baseline without overlays
check "model, weight + buoyancy: exit 0" view restoring "$model" --frames 30 --overlay weight,buoyancy
check "model, no overlays: exit 0" view plain "$model" --frames 30 --overlay none
inspect "$out/restoring.json" --baseline "$out/plain.png" --expect weight --expect buoyancy
inspect "$out/plain.json"

# the default scenario after 2 s of a 20 N surge push in a 0.2 m/s current
check "scenario, damping + current: exit 0" view moving "$scenario" --frames 120 --overlay damping,current
check "scenario, no overlays: exit 0" view still "$scenario" --frames 120 --overlay none
inspect "$out/moving.json" --baseline "$out/still.png" --expect damping --expect current

# errors: the same messages and exit status as `nereid run`
"$view" "$out/missing.xml" --headless >"$out/err.txt" 2>&1
status=$?
check "a missing model: exit 1" test "$status" -eq 1
check "a missing model: message names the file" grep -q "nereid-view: error: .*missing.xml" "$out/err.txt"
"$view" "$model" --overlay drag >"$out/err.txt" 2>&1
status=$?
check "an unknown overlay: exit 2" test "$status" -eq 2
check "an unknown overlay: message names it" grep -q "'drag'" "$out/err.txt"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
