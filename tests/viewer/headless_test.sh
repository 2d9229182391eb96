#!/usr/bin/env bash
# End to end: nereid-view --headless renders the BlueROV2 Heavy (and the default scenario)
# offscreen under Xvfb with Mesa, and nereid_view_check inspects the screenshots.
# Usage: headless_test.sh NEREID_VIEW NEREID_VIEW_CHECK SOURCE_DIR OUT_DIR NEREID
set -uo pipefail
# one virtual display for the whole script when there is none (an Xvfb per run cost about
# a second each)
if [ -z "${DISPLAY:-}" ]; then exec xvfb-run -a -s "-screen 0 1280x1024x24" bash "$0" "$@"; fi
view="$1" check="$2" src="$3" out="$4" nereid="$5"
mkdir -p "$out"
rm -f "$out"/*.png "$out"/*.json
model="$src/models/bluerov2_heavy/bluerov2_heavy.xml"
scenario="$src/scenarios/default.json"

passed=0 failed=0
check() {  # check DESCRIPTION COMMAND...: a check of this script's own
  if "${@:2}"; then echo "PASS $1"; passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}
view() {  # view NAME ARGS...: a headless run writing NAME.png and NAME.json
  local name="$1"; shift
  "$view" "$@" --headless --width 640 --height 360 \
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
# the sensors overlay on the Heavy's sensor suite (which never acts: the state is plain's):
# the DVL's four beams down to the seabed, with bottom lock
check "sensor suite, DVL beams and acoustic fix: exit 0" view sensors \
  "$src/models/bluerov2_heavy/bluerov2_heavy_sensors.xml" --frames 30 --overlay sensors
inspect "$out/sensors.json" --baseline "$out/plain.png" --expect sensors

# the default scenario after 2 s of a 20 N surge push in a 0.2 m/s current
check "scenario, damping + current: exit 0" view moving "$scenario" --frames 120 --overlay damping,current
check "scenario, no overlays: exit 0" view still "$scenario" --frames 120 --overlay none
inspect "$out/moving.json" --baseline "$out/still.png" --expect damping --expect current

# scenarios play as `nereid run` runs them (src/runner.cc ScenarioControl): after 2 s (120
# frames of 1/60 s) the viewer's state is nereid run's, bit for bit, with the controllers on
same_as_run() {  # same_as_run NAME SCENARIO SECONDS MIN_MOVED: the viewer's final state equals
  # nereid run's, and the first vehicle moved at least MIN_MOVED m (its controller drove it)
  "$nereid" run "$2" --duration "$3" --out "$out/$1_run" >/dev/null &&
  python3 - "$out/$1.json" "$out/$1_run/summary.json" "$out/$1_run/trajectory.csv" "$4" <<'PY'
import csv, json, sys
state_time = lambda s: s["final_state"]["time"]
viewer, run = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
first = next(csv.DictReader(open(sys.argv[3])))
assert viewer["final_state"] == run["final_state"], (viewer["final_state"], run["final_state"])
body, state = next(iter(run["final_state"]["bodies"].items()))
moved = sum((state["position"][i] - float(first[f"{body}.p{c}"])) ** 2 for i, c in enumerate("xyz")) ** 0.5
assert moved >= float(sys.argv[4]), f"{body} moved only {moved} m"
print(f"{body}: the viewer's state at t = {state_time(run)} s is nereid run's; it moved {moved:.3f} m")
PY
}
check "quay wall (cascaded PID on its path): exit 0" view quay "$src/scenarios/raybot_quay_wall.json" --frames 120 --overlay none --no-hud
check "quay wall: the viewer's state is nereid run's, bit for bit" same_as_run quay "$src/scenarios/raybot_quay_wall.json" 2 0.05
check "quay wall with its path: exit 0" view quay_path "$src/scenarios/raybot_quay_wall.json" --frames 120 --overlay path --no-hud
inspect "$out/quay_path.json" --baseline "$out/quay.png" --expect path --vehicle-fraction 0.2
# the scene explains itself: the quay wall (scenario "scene", hidden with the scenery: the state is the
# same without it) and the depth gauge (the quay runs have no HUD, which would shade the path)
check "quay wall without scenery: exit 0" view quay_bare "$src/scenarios/raybot_quay_wall.json" --frames 120 --overlay none --no-hud --no-scenery
differs() {  # differs A B MIN_PERCENT: the runs' states are equal, their images differ in MIN_PERCENT of the pixels
  python3 - "$out/$1" "$out/$2" "$3" <<'PY'
import json, sys, matplotlib.image as im, numpy as np
a, b = (json.load(open(f + ".json")) for f in sys.argv[1:3])
assert a["final_state"] == b["final_state"], "the scenery changed the state"
x, y = (im.imread(f + ".png")[..., :3] for f in sys.argv[1:3])
share = 100 * (np.abs(x - y).max(axis=2) > 8 / 255).mean()
print(f"{share:.1f} % of the pixels differ")
sys.exit(0 if share >= float(sys.argv[3]) else 1)
PY
}
check "quay wall: the wall fills the background, the state is the same without it" differs quay quay_bare 25
# the moving sea (the grid's heights are checked against eta in viewer_overlays): the Heavy
# dropped from 1.5 m above a regular wave (H 1 m, T 3 s), seen from above the water; the
# surface is drawn only (the state is the same without the scenery)
sed 's|<config key="velocity" value="0 0 0"/>|&<config key="wave_type" value="regular"/><config key="wave_height" value="1"/><config key="wave_period" value="3"/>|' \
  "$model" >"$out/heavy_waves.xml"
printf '{"model": "heavy_waves.xml", "initial_state": {"bodies": {"heavy": {"position": [0, 0, 1.5]}}}}\n' \
  >"$out/heavy_waves.json"
check "the Heavy in waves: exit 0" view waves "$out/heavy_waves.json" --frames 10 --overlay none --no-hud
check "the Heavy in waves without scenery: exit 0" view waves_bare "$out/heavy_waves.json" --frames 10 --overlay none \
  --no-hud --no-scenery
check "the Heavy in waves: the sea's surface fills the view, the state is the same without it" differs waves waves_bare 25
# the estimate's ghost: the quay wall flown on the navigation filter's estimate; the ghost is
# drawn only (the state is the same without it)
check "quay wall on the estimate, with its ghost: exit 0" view est "$src/scenarios/sensors/raybot_quay_wall_estimate.json" \
  --frames 30 --overlay estimate --no-hud
check "quay wall on the estimate, no overlays: exit 0" view est_bare "$src/scenarios/sensors/raybot_quay_wall_estimate.json" \
  --frames 30 --overlay none --no-hud
check "quay wall on the estimate: the ghost is drawn, the state is the same without it" differs est est_bare 1
check "quay wall with the depth gauge: exit 0" view quay_depth "$src/scenarios/raybot_quay_wall.json" --frames 120 --overlay depth --no-hud
inspect "$out/quay_depth.json" --baseline "$out/quay.png" --expect depth --vehicle-fraction 0.2
check "tethered station keeping: exit 0" view tether "$src/scenarios/heavy_tether_station.json" --frames 120 --overlay none
check "tethered station keeping: the viewer's state is nereid run's" same_as_run tether "$src/scenarios/heavy_tether_station.json" 2 0
check "seed 000 pair with autopilots: exit 0" view pair "$src/scenarios/seed000/pair_rotational.json" --frames 300 --overlay none
check "seed 000 pair: the viewer's state is nereid run's" same_as_run pair "$src/scenarios/seed000/pair_rotational.json" 5 0.2

# a cross-check scenario opens too (its body-frame wrenches, the model's welds)
check "crosscheck triangle: exit 0" view triangle "$src/scenarios/crosscheck/bluerov_triangle.json" --frames 30 --overlay none
check "crosscheck pair with UK connections and their wrenches: exit 0" view pair_uk \
  "$src/scenarios/crosscheck/bluerov_pair_pwm1700.json" --frames 30 --constraints uk --overlay constraint
inspect "$out/pair_uk.json" --expect constraint
check "crosscheck triangle: a screenshot" test "$(stat -c %s "$out/triangle.png" 2>/dev/null || echo 0)" -gt 10000

# every shipped scenario opens and renders (the MPC's and the cross-check's included)
scens=() statuses=() pngs=()
while IFS= read -r scen; do
  name="all_$(basename "$(dirname "$scen")")_$(basename "$scen" .json)"
  "$view" "$scen" --headless --frames 5 --width 320 --height 180 --no-hud \
    --screenshot "$out/$name.png" >"$out/$name.txt" 2>&1
  statuses+=($?) scens+=("${scen#"$src"/}") pngs+=("$out/$name.png")
done < <(find "$src/scenarios" -name '*.json' | sort)
# not blank: more than 1 % of the pixels differ from the water in the top-left corner (one
# Python for all the images)
mapfile -t drawn < <(python3 -c 'import sys, matplotlib.image as im, numpy as np
for f in sys.argv[1:]:
    try:
        a = (im.imread(f)[..., :3] * 255).round()
        print(f"{100 * (np.abs(a - a[0, 0]).max(axis=2) > 8).mean():.1f}")
    except Exception:
        print("0")' "${pngs[@]}")
for i in "${!scens[@]}"; do
  check "${scens[$i]} opens and renders (exit ${statuses[$i]}, ${drawn[$i]:-0} % of the pixels drawn)" \
    awk -v status="${statuses[$i]}" -v drawn="${drawn[$i]:-0}" 'BEGIN { exit !(status == 0 && drawn > 1) }'
done

# recording: PNG frames and, with ffmpeg on PATH (scripts/bootstrap.sh installs it), an MP4
if command -v ffprobe >/dev/null 2>&1; then
  rm -rf "$out/clip" "$out/clip.mp4"
  check "record 12 frames: exit 0" view clip "$src/scenarios/raybot_quay_wall.json" --frames 12 --record "$out/clip"
  frames="$(ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames \
            -of csv=p=0 "$out/clip.mp4" 2>/dev/null)"
  check "record: clip.mp4 holds the 12 frames (got '$frames')" test "$frames" = 12
else
  echo "SKIP recording to MP4: ffprobe is not on PATH (Debian package ffmpeg)"
fi

# errors: the same messages and exit status as `nereid run`
"$view" "$out/missing.xml" --headless >"$out/err.txt" 2>&1
status=$?
check "a missing model: exit 1" test "$status" -eq 1
check "a missing model: message names the file" grep -q "nereid-view: error: .*missing.xml" "$out/err.txt"
"$view" "$model" --overlay drag >"$out/err.txt" 2>&1
status=$?
check "an unknown overlay: exit 2" test "$status" -eq 2
check "an unknown overlay: message names it" grep -q "'drag'" "$out/err.txt"

# --record into a folder that cannot be made or written: exit 1 with an error naming it,
# before the run (it was a message after the run, and exit 0)
: >"$out/not_a_folder"
for dir in /proc/nereid-no-such-folder/clip "$out/not_a_folder/clip" "$out/not_a_folder"; do
  "$view" "$model" --headless --frames 5 --record "$dir" >"$out/err.txt" 2>&1
  status=$?
  check "--record $dir: exit 1" test "$status" -eq 1
  check "--record $dir: the error names it" grep -qF "nereid-view: error: --record $dir: " "$out/err.txt"
done
if command -v ffmpeg >/dev/null 2>&1; then
  rm -rf "$out/taken" "$out/taken.mp4"; mkdir -p "$out/taken.mp4"
  "$view" "$model" --headless --frames 5 --record "$out/taken" >"$out/err.txt" 2>&1
  status=$?
  check "--record DIR with DIR.mp4 a folder: exit 1" test "$status" -eq 1
  check "--record DIR with DIR.mp4 a folder: the error names DIR.mp4" \
    grep -qF "nereid-view: error: --record $out/taken.mp4: exists and is not a file" "$out/err.txt"
fi

# the MJCF '%' guard (issue 34): the viewer's loader refuses a '%' spelled as a character
# reference with `nereid run`'s error (exit 1), before MuJoCo's parser could pass it to
# printf as a format (`*** %n in writable segment detected ***`, SIGABRT): the issue's
# mutated BlueROV2 Heavy, each spelling, an included file, and a scenario naming the model
same_error_as_run() {  # same_error_as_run NAME INPUT: the viewer and nereid run refuse INPUT alike
  "$view" "$2" --headless --frames 1 >"$out/$1_view.txt" 2>&1
  local view_status=$?
  "$nereid" run "$2" --duration 0.01 --out "$out/$1_run" >"$out/$1_run.txt" 2>&1
  local run_status=$?
  local view_error run_error
  view_error="$(sed -n 's/^nereid-view: error: //p' "$out/$1_view.txt")"
  run_error="$(sed -n 's/^nereid: error: //p' "$out/$1_run.txt")"
  if [ "$view_status" -eq 1 ] && [ "$run_status" -eq 1 ] && [ -n "$view_error" ] &&
     [ "$view_error" = "$run_error" ] && grep -qF "a character reference for '%'" <<<"$view_error"; then
    return 0
  fi
  echo "  viewer (exit $view_status): $(cat "$out/$1_view.txt")"; echo "  run (exit $run_status): $(cat "$out/$1_run.txt")"
  return 1
}
# one geom's class="visual" (the first) becomes class="a&#37;n&#37;n&#37;n&#37;s"
sed '0,/<geom [^>]*class="visual"/s/\(<geom [^>]*\)class="visual"/\1class="a\&#37;n\&#37;n\&#37;n\&#37;s"/' \
  "$model" >"$out/heavy_percent.xml"
check "the issue's BlueROV2 Heavy with class=\"a&#37;n...\": the viewer refuses it as nereid run does" \
  same_error_as_run heavy_percent "$out/heavy_percent.xml"
for spelling in '&#37;' '&#x25;' '&#X25;' '&#0037;' '&#00000037;'; do
  printf '<mujoco>\n  <worldbody>\n    <geom class="a%sn" size="0.1"/>\n  </worldbody>\n</mujoco>\n' "$spelling" \
    >"$out/percent.xml"
  check "class=\"a${spelling}n\": the viewer refuses it as nereid run does" same_error_as_run percent "$out/percent.xml"
done
printf '<mujoco>\n  <include file="percent.xml"/>\n</mujoco>\n' >"$out/percent_include.xml"
check "a character reference for '%' in an included file: the viewer refuses it as nereid run does" \
  same_error_as_run percent_include "$out/percent_include.xml"
printf '{"model": "heavy_percent.xml", "duration": 1}\n' >"$out/percent_scenario.json"
check "a scenario naming that model: the viewer refuses it as nereid run does" \
  same_error_as_run percent_scenario "$out/percent_scenario.json"

# a vehicle without a name: the report names it as nereid run's outputs do (body1); it
# failed with the C++ library's "basic_string: construction from null is not valid"
printf '%s\n' "<mujoco><worldbody><body pos='0 0 1'><freejoint/><geom type='box' size='0.2 0.2 0.2'/></body></worldbody></mujoco>" >"$out/nameless.xml"
check "a nameless vehicle: exit 0" view nameless "$out/nameless.xml" --frames 2 --overlay none
check "a nameless vehicle: the report calls it body1" python3 -c \
  "import json, sys; sys.exit(json.load(open('$out/nameless.json'))['vehicle'] != 'body1')"

# GLFW's and MuJoCo's OpenGL failures are Nereid errors naming what failed (GLFW's text
# only as a detail): no display; an image the driver cannot hold (llvmpipe cannot hold
# 16384 x 16384: MuJoCo's "ERROR: Offscreen framebuffer is not complete" and its
# MUJOCO_LOG.TXT in the working directory, before); a driver that can is fine as well
env -u DISPLAY "$view" "$model" --headless --frames 1 >"$out/err.txt" 2>&1
status=$?
check "no display: exit 1" test "$status" -eq 1
check "no display: the error says what failed and why, in Nereid's words" grep -qF \
  "nereid-view: error: cannot initialise GLFW, the window library: the window system failed (is a display there?" \
  "$out/err.txt"
mkdir -p "$out/huge_cwd"; rm -f "$out/huge_cwd/MUJOCO_LOG.TXT"
(cd "$out/huge_cwd" && "$view" "$model" --headless --frames 1 --width 16384 --height 16384 \
  --overlay none --no-hud </dev/null) >"$out/err.txt" 2>&1
status=$?
if [ "$status" -ne 0 ]; then
  check "a 16384 x 16384 image the driver cannot hold: exit 1" test "$status" -eq 1
  check "a 16384 x 16384 image the driver cannot hold: the error names the size" grep -qE \
    "^nereid-view: error: (cannot make MuJoCo's OpenGL rendering context for a|cannot open a|a) 16384 x 16384" "$out/err.txt"
fi
check "a 16384 x 16384 image: no raw MuJoCo ERROR line, no MUJOCO_LOG.TXT" \
  test ! -e "$out/huge_cwd/MUJOCO_LOG.TXT" -a -z "$(grep '^ERROR' "$out/err.txt")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
