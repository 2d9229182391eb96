#!/usr/bin/env python3
"""Fuzz harness for the `nereid` command line and the Python API: hostile input, each case in a fresh directory.

Usage:
  tools/fuzz/fuzz.py --nereid build/nereid --source . [--seconds 100] [--seed 0]
                     [--timeout 20] [--work DIR] [--json REPORT.json]
                     [--keep-failures DIR] [--kinds config,scenario,structure,xml,cli,python,file]
                     [--case ID[,ID...]] [--jobs N] [--memory-mb 4096] [--output-mb 512]
                     [--no-shipped] [--no-coverage] [--python PY] [--python-path DIR]
                     [--need-python] [--list N]

Each case runs in a new, empty working directory, with stdin closed, a per-case timeout,
an address-space and a file-size limit. First the shipped models and scenarios run
unchanged (ids "shipped-N"), then the coverage cases (every class of the xml, cli and
python kinds once: they always run, whatever the budget), then mutants of every kind
until --seconds. Case ID of seed S is a pure function of (S, ID), the shipped inputs and
`nereid --help`, so `--seed S --case ID` regenerates and re-runs it (tools/fuzz/README.md).

Kinds (ids "N" for the first three, case N having kind N mod 3; "xml-N", "cli-N", "py-N"):
  config     `nereid run` of a model whose <config key=… value=…/> of the marine plugins
             were given hostile values, dropped, duplicated, renamed, ...
  scenario   `nereid run` of a mutated scenario (other types, hostile numbers, deep
             nesting, MB-sized arrays, documents that are not objects, a bad model path).
  structure  `nereid run` of a model with elements or attributes deleted, duplicated or
             given bad values, truncated or byte-flipped, bad <option>s, <include>s,
             MuJoCo's own passive terms (joint damping, stiffness, armature, gravcomp), ...
  xml        `nereid run` or `nereid info` of a model with character references and
             entities written raw into attributes: &#37; &#x25; &#X25; &#0037; (what the
             XML parser decodes to '%'), other numeric references (&#0;, &#xD800;, huge),
             named entities, a DOCTYPE with an internal entity, <include> paths spelled
             with references.
  cli        every flag of every command in `nereid --help` (run, info, crosscheck,
             validate, baselines; bench's numbers): numbers nan, inf, -inf, negative, 0,
             1e300, 2^63, 2^64, text; choices; paths unwritable, under a file, a file for
             a folder, a folder for a file, missing, /dev/zero, /dev/null, 5000 long; a
             full disk (the output files links to /dev/full); a NUL in a scenario's path.
  python     tools/fuzz/pyapi.py: nereid.load, step, forward, reset, rollout, Stepper,
             the RL environments, with bad paths, arrays (shape, dtype, NaN), numbers,
             and calls from threads; several operations per process.
  file       tools/fuzz/files.py: the other files the commands read, mutated: a hull mesh
             (binary and ASCII STL, OBJ) for `nereid coefficients`, a trial log for
             `nereid replay` and `nereid identify free`, a tow run for `nereid identify
             tow` (bad numbers, indices and counts, truncation, wrong order of time,
             missing rows and columns, other format versions, encodings).

Outcomes (one per case):  ok (exit 0); error (exit 1, 2 or 3 with a message: on stderr,
or for a run that stopped on a diverged state or a MuJoCo error, in summary.json);
wrong-ok (exit 0, or no exception, on a known-bad input: a '%' or a NUL the MJCF parser
would see, a number or path the class says must be refused); crash (a signal, any other exit
status, or exit 1/2/3 with no message); hang (timeout, or an output file beyond
--output-mb: no end in bounded time or space).
Flags (any case): log-file (MUJOCO_LOG.TXT appeared in the working directory),
stdout-noise (MuJoCo's own "WARNING:"/"ERROR:" lines from its default log handler, on
stdout or on stderr), long-message (the error message is longer than 2000 characters),
traceback (a Python traceback from a command), wrote ("wrote ..." on a full disk),
unnamed (the error does not name the file or path at fault), py-exception (a Python
call raised where it should not, an unclear exception type or an empty message).

Exit status: 0 when there was no wrong-ok, crash, hang or flag; 1 when there was; 2 for
a usage error of this script, or when nereid does not start (`nereid version` fails, or
the dynamic loader keeps failing: a rebuild in progress), or --need-python and the
nereid package does not import. Standard library only.
"""
import argparse
import copy
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

MUTANT_KINDS = ("config", "scenario", "structure")  # one numbering: case N has kind N mod 3
KINDS = MUTANT_KINDS + ("xml", "cli", "python", "file")
OUTCOMES = ("ok", "error", "wrong-ok", "crash", "hang")
FLAGS = ("log-file", "stdout-noise", "long-message", "traceback", "wrote", "unnamed", "py-exception")
FAILING = {"wrong-ok", "crash", "hang"} | set(FLAGS)
RUN_DURATION = "0.2"
# scenarios/crosscheck/ holds `nereid crosscheck` inputs (keys `peak`, `record_every`, ...
# that `nereid run` refuses), not `nereid run` scenarios
SKIPPED_SCENARIO_DIRS = {"crosscheck"}
LONG_MESSAGE = 2000
LONE_SURROGATE_RE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
NOISE_RE = re.compile(r"^(WARNING|ERROR):", re.M)
CONFIG_RE = re.compile(r'<config(\s+)key="([^"]*)"(\s+)value="([^"]*)"(\s*)/>')
PLUGIN_RE = re.compile(r'<plugin\s+plugin="(nereid\.[a-z_]+)"\s*>(.*?)</plugin>', re.S)
INSTANCE_RE = re.compile(r'<instance\s+name="([^"]*)"\s*>(.*?)</instance>', re.S)
PATH_ATTR_RE = re.compile(r'\b(file|meshdir|texturedir|assetdir)="([^"]*)"')

# Attribute lists of the plugins (kAttributes in plugins/*/*.h); refreshed from the source
# tree when it can be read there.
PLUGIN_KEYS = {
    "nereid.hydrodynamics": ["body", "added_mass", "linear_damping", "quadratic_damping", "frame",
                             "reference_point", "stock_fallback"],
    "nereid.buoyancy": ["body", "volume", "center_of_buoyancy", "fluid_density", "frame"],
    "nereid.current": ["velocity", "time_profile", "depth_profile", "wave_type", "wave_height", "wave_period",
                       "wave_direction", "water_depth", "wave_gamma", "wave_spreading", "wave_components",
                       "wave_seed"],
    "nereid.thruster": ["input", "command_map", "thrust_coefficient", "thrust_curve", "thrust_loss",
                        "time_constant", "thrust_limits", "dead_band"],
    "nereid.tether": ["model", "site", "anchor_body", "anchor_point", "length", "segments", "diameter",
                      "cd_normal", "cd_tangential", "mass_per_metre", "axial_stiffness", "bending_damping",
                      "added_mass_coefficient", "fluid_density", "analytic_weight_factor"],
    # the sensor plugins (docs/sensors.md): mutated in the shipped *_sensors.xml models
    "nereid.pressure": ["site", "rate", "latency", "seed", "fluid_density", "atmospheric_pressure", "noise",
                        "offset", "resolution"],
    "nereid.imu": ["site", "rate", "latency", "seed", "accel_noise_density", "accel_bias_walk",
                   "accel_turn_on_bias", "accel_scale_factor", "accel_resolution", "gyro_noise_density",
                   "gyro_bias_walk", "gyro_turn_on_bias", "gyro_scale_factor", "gyro_resolution", "heading_noise"],
    "nereid.dvl": ["site", "rate", "latency", "seed", "beams", "beam_angle", "beam_azimuth", "min_altitude",
                   "max_altitude", "velocity_noise", "velocity_noise_per_speed", "velocity_noise_per_range",
                   "range_noise", "dropout", "water_track"],
    "nereid.acoustic": ["site", "rate", "latency", "seed", "transceiver", "cone", "max_range", "range_noise",
                        "angle_noise"],
    "nereid.altimeter": ["site", "rate", "latency", "seed", "min_range", "max_range", "noise", "noise_per_range"],
    "nereid.marker": ["site", "rate", "latency", "seed", "marker", "fov", "min_range", "max_range", "max_view_angle",
                      "position_noise", "angle_noise"],
}


# ----------------------------------------------------------------------------------------
# hostile values

def big_repeat(rng, unit, max_bytes):
    return unit * max(1, rng.randint(max_bytes // 4, max_bytes) // len(unit))


NUMBER_TEXTS = [
    "-1", "-0", "0", "-1e-9", "-1e308", "1e308", "1.8e308", "1e400", "-1e400", "1e-400",
    "5e-324", "1e-300", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e9", "1e12",
    "99999999999999999999", "4294967297", "2147483648", "-2147483649", "9223372036854775808",
    "0x10", "1e", "1.0abc", "--1", "+", ".", "1,5", "1_000", "0.5", "3",
]
TEXT_VALUES = [
    "", " ", "abc", "true", "null", "\t\n", "\udcff\udcfe", "caf\udce9", "\udcc3(",
    "\x01\x7f", "\u00e9\u4e2d\U0001F30A", "%s%n%x", "../../../etc/passwd", "\u202e", "world",
    "nonexistent_body", "FRD", "ned", "flu",
]


def hostile_text(rng):
    r = rng.random()
    if r < 0.15:
        return big_repeat(rng, rng.choice(["a", "9", "\udcff", "1 "]), rng.choice([3000, 200_000, 2_000_000]))
    if r < 0.25:
        return "x" * rng.choice([81, 2001, 4097])
    return rng.choice(TEXT_VALUES)


def hostile_config_value(rng, old):
    """A replacement for a plugin <config> value (a str; may hold surrogate-escaped bytes)."""
    nums = old.split()
    numeric = bool(nums) and all(re.fullmatch(r"[-+0-9.eE]+", n) for n in nums)
    r = rng.random()
    if numeric and r < 0.45:
        op = rng.randrange(9)
        if op == 0:    # negate one or all components
            idx = range(len(nums)) if rng.random() < 0.5 else [rng.randrange(len(nums))]
            return " ".join(("-" + n.lstrip("-+")) if i in idx else n for i, n in enumerate(nums))
        if op == 1:    # all zero
            return " ".join("0" for _ in nums)
        if op == 2:    # one component hostile
            i = rng.randrange(len(nums))
            return " ".join(rng.choice(NUMBER_TEXTS) if j == i else n for j, n in enumerate(nums))
        if op == 3:    # one too few
            return " ".join(nums[:-1])
        if op == 4:    # one or a few too many
            return " ".join(nums + [rng.choice(nums)] * rng.choice([1, 2, 6]))
        if op == 5:    # many times too many
            return " ".join(nums * rng.choice([2, 100, 10_000]))
        if op == 6:    # a single number where a vector is expected, or the reverse
            return rng.choice(NUMBER_TEXTS) if len(nums) > 1 else " ".join(nums * 6)
        if op == 7:    # non-numeric token in the list
            i = rng.randrange(len(nums))
            return " ".join(rng.choice(["abc", "1.0abc", "\udcff", "nan", "1,5"]) if j == i else n
                            for j, n in enumerate(nums))
        return " ".join(rng.choice(NUMBER_TEXTS) for _ in nums)
    if r < 0.8:
        return rng.choice(NUMBER_TEXTS)
    return hostile_text(rng)


def xml_attr(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")


def byte_mutations(rng, text):
    """Flips, inserts or deletes a few characters (surrogate-escaped bytes included)."""
    t = list(text)
    for _ in range(rng.choice([1, 1, 2, 4, 16])):
        if not t:
            break
        i = rng.randrange(len(t))
        op = rng.randrange(3)
        if op == 0:
            t[i] = chr(0xDC80 + rng.randrange(128)) if rng.random() < 0.3 else chr(rng.randrange(1, 128))
        elif op == 1:
            t.insert(i, rng.choice(["<", ">", '"', "&", "/", "{", "}", "[", "]", ",", ":", "\x00", "\udcff"]))
        else:
            del t[i:i + rng.randint(1, 64)]
    return "".join(t)


def truncate(rng, text):
    return text[:rng.randrange(len(text))] if text else text


# ----------------------------------------------------------------------------------------
# shipped inputs

def read_text(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")


def absolutise_model_paths(text, folder):
    def fix(m):
        value = m.group(2)
        if not value or os.path.isabs(value):
            return m.group(0)
        return f'{m.group(1)}="{xml_attr(os.path.normpath(os.path.join(folder, value)))}"'
    return PATH_ATTR_RE.sub(fix, text)


def load_plugin_keys(source):
    keys = dict(PLUGIN_KEYS)
    for name in list(keys):
        short = name.split(".", 1)[1]
        header = os.path.join(source, "plugins", short, short + ".h")
        try:
            text = read_text(header)
        except OSError:
            continue
        m = re.search(r"kAttributes\[\]\s*=\s*\{(.*?)\}", text, re.S)
        if m:
            found = re.findall(r'"([^"]+)"', m.group(1))
            if found:
                keys[name] = found
    return keys


def load_seeds(source):
    models, scenarios = [], []
    for folder, subdirs, files in os.walk(os.path.join(source, "models")):
        subdirs.sort()
        for f in sorted(files):
            if f.endswith(".xml"):
                path = os.path.join(folder, f)
                models.append((os.path.relpath(path, source),
                               absolutise_model_paths(read_text(path), folder)))
    for folder, subdirs, files in os.walk(os.path.join(source, "scenarios")):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_SCENARIO_DIRS)
        for f in sorted(files):
            if f.endswith(".json"):
                path = os.path.join(folder, f)
                try:
                    doc = json.loads(read_text(path))
                except ValueError:
                    continue
                if isinstance(doc, dict) and isinstance(doc.get("model"), str) and \
                        not os.path.isabs(doc["model"]):
                    doc["model"] = os.path.normpath(os.path.join(folder, doc["model"]))
                terrain = doc.get("scene", {}).get("terrain") if isinstance(doc, dict) and \
                    isinstance(doc.get("scene"), dict) else None
                if isinstance(terrain, dict) and isinstance(terrain.get("file"), str) and \
                        not os.path.isabs(terrain["file"]):  # a height-field file beside the scenario
                    terrain["file"] = os.path.normpath(os.path.join(folder, terrain["file"]))
                scenarios.append((os.path.relpath(path, source), doc))
    return models, scenarios


# ----------------------------------------------------------------------------------------
# kind (a): plugin configs

def mutate_config(rng, text, plugin_keys):
    """One mutation of the plugin configs in a model's text; returns (text, description)."""
    configs = list(CONFIG_RE.finditer(text))
    op = rng.choices(["value", "drop", "duplicate", "unknown", "known", "rename", "drop_instance",
                      "dup_instance", "plugin_name", "instance_name"],
                     [50, 8, 8, 6, 8, 4, 3, 4, 3, 3])[0]
    if op in ("drop_instance", "dup_instance", "instance_name", "plugin_name", "known"):
        plugins = list(PLUGIN_RE.finditer(text))
        if not plugins:
            op = "value"
    if op == "value":
        m = rng.choice(configs)
        value = hostile_config_value(rng, m.group(4))
        raw = rng.random() < 0.05
        new = f'<config{m.group(1)}key="{m.group(2)}"{m.group(3)}value="{value if raw else xml_attr(value)}"{m.group(5)}/>'
        return text[:m.start()] + new + text[m.end():], f"config {m.group(2)}={short(value)!s}{' (raw)' if raw else ''}"
    if op == "drop":
        m = rng.choice(configs)
        return text[:m.start()] + text[m.end():], f"drop config {m.group(2)}"
    if op == "duplicate":
        m = rng.choice(configs)
        value = m.group(4) if rng.random() < 0.5 else xml_attr(hostile_config_value(rng, m.group(4)))
        dup = f'<config key="{m.group(2)}" value="{value}"/>'
        return text[:m.end()] + dup + text[m.end():], f"duplicate config {m.group(2)}={short(value)}"
    if op == "unknown":
        m = rng.choice(configs)
        key = rng.choice(["bogus", "", "Body", "added_mass ", "x" * 300, "\udcff", "volume2"])
        extra = f'<config key="{xml_attr(key)}" value="{xml_attr(rng.choice(["1", "", "abc"]))}"/>'
        return text[:m.end()] + extra + text[m.end():], f"unknown config key {short(key)!r}"
    if op == "rename":
        m = rng.choice(configs)
        key = rng.choice([m.group(2).upper(), m.group(2) + "_", " " + m.group(2), ""])
        new = f'<config key="{xml_attr(key)}" value="{m.group(4)}"/>'
        return text[:m.start()] + new + text[m.end():], f"rename config {m.group(2)} -> {key!r}"
    p = rng.choice(plugins)
    if op == "known":  # a key the plugin knows, maybe not set in this model, with any value
        name = p.group(1)
        inst = list(INSTANCE_RE.finditer(text, p.start(), p.end()))
        if not inst:
            return mutate_config(rng, text, plugin_keys)
        i = rng.choice(inst)
        key = rng.choice(plugin_keys.get(name) or ["bogus"])
        value = rng.choice(["1", "0.1", "1 2 3", "0 0 0 0", "pwm", "rpm", "thrust", "normalized", "drop",
                            "refuse", "analytic", "lumped", "world", "rov", "heavy"]) \
            if rng.random() < 0.5 else hostile_config_value(rng, "1 1 1")
        extra = f'<config key="{key}" value="{xml_attr(value)}"/>'
        at = i.start(2)
        return text[:at] + extra + text[at:], f"{name}/{i.group(1)}: set {key}={short(value)}"
    if op == "plugin_name":
        new = rng.choice(["nereid.bogus", "", "nereid.hydrodynamics", "nereid.buoyancy", "nereid.current",
                          "nereid.thruster", "nereid.tether", "mujoco.elasticity.cable"])
        return (text[:p.start(1)] + new + text[p.end(1):], f"plugin {p.group(1)} renamed {new!r}")
    inst = list(INSTANCE_RE.finditer(text, p.start(), p.end()))
    if not inst:
        return mutate_config(rng, text, plugin_keys)
    i = rng.choice(inst)
    if op == "drop_instance":
        return text[:i.start()] + text[i.end():], f"drop instance {i.group(1)}"
    if op == "instance_name":
        new = rng.choice(["", "x" * 5000, "\udcff", i.group(1) + "\x01"])
        return text[:i.start(1)] + xml_attr(new) + text[i.end(1):], f"instance {i.group(1)} renamed {short(new)!r}"
    n = rng.choice([1, 1, 50])
    return text[:i.end()] + i.group(0) * n + text[i.end():], f"instance {i.group(1)} duplicated x{n}"


# ----------------------------------------------------------------------------------------
# kind (c): model structure

OPTION_MUTATIONS = [
    'integrator="bogus"', 'integrator="RK4"', 'integrator="implicit"', 'integrator="implicitfast"',
    'integrator="discrete"',  # MuJoCo 3.14 compiles it; Nereid refuses it with the reason
    'solver="bogus"', 'solver="CG"', 'iterations="-1"', 'iterations="0"', 'iterations="1000000000"',
    'ls_iterations="-5"', 'tolerance="-1"', 'tolerance="nan"', 'gravity="0 0"', 'gravity="nan 0 0"',
    'gravity="0 0 -1e308"', 'density="nan"', 'density="-1000"', 'density="1000"', 'viscosity="-1"',
    'viscosity="0.0009"', 'wind="1e308 0 0"', 'cone="bogus"', 'jacobian="bogus"', 'impratio="0"',
    'impratio="-1"', 'noslip_iterations="-1"', 'ccd_iterations="-1"', 'o_margin="nan"',
    'timestep="0.005 0.005"', 'apirate="-1"', 'bogus="1"', 'gravity="0 0 -9.81 extra"',
]
TIMESTEPS = ["0", "-0", "-0.005", "-1", "1e-300", "5e-324", "1e-15", "1e-12", "nan", "-nan", "inf",
             "-inf", "1e308", "1e400", "abc", "", "0.005abc", "10"]
NEST_TAG = "nereid-fuzz-nest"
MEMORY_SIZES = ["0", "1", "100", "1K", "4K", "8K", "16K", "64K", "-1", "-1M", "1T", "1P", "abc",
                "99999999999999999999", "1.5K", "1KK"]


def ensure_element(root, tag):
    el = root.find(tag)
    if el is None:
        el = ET.Element(tag)
        root.insert(0, el)
    return el


def structure_et(rng, root, model_path):
    """One mutation of a parsed model; returns a description (root changed in place)."""
    # (op, weight, mutation): the weights as drawn, in this order
    ops = [("delete", 14, lambda op: delete_or_duplicate_element(rng, root, op)),
           ("duplicate", 10, lambda op: delete_or_duplicate_element(rng, root, op)),
           ("del_attr", 10, lambda op: delete_or_set_attribute(rng, root, op)),
           ("set_attr", 14, lambda op: delete_or_set_attribute(rng, root, op)),
           ("memory", 8, lambda op: set_size_or_option(rng, root, op)),
           ("timestep", 8, lambda op: set_size_or_option(rng, root, op)),
           ("option", 10, lambda op: set_size_or_option(rng, root, op)),
           ("keyframe", 6, lambda op: break_keyframe(rng, root)),
           ("inertial", 6, lambda op: break_inertial(rng, root)),
           ("nest", 4, lambda op: add_nested_bodies(rng, root)),
           ("include", 4, lambda op: add_bad_include(rng, root, model_path)),
           ("no_extension", 2, lambda op: remove_extension(root)),
           ("passive", 6, lambda op: set_passive_term(rng, root)),
           ("transmission", 6, lambda op: change_transmission(rng, root)),
           ("controls", 6, lambda op: add_first_actuator(rng, root)),
           ("lengthrange", 4, lambda op: add_length_range(rng, root))]
    op, _, mutate = rng.choices(ops, [weight for _, weight, _ in ops])[0]
    desc = mutate(op)
    # None: the model has nothing the op could change (no element, attribute, inertial,
    # worldbody or <extension>)
    return desc if desc is not None else disable_gravity(root)


def delete_or_duplicate_element(rng, root, op):
    """op "delete" or "duplicate" on a random element; None when the model has none."""
    pairs = [(parent, child) for parent in root.iter() for child in list(parent)]
    if not pairs:
        return None
    parent, child = rng.choice(pairs)
    if op == "delete":
        parent.remove(child)
        return f"delete <{child.tag} {short(attrs(child))}>"
    n = rng.choice([1, 1, 1, 20])
    at = list(parent).index(child)
    for _ in range(n):
        parent.insert(at + 1, copy.deepcopy(child))
    return f"duplicate <{child.tag} {short(attrs(child))}> x{n}"


def delete_or_set_attribute(rng, root, op):
    """op "del_attr" or "set_attr" (a hostile value) on a random attribute; None when the
    model has none."""
    with_attrs = [el for el in root.iter() if el.attrib]
    if not with_attrs:
        return None
    el = rng.choice(with_attrs)
    key = rng.choice(sorted(el.attrib))
    if op == "del_attr":
        del el.attrib[key]
        return f"delete <{el.tag}> {key}"
    old = el.attrib[key]
    value = hostile_config_value(rng, old) if rng.random() < 0.8 else hostile_text(rng)
    el.attrib[key] = value
    return f"<{el.tag}> {key}={short(value)}"


def set_size_or_option(rng, root, op):
    """op "memory" (<size memory>), "timestep" (<option timestep>) or "option" (another
    <option> attribute or a <flag>), from the lists above."""
    if op == "memory":
        size = ensure_element(root, "size")
        value = rng.choice(MEMORY_SIZES)
        size.attrib["memory"] = value
        return f'<size memory="{value}">'
    option = ensure_element(root, "option")
    if op == "timestep":
        value = rng.choice(TIMESTEPS)
        option.attrib["timestep"] = value
        return f'<option timestep="{value}">'
    if rng.random() < 0.2:
        flag = ET.SubElement(option, "flag")
        key = rng.choice(["contact", "gravity", "warmstart", "energy", "bogus", "multiccd", "island",
                          "spring", "damper", "eulerdamp", "sleep"])
        flag.attrib[key] = rng.choice(["disable", "enable", "maybe", ""])
        return f"<option><flag {key}={flag.attrib[key]!r}>"
    k, v = rng.choice(OPTION_MUTATIONS).split("=", 1)
    option.attrib[k] = v.strip('"')
    return f"<option {k}={v}>"


def break_keyframe(rng, root):
    """A keyframe's value made hostile, or a bad keyframe added when the model has none."""
    keys = root.findall("./keyframe/key")
    if keys:
        key = rng.choice(keys)
        attr = rng.choice(["qpos", "qvel", "ctrl", "time", "act", "mpos", "mquat"])
        old = key.attrib.get(attr, "0 0 0")
        key.attrib[attr] = hostile_config_value(rng, old)
        return f"<key {attr}={short(key.attrib[attr])}>"
    kf = ensure_element(root, "keyframe")
    ET.SubElement(kf, "key", {"qpos": rng.choice(["1 2 3", "nan", "", "0 " * 10000])})
    return "add <key qpos=...>"


def break_inertial(rng, root):
    """An <inertial>'s mass, inertia, position or orientation made bad; None when the model
    has no <inertial>."""
    inertials = list(root.iter("inertial"))
    if not inertials:
        return None
    el = rng.choice(inertials)
    attr = rng.choice(["mass", "diaginertia", "pos", "fullinertia", "quat"])
    el.attrib[attr] = rng.choice(["0", "-1", "nan", "1e308", "1e-300", "0 0 0", "1 1 1e12",
                                  "1 1 100", "1 2", "1 0 0 0 0 0", "0 0 0 0"])
    return f"<inertial {attr}={el.attrib[attr]}>"


def add_nested_bodies(rng, root):
    """A placeholder for 100 to 10,000 nested bodies in <worldbody>; None when there is none."""
    worldbody = root.find("worldbody")
    if worldbody is None:
        return None
    depth = rng.choice([100, 400, 499, 1000, 10000])
    # written out by mutate_structure: ElementTree's writer recurses
    ET.SubElement(worldbody, NEST_TAG, {"depth": str(depth)})
    return f"{depth} nested bodies"


def add_bad_include(rng, root, model_path):
    """An <include> of the model itself, a missing file, /dev/null, a folder, nothing or a
    name that is not UTF-8."""
    target = rng.choice([model_path, "/nonexistent/x.xml", "/dev/null", os.path.dirname(model_path),
                         "", "\udcff.xml"])
    root.insert(rng.randrange(len(root) + 1), ET.Element("include", {"file": target}))
    return f"<include file={short(target)!r}>"


def set_passive_term(rng, root):
    """A joint's, body's or actuator's passive term given a value from 0 to hostile."""
    # one of MuJoCo's own passive terms (or an actuator's armature, which makes mj_Euler
    # integrate a joint implicitly): Nereid's engine then leaves its own passive stage
    # for MuJoCo's whole mj_passive (docs/design.md "One step"), or refuses the value
    joints = list(root.iter("joint")) + list(root.iter("freejoint"))
    bodies = list(root.iter("body"))
    target = rng.choice(["joint", "joint", "body", "actuator"])
    if target == "joint" and joints:
        el = rng.choice(joints)
        attr = rng.choice(["damping", "stiffness", "armature", "springref", "frictionloss"])
    elif target == "body" and bodies:
        el, attr = rng.choice(bodies), "gravcomp"
    else:
        section = root.find("actuator")
        actuators = list(section) if section is not None else []
        if not actuators:
            return "no actuator for armature"
        el, attr = rng.choice(actuators), rng.choice(["armature", "damping"])
    el.attrib[attr] = rng.choice(["0", "-0", "1e-300", "0.01", "2", "-1", "nan", "inf", "1e308",
                                  "1 2", "0.01 0.1 0.2"])
    return f"<{el.tag}> {attr}={el.attrib[attr]}"


def change_transmission(rng, root):
    """An actuator's gear, reference site, site or joint changed."""
    # an actuator's transmission: a hostile gear, a reference site, another site (a world
    # site included) or a joint instead: Nereid's engine moves between its own site
    # transmission and MuJoCo's mj_transmission (docs/design.md "One step")
    section = root.find("actuator")
    actuators = list(section) if section is not None else []
    sites = [el.attrib["name"] for el in root.iter("site") if "name" in el.attrib]
    joints = [el.attrib["name"] for el in root.iter("joint") if "name" in el.attrib]
    if not actuators:
        return "no actuator for a transmission"
    el = rng.choice(actuators)
    what = rng.choice(["gear", "gear", "refsite", "site", "joint"])
    if what == "gear":
        el.attrib["gear"] = rng.choice(["0 0 0 0 0 0", "-1 0 0 0 0 0", "0 0 0 0 0 -1", "1e308 0 0 0 0 0",
                                        "nan 0 0 0 0 0", "inf 1 0 0 0 0", "1e-300 0 0 0 0 1e-300",
                                        "-0 -0 -0 -0 -0 -0", "1 2 3 4 5 6", "1 2"])
    elif what in ("refsite", "site") and sites:
        el.attrib[what] = rng.choice(sites + ["missing_site", ""])
    elif what == "joint" and joints:
        el.attrib.pop("site", None)
        el.attrib["joint"] = rng.choice(joints)
    else:
        return f"no {what} for a transmission"
    return f"<{el.tag}> {what}={el.attrib.get(what, el.attrib.get('joint'))}"


def add_first_actuator(rng, root):
    """A <pid>, <dcmotor> or <orientation> servo put first among the actuators."""
    # an actuator with 0 or several controls or force outputs (MuJoCo 3.14) put first,
    # so that every later actuator's control and force sit past its own index
    # (docs/design.md "Actuators, controls and force outputs")
    joints = [el.attrib["name"] for el in root.iter("joint") if "name" in el.attrib]
    sites = [el.attrib["name"] for el in root.iter("site") if "name" in el.attrib]
    # a model that includes its vehicle names the vehicle's sites in its plugins' configs
    sites += [el.attrib["value"] for el in root.iter("config")
              if el.attrib.get("key") == "site" and "value" in el.attrib]
    section = ensure_element(root, "actuator")
    kind = rng.choice(["pid", "dcmotor", "orientation"])
    # on a named joint, else on a site (the shipped vehicles' joints are unnamed freejoints)
    target = {"joint": rng.choice(joints)} if joints else {"site": rng.choice(sites)} if sites else None
    if kind == "orientation" and len(sites) >= 2:
        site, ref = rng.sample(sites, 2)
        el = ET.Element("orientation", {"site": site, "refsite": ref, "kp": rng.choice(["1", "0", "-1", "nan"])})
    elif kind in ("pid", "orientation") and target:
        el = ET.Element("pid", {**target, "kp": "1",
                                "input": rng.choice(["pos vel", "pos vel ff", "vel", "ff", "pos pos", ""])})
    elif target:
        el = ET.Element("dcmotor", {**target, "input": rng.choice(["none", "voltage", "pos"]),
                                    "motorconst": "0.01", "resistance": "1"})
    else:
        return f"no joint or site for a {kind}"
    section.insert(0, el)
    if rng.random() < 0.5:  # keyframes sized for the old controls would refuse the model
        for kf in root.findall("keyframe"):
            root.remove(kf)
    return f"first actuator <{el.tag} {short(attrs(el))}>"


def add_length_range(rng, root):
    """A <muscle> without a length range, or hostile <compiler><lengthrange> options."""
    # MuJoCo's actuator length-range computation (src/length_range.h): a muscle with no
    # lengthrange on a named joint, or the compiler's options with hostile values (mode
    # "all" simulates every thruster; an inttotal of 1e9 s would simulate 1e11 steps)
    joints = [el.attrib["name"] for el in root.iter("joint") if "name" in el.attrib]
    if joints and rng.random() < 0.4:
        el = ET.Element("muscle", {"joint": rng.choice(joints)})
        ensure_element(root, "actuator").append(el)
        for kf in root.findall("keyframe"):  # sized for the old controls
            root.remove(kf)
        return f"add <muscle {short(attrs(el))}>"
    lr = ET.SubElement(ensure_element(root, "compiler"), "lengthrange")
    lr.attrib["mode"] = rng.choice(["all", "muscleuser", "muscle", "none", "bogus"])
    for key in rng.sample(["inttotal", "timestep", "accel", "interval", "timeconst", "tolrange", "maxforce"],
                          rng.randint(1, 3)):
        lr.attrib[key] = rng.choice(["1e9", "1e-300", "0", "-1", "nan", "inf", "1000", "0.5", "abc"])
    return f"<compiler><lengthrange {short(attrs(lr))}>"


def remove_extension(root):
    """The model's <extension> (its plugins) removed; None when it has none."""
    ext = root.find("extension")
    if ext is None:
        return None
    root.remove(ext)
    return "delete <extension>"


def disable_gravity(root):
    """<flag gravity=disable>: the mutation when the chosen one found nothing to change."""
    el = ET.SubElement(ensure_element(root, "option"), "flag")
    el.attrib["gravity"] = "disable"
    return "<flag gravity=disable>"


def attrs(el):
    return " ".join(f"{k}={v!r}" for k, v in list(el.attrib.items())[:2])


def mutate_structure(rng, text, model_path):
    r = rng.random()
    if r < 0.12:
        return truncate(rng, text), "truncated"
    if r < 0.24:
        return byte_mutations(rng, text), "byte mutations"
    try:
        root = ET.fromstring(to_bytes(text))
    except ET.ParseError:
        return byte_mutations(rng, text), "byte mutations (unparsable input)"
    try:
        desc = structure_et(rng, root, model_path)
        text = ET.tostring(root, encoding="unicode")
    except RecursionError:  # a model nested too deep for ElementTree (an earlier mutation)
        return byte_mutations(rng, text), "byte mutations (deep input)"

    def nested(m):
        depth = int(m.group(1))
        return ("".join(f'<body name="nest{k}">' for k in range(depth)) +
                '<geom size="0.01" mass="0.001"/>' + "</body>" * depth)
    return re.sub(NEST_TAG + r' depth="(\d+)" />', nested, text), desc


# ----------------------------------------------------------------------------------------
# kind xml: character references and entities in MJCF attributes, written raw

# what MuJoCo's XML parser (tinyxml2) decodes to '%' (issue 34: class="a&#37;n..." aborted
# the process through a printf format in MuJoCo's parser)
PERCENT_REFS = ["&#37;", "&#x25;", "&#X25;", "&#0037;", "&#000000037;", "&#x0025;", "&#X000025;"]
OTHER_REFS = ["&#65;", "&#x41;", "&#0;", "&#x0;", "&#00;", "&#9;", "&#10;", "&#13;", "&#x7F;", "&#xD800;",
              "&#xDFFF;", "&#xFFFE;", "&#xFEFF;", "&#x10FFFF;", "&#x110000;", "&#1114112;", "&#128512;",
              "&#99999999999999999999;", "&#-37;", "&#;", "&#x;", "&#x25", "&#37", "&#3 7;", "&#xG;",
              "&#38;#37;", "&#x26;#x25;", "&#115;", "&#110;"]
NAMED_REFS = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&AMP;", "&nbsp;", "&bogus;", "&e;", "&", "&amp;#37;",
              "&amp;amp;", "&#38;"]
REF_TEXTS = ["a", "n", "s", "x", "1", "0.5", " ", "visual", "-", "0 0 1"]
ISSUE_VALUE = "a&#37;n&#37;n&#37;n&#37;s"  # issue 34's class value
PERCENT_REF_RE = re.compile(r"&#(0*37|[xX]0*25);")
NUL_REF_RE = re.compile(r"&#(0+|[xX]0+);")
COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
ATTR_RE = re.compile(r'(\s)([A-Za-z_:][-\w:.]*)="([^"<]*)"')
CLASS_ELEMENT_RE = re.compile(r"<(geom|body|site|joint|camera|light|motor|general|mesh|material)\b")
DECLARATION_RE = re.compile(r"\A(\ufeff?\s*<\?xml[^>]*\?>)?")


def refused_in_mjcf(text):
    """Whether MJCF text holds a '%' or a NUL outside comments, spelled out or as a
    character reference the XML parser decodes to one: input Nereid refuses before MuJoCo
    parses it (docs/robustness.md), so an exit 0 on it is a wrong success."""
    t = COMMENT_RE.sub("", text)
    return "%" in t or "\0" in t or PERCENT_REF_RE.search(t) is not None or NUL_REF_RE.search(t) is not None


def ref_value(rng):
    """An attribute value built of character references, entities and plain text (raw XML)."""
    if rng.random() < 0.1:
        return ISSUE_VALUE
    pools = [PERCENT_REFS] * 3 + [OTHER_REFS] * 3 + [NAMED_REFS] * 2 + [REF_TEXTS] * 3
    return "".join(rng.choice(rng.choice(pools)) for _ in range(rng.randint(1, 8)))


def outside_comments(text, matches):
    spans = [m.span() for m in COMMENT_RE.finditer(text)]
    return [m for m in matches if not any(a <= m.start() < b for a, b in spans)]


def set_raw_attr(text, m, name, value):
    """Sets attribute `name` of the element whose start tag match `m` begins, raw."""
    end = text.find(">", m.end())
    if end < 0:
        return text
    tag = text[m.start():end]
    a = re.search(r'\s' + re.escape(name) + r'="[^"]*"', tag)
    if a:
        tag = tag[:a.start()] + f' {name}="{value}"' + tag[a.end():]
    else:
        tag = tag[:m.end() - m.start()] + f' {name}="{value}"' + tag[m.end() - m.start():]
    return text[:m.start()] + tag + text[end:]


def mutate_xml(rng, text, model_path):
    """One character-reference mutation of a model's text; returns (text, description)."""
    op = rng.choices(["attr", "class", "name", "config", "doctype", "include", "comment"],
                     [30, 20, 10, 12, 12, 8, 8])[0]
    if op in ("class", "name"):
        elements = outside_comments(text, list(CLASS_ELEMENT_RE.finditer(text)))
        if elements:
            m = rng.choice(elements)
            value = ref_value(rng)
            return set_raw_attr(text, m, op, value), f"<{m.group(1)}> {op}={value}"
        op = "attr"
    if op == "config":
        configs = list(CONFIG_RE.finditer(text))
        if configs:
            m = rng.choice(configs)
            value = ref_value(rng) if rng.random() < 0.7 else m.group(4) + rng.choice(PERCENT_REFS + OTHER_REFS)
            new = f'<config{m.group(1)}key="{m.group(2)}"{m.group(3)}value="{value}"{m.group(5)}/>'
            return text[:m.start()] + new + text[m.end():], f"config {m.group(2)}={value}"
        op = "attr"
    if op == "doctype":
        value = rng.choice([ref_value(rng), "%n", "&#37;n", "abc", "&e;", "x" * 100_000])
        decl = rng.choice([f'<!DOCTYPE mujoco [<!ENTITY e "{value}">]>',
                           f'<!DOCTYPE mujoco [<!ENTITY e "{value}"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;">]>',
                           '<!DOCTYPE mujoco [<!ENTITY e SYSTEM "/etc/passwd">]>',
                           '<!DOCTYPE mujoco SYSTEM "file:///etc/passwd">', "<!DOCTYPE mujoco>"])
        at = DECLARATION_RE.match(text).end()
        text = text[:at] + decl + text[at:]
        attrs_ = outside_comments(text, [a for a in ATTR_RE.finditer(text) if a.start() > at + len(decl)])
        desc = f"{short(decl, 80)}"
        if attrs_:
            a = rng.choice(attrs_)
            use = rng.choice(["&e;", "&f;", a.group(3) + "&e;"])
            text = text[:a.start(3)] + use + text[a.end(3):]
            desc += f"; {a.group(2)}={use}"
        return text, desc
    if op == "include":
        folder = os.path.dirname(model_path)
        target = rng.choice([model_path.replace("/", "&#47;"), model_path + "&#0;.bak",
                             model_path[:-4] + "&#0;" + model_path[-4:], "&#47;dev&#47;null",
                             folder + "/&#x25;n.xml", folder + "&#0;", "&#0;", "/nonexistent&#10;.xml"])
        m = re.search(r"<mujoco\b[^>]*>", text)
        if m:
            return text[:m.end()] + f'<include file="{target}"/>' + text[m.end():], f"<include file={target}>"
        op = "attr"
    if op == "comment":
        value = ref_value(rng)
        m = re.search(r"<mujoco\b[^>]*>", text)
        at = m.end() if m else 0
        return text[:at] + f"<!-- {value} -->" + text[at:], f"comment <!-- {value} -->"
    attrs_ = outside_comments(text, list(ATTR_RE.finditer(text)))
    if not attrs_:
        return text + ISSUE_VALUE, "text after the document"
    a = rng.choice(attrs_)
    value = ref_value(rng)
    if rng.random() < 0.3:  # inside the old value
        at = rng.randint(0, len(a.group(3)))
        value = a.group(3)[:at] + value + a.group(3)[at:]
    return text[:a.start(3)] + value + text[a.end(3):], f"{a.group(2)}={value}"


def xml_coverage(models, source):
    """The xml kind's fixed cases: (origin, text, description, command): every spelling of
    '%' through run and info, then one of each other class of reference."""
    origin = "models/bluerov2_heavy/bluerov2_heavy.xml"
    text = dict(models).get(origin) or models[0][1]
    origin = origin if origin in dict(models) else models[0][0]
    path = os.path.join(source, origin)
    geom = outside_comments(text, [m for m in CLASS_ELEMENT_RE.finditer(text) if m.group(1) == "geom"])
    first = geom[0] if geom else outside_comments(text, list(CLASS_ELEMENT_RE.finditer(text)))[0]
    out = []
    for command in ("run", "info"):
        for spelling in PERCENT_REFS + ["%"]:
            value = f"a{spelling}n{spelling}n{spelling}n{spelling}s"
            out.append((origin, set_raw_attr(text, first, "class", value), f"<geom> class={value}", command))
    for value in ["&#0;", "a&#0;b", "&#xD800;", "&#x110000;", "&#99999999999999999999;", "&amp;&lt;&gt;&quot;&apos;",
                  "&bogus;", "&#38;#37;n", "&amp;#37;n", "&#115;&#110;"]:
        out.append((origin, set_raw_attr(text, first, "name", value), f"<geom> name={value}", "run"))
    at = DECLARATION_RE.match(text).end()
    m = re.search(r"<mujoco\b[^>]*>", text)
    for decl, use in [('<!DOCTYPE mujoco [<!ENTITY e "&#37;n">]>', "&e;"),
                      ('<!DOCTYPE mujoco [<!ENTITY e "abc">]>', "&e;"),
                      ('<!DOCTYPE mujoco [<!ENTITY e SYSTEM "/etc/passwd">]>', "&e;")]:
        t = set_raw_attr(text, first, "name", use)
        out.append((origin, t[:at] + decl + t[at:], f"{decl} and <geom> name={use}", "run"))
    for target in [path + "&#0;.bak", "&#47;dev&#47;null", path.replace("/", "&#47;")]:
        out.append((origin, text[:m.end()] + f'<include file="{target}"/>' + text[m.end():],
                    f"<include file={target}>", "run"))
    out.append((origin, text[:m.end()] + f"<!-- {ISSUE_VALUE} -->" + text[m.end():], f"comment <!-- {ISSUE_VALUE} -->",
                "run"))
    return out


# ----------------------------------------------------------------------------------------
# kind cli: every flag of every subcommand (from `nereid --help`) given hostile values

# value classes of a number flag: (class, text); all are refused by every number flag of
# `nereid` (zero is fine for --seed)
NUMBER_CLASSES = [("nan", "nan"), ("inf", "inf"), ("-inf", "-inf"), ("negative", "-1"), ("zero", "0"),
                  ("huge", "1e300"), ("2^63", "9223372036854775808"), ("2^64", "18446744073709551616"),
                  ("non-number", "abc")]
ZERO_IS_FINE = {("baselines", "--seed"), ("identify rig", "--seed"), ("ros", "--duration")}
# more texts for the random cases: (text, known bad?) (None: either)
MORE_NUMBERS = [("NaN", True), ("-nan", True), ("Infinity", True), ("1e400", True), ("-1e300", True),
                ("-9223372036854775809", True), ("1e", True), ("--", True), ("", True), ("0x10", None),
                ("1,5", True), ("1_000", True), (" 1", None), ("5e-324", None), ("1e-300", None), ("-0", None),
                ("9223372036854775807", None), ("4294967296", None), ("2147483648", None), ("0.5", None),
                ("1", None), ("3", None), ("%n%s", True), ("\udcff", True), ("\u0661", True)]
CHOICE_VALUES = [("", True), ("bogus", True), ("%n%s", True), ("x" * 5000, True), ("\udcff", True), ("NEREID", None),
                 ("RK4", None), (" rk4", None), ("rk4 ", None)]
# the output files a command always writes, and those it may write, into --out DIR
OUTPUT_FILES = {"run": (["trajectory.csv", "summary.json"], ["pid.csv", "path.csv", "mpc.csv", "stabilize.csv",
                                                              "vms.csv"]),
                "crosscheck": (["report.json"], ["uk.csv", "weld.csv", "merged.csv"])}
VALIDATE_STUB = "import sys\nsys.exit(0)\n"  # NEREID_VALIDATE_SCRIPT: nereid's own checks, not the long run
# how each command is run when one of its flags is fuzzed: the positional argument, the
# other flags (cheap values), the environment; "slow" commands (bench: seconds even at
# its smallest) are given only values they must refuse before any work
COMMAND_BASES = {
    "run": {"input": "@SOURCE@/scenarios/default.json", "flags": {"--duration": "0.2", "--out": "@CASE@/out"}},
    "info": {"input": "@SOURCE@/models/bluerov2_heavy/bluerov2_heavy.xml", "flags": {}},
    "crosscheck": {"input": "@SOURCE@/scenarios/crosscheck/case_a_l1.json",
                   "flags": {"--out": "@CASE@/out", "--no-plots": None}},
    "baselines": {"input": "BlueROV2StationKeeping-v0",
                  "flags": {"--episodes": "1", "--no-mpc": None, "--out": "@CASE@/out/baselines.json"}},
    "validate": {"input": None, "flags": {"--out": "@CASE@/out", "--work": "@CASE@/work"},
                 "env": {"NEREID_VALIDATE_SCRIPT": "@CASE@/stub.py"}, "setup": [("file", "stub.py", VALIDATE_STUB)]},
    "coefficients": {"input": "@SOURCE@/models/example_vehicle/hull.stl",
                     "flags": {"--max-panels": "40", "--out": "@CASE@/out.json"}, "slow": True},
    # identify and replay run simulations and fits (seconds): only values refused before the work
    # (every 3rd value class: each case starts Python, about 0.5 s)
    "identify tow": {"input": "@SOURCE@/examples/logs/tow", "flags": {"--out": "@CASE@/out.json"}, "slow": True,
                     "every": 3},
    "identify rig": {"input": None, "flags": {"--dof": "surge", "--speeds": "0.5", "--runs": "1", "--hold": "2",
                                              "--out": "@CASE@/out"}, "slow": True, "every": 3},
    "identify free": {"input": "@SOURCE@/examples/logs/trial.csv",
                      "flags": {"--model": "@SOURCE@/models/bluerov/bluerov.xml", "--max-evaluations": "1"},
                      "slow": True, "every": 3},
    "replay": {"input": "@SOURCE@/examples/logs/trial.csv",
               "flags": {"--model": "@SOURCE@/models/bluerov/bluerov.xml", "--out": "@CASE@/out", "--no-plots": None},
               "slow": True, "every": 3},
    # the ROS 2 bridge runs until stopped: only values it refuses before any ROS node
    "ros": {"input": "@SOURCE@/models/bluerov2_heavy/bluerov2_heavy.xml",
            "flags": {"--mode": "fast", "--duration": "0.1"}, "slow": True, "every": 3},
    "bench": {"input": None, "flags": {"--steps": "1", "--samples": "1", "--no-rl": None, "--no-mpc": None,
                                       "--out": "@CASE@/out/bench.json"}, "slow": True},
}
HELP_COMMAND_RE = re.compile(r"^  nereid (\w+)(.*)$")
SUBCOMMANDS = {"identify"}  # commands whose first word names a subcommand: "identify tow", ...
HELP_FLAG_RE = re.compile(r"\[(--[\w-]+)(?:[ =]([^\[\]]+?))?\s*(?=[\[\]])")


def read_cli_commands(nereid):
    """{command: {"positional": placeholder or None, "flags": [(flag, placeholder or None)]}}
    from `nereid --help` (every usage line and its continuation lines)."""
    text = subprocess.run([nereid, "--help"], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL).stdout
    commands, current = {}, None
    for line in text.splitlines():
        m = HELP_COMMAND_RE.match(line)
        if m:
            current = m.group(1)
            rest = m.group(2).strip()
            if current in SUBCOMMANDS and rest:
                sub = rest.split()[0]
                current, rest = f"{current} {sub}", rest[len(sub):].strip()
            positional = rest.split()[0] if rest and not rest.startswith("[") else None
            commands[current] = {"positional": positional, "flags": []}
        elif current and re.match(r"^\s+\[", line):
            rest = line
        else:
            current = None
            continue
        for f in HELP_FLAG_RE.finditer(rest + " ]"):
            if f.group(1) not in [x for x, _ in commands[current]["flags"]]:
                commands[current]["flags"].append((f.group(1), f.group(2)))
    return commands


def flag_type(flag, placeholder):
    if placeholder is None:
        return "switch"
    if "|" in placeholder:
        return "choice"
    if flag == "--seed" or placeholder == "N":
        return "int"
    if placeholder in ("S", "H", "MB", "HZ", "X"):
        return "real"
    if flag == "--models":
        return "in-dir"
    if flag == "--reference":
        return "in-file"
    if placeholder == "DIR":
        return "out-dir"
    if placeholder.startswith("FILE"):
        return "out-file"
    return "text"


def path_names(path):
    """What an error about `path` must name: its last component (or the one above it)."""
    parts = [p for p in path.replace("@CASE@", "").split("/") if p]
    return parts[-2:] if parts else []


def path_classes(kind, command, flag, unwritable):
    """[(class, value, setup, expectation)] for a path flag or positional argument."""
    out = []
    if kind in ("out-dir", "out-file"):
        leaf = "out" if kind == "out-dir" else "out.json"
        if unwritable:
            out.append(("unwritable", f"{unwritable}/{leaf}", [], err(path_names(f"{unwritable}/{leaf}"))))
        out.append(("parent-is-a-file", f"@CASE@/afile/{leaf}", [("file", "afile", "x")], err(["afile"])))
        if kind == "out-dir":
            out.append(("a-file", "@CASE@/afile", [("file", "afile", "x")], err(["afile"])))
            if command in OUTPUT_FILES:
                always, maybe = OUTPUT_FILES[command]
                links = [("symlink", "full/" + n, "/dev/full") for n in always + maybe]
                out.append(("full-disk", "@CASE@/full", links, err(always + maybe, no_wrote=True)))
        else:
            out.append(("a-folder", "@CASE@/adir", [("dir", "adir")], err(["adir"])))
            out.append(("full-disk", "@CASE@/full.json", [("symlink", "full.json", "/dev/full")],
                        err(["full.json"], no_wrote=True)))
            out.append(("dev-full", "/dev/full", [], err(["/dev/full"], no_wrote=True)))
        out.append(("missing-parents", f"@CASE@/a/b/c/{leaf}", [], None))
    else:  # an input: a file, or a folder (--models)
        suffix = {"run": ".json", "info": ".xml", "crosscheck": ".json"}.get(command, ".json")
        out.append(("missing", f"@CASE@/missing{suffix}", [], err([f"missing{suffix}"])))
        out.append(("empty", "", [], err([])))
        if kind == "in-dir":
            out.append(("a-file", "@CASE@/afile", [("file", "afile", "x")], err(["afile"])))
        else:
            out.append(("a-folder", f"@CASE@/adir{suffix}", [("dir", f"adir{suffix}")], err([f"adir{suffix}"])))
            # an endless file (/dev/zero) and an empty one; for --reference the script reads them
            reads = command != "validate"
            out.append(("dev-zero", f"@CASE@/zero{suffix}", [("symlink", f"zero{suffix}", "/dev/zero")],
                        err([f"zero{suffix}"]) if reads else None))
            out.append(("dev-null", f"@CASE@/null{suffix}", [("symlink", f"null{suffix}", "/dev/null")],
                        err([f"null{suffix}"]) if reads else None))
            out.append(("long-name", "@CASE@/" + "x" * 5000 + suffix, [], err([])))
            out.append(("percent", f"@CASE@/%n%s%n{suffix}", [], err(["%n%s%n"])))
    return out


def err(names, no_wrote=False):
    """The expectation of a known-bad input: a non-zero exit, naming one of `names`."""
    return {"error": True, "names": list(names), "no_wrote": no_wrote}


def nul_scenario(source, command):
    """A scenario whose model path holds a NUL (argv cannot): truncated at the NUL it would
    name the shipped model itself."""
    model = os.path.join(source, "models", "bluerov2_heavy", "bluerov2_heavy.xml")
    doc = {"model": model + "\u0000.bak"}
    if command == "crosscheck":
        doc = {"model": os.path.join(source, "models", "multi", "case_a_l1.xml") + "\u0000.bak", "duration": 0.2,
               "peak": {"axis": "x"}}
    return to_bytes(json.dumps(doc))


def cli_case_parts(command, base, fuzzed):
    """argv (tokens), setup, env for `command` with `fuzzed` = [(flag or None for the
    positional, value or MISSING, setup)] replacing the base's values."""
    flags = dict(base["flags"])
    positional = base["input"]
    setup = list(base.get("setup", []))
    tail = []
    for flag, value, extra in fuzzed:
        setup += extra
        if flag is None:
            positional = value
            continue
        flags.pop(flag, None)
        if value is MISSING:
            tail = [flag]  # a flag without its value, last
        elif value is SWITCH_TWICE:
            tail[:0] = [flag, flag]
        else:
            tail[:0] = [flag, value] if value is not None else [flag]
    argv = ["@NEREID@", *command.split()] + ([positional] if positional is not None else [])
    for f, v in flags.items():
        argv += [f] if v is None else [f, v]
    return argv + tail, setup, dict(base.get("env", {}))


MISSING, SWITCH_TWICE = object(), object()


def flag_values(command, flag, kind, unwritable, rng=None):
    """[(class, value, setup, expectation)] for one flag: all of them (rng None), else one."""
    if kind in ("int", "real"):
        zero_ok = (command, flag) in ZERO_IS_FINE
        values = [(c, t, [], None if (c == "zero" and zero_ok) else err([]))
                  for c, t in NUMBER_CLASSES]
        if rng is not None:
            values += [(f"text {t!r}", t, [], err([]) if bad else None) for t, bad in MORE_NUMBERS]
    elif kind == "choice":
        values = [(f"text {t!r}", t, [], err([]) if bad else None) for t, bad in CHOICE_VALUES]
    elif kind == "switch":
        values = [("with a value", flag + "=nan", [], None), ("twice", SWITCH_TWICE, [], None)]
    elif kind == "text":
        values = [(f"text {t!r}", t, [], None) for t in ["", "%n%s", "x" * 5000, "\udcff"]]
    else:
        values = path_classes(kind, command, flag, unwritable)
    if kind != "switch":
        values.append(("no value", MISSING, [], err([])))
    return values if rng is None else [rng.choice(values)]


def positional_values(command, placeholder, unwritable, source):
    if command == "baselines":
        return [(f"task {t!r}", t, [], err([])) for t in ["", "NoSuchTask-v0", "%n%s%n", "x" * 5000]]
    suffix = ".xml" if command == "info" else ".json"
    out = path_classes("in-file", command, None, unwritable)
    if suffix == ".json":
        out.append(("nul", "@INPUT@", [], err(["/model"])))
    return out


def cli_coverage(commands, unwritable, source):
    """Every flag (and positional argument) of every command with every value class:
    [(command, description, argv, setup, env, data, expectation)]."""
    out = []
    for command, spec in commands.items():
        base = COMMAND_BASES.get(command)
        if base is None:
            continue
        targets = [(None, spec["positional"])] if spec["positional"] else []
        targets += spec["flags"]
        for flag, placeholder in targets:
            kind = flag_type(flag, placeholder) if flag else None
            values = flag_values(command, flag, kind, unwritable) if flag else \
                positional_values(command, placeholder, unwritable, source)
            # "every": k keeps every k-th value class (a command whose every case starts Python)
            for cls, value, setup, expect in values[::base.get("every", 1)]:
                if base.get("slow") and not (expect and expect.get("error") and kind in ("int", "real", "choice")):
                    continue
                data = (nul_scenario(source, command), ".json") if value == "@INPUT@" else None
                argv, full_setup, env = cli_case_parts(command, base, [(flag, value, setup)])
                out.append((command, f"{command} {flag or placeholder}: {cls}", argv, full_setup, env, data, expect))
    return out


def cli_random(rng, commands, unwritable, source, seeds):
    """A random command line: 1-3 flags of one command given hostile values."""
    usable = [c for c in commands if c in COMMAND_BASES]
    command = rng.choice(usable)
    base = copy.deepcopy(COMMAND_BASES[command])
    spec = commands[command]
    data = None
    if command == "run" and rng.random() < 0.7:  # another shipped input
        origin, text = rng.choice(seeds[0] + [(o, dumps(d)) for o, d in seeds[1]])
        base["input"], data = "@INPUT@", (to_bytes(text), os.path.splitext(origin)[1])
    elif command == "crosscheck":
        folder = os.path.join(source, "scenarios", "crosscheck")
        files = sorted(f for f in os.listdir(folder) if f.endswith(".json")) if os.path.isdir(folder) else []
        if files:
            base["input"] = "@SOURCE@/scenarios/crosscheck/" + rng.choice(files)
    targets = ([(None, spec["positional"])] if spec["positional"] else []) + spec["flags"]
    chosen = rng.sample(targets, min(len(targets), rng.choices([1, 2, 3], [60, 30, 10])[0])) if targets else []
    fuzzed, parts, expects = [], [], []
    for flag, placeholder in chosen:
        kind = flag_type(flag, placeholder) if flag else None
        values = flag_values(command, flag, kind, unwritable, rng) if flag else \
            [rng.choice(positional_values(command, placeholder, unwritable, source))]
        cls, value, setup, expect = values[0]
        if base.get("slow") and not (expect and expect.get("error") and kind in ("int", "real", "choice")):
            continue
        if value == "@INPUT@":
            data = (nul_scenario(source, command), ".json")
        fuzzed.append((flag, value, setup))
        parts.append(f"{flag or placeholder}: {cls}")
        expects.append(expect)
    numbers = [f for f, p in spec["flags"] if flag_type(f, p) in ("int", "real")]
    if base.get("slow") and not fuzzed and numbers:  # never the slow command's whole work
        flag = rng.choice(numbers)
        cls, value = rng.choice([c for c in NUMBER_CLASSES if c[0] != "zero"])
        fuzzed.append((flag, value, []))
        parts.append(f"{flag}: {cls}")
        expects.append(err([]))
    argv, setup, env = cli_case_parts(command, base, fuzzed)
    bad = [e for e in expects if e and e.get("error")]
    expect = None
    if bad:  # any known-bad value: an error, naming one of the bad values' names when every
        # value is known (a value that may or may not be refused may be the one named)
        names = [] if any(not e or not e["names"] for e in expects) else [n for e in bad for n in e["names"]]
        expect = err(names, no_wrote=all(e["no_wrote"] for e in bad))
    return command, f"{command} " + ("; ".join(parts) or "(base)"), argv, setup, env, data, expect


def probe_unwritable(work):
    """A folder this process cannot create anything in (as root, permissions do not stop
    it: then a path under /sys or /proc), or None."""
    candidates = []
    if os.geteuid() != 0:
        ro = os.path.join(work, "read-only")
        os.makedirs(ro, exist_ok=True)
        os.chmod(ro, 0o500)
        candidates.append(ro)
    candidates += ["/sys/nereid-fuzz", "/proc/nereid-fuzz"]
    for c in candidates:
        try:
            os.makedirs(os.path.join(c, "probe"))
        except OSError:
            return c
        shutil.rmtree(c, ignore_errors=True)
    return None


# ----------------------------------------------------------------------------------------
# kind python: the Python API (tools/fuzz/pyapi.py), in a subprocess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import files  # noqa: E402  (the file kind; standard library only)
import pyapi  # noqa: E402  (standard library only at import)

PY_WORKER = os.path.abspath(pyapi.__file__)
PY_GROUP = 26  # operations per process in the coverage cases
PY_EVERY = 25  # a random python case every PY_EVERY rounds of the other kinds
FILE_EVERY = 10  # a random file case (a Python tool: 2-3 s of CPU) every FILE_EVERY rounds


def python_operations(envs=True):
    """[name, variant] of every operation variant (without the RL environments' when
    Gymnasium is not there)."""
    return [[name, i] for name, (variants, _) in pyapi.OPS.items() for i in range(len(variants))
            if envs or not name.startswith("env_")]


def python_coverage(envs=True):
    """Every operation variant once, in groups of PY_GROUP per process."""
    todo = python_operations(envs)
    return [todo[k:k + PY_GROUP] for k in range(0, len(todo), PY_GROUP)]


def python_random(rng, envs=True):
    todo = python_operations(envs)
    return [rng.choice(todo) for _ in range(rng.randint(3, 8))]


# ----------------------------------------------------------------------------------------
# kind (b): scenario JSON

class Raw:
    """JSON text written as is (1e400, a lone surrogate escape, deep nesting)."""

    def __init__(self, text):
        self.text = text


class Dup:
    """An object written from (key, value) pairs, duplicated keys allowed."""

    def __init__(self, pairs):
        self.pairs = pairs


SCALARS = (str, int, float, bool, type(None))


def dumps(v):
    """JSON text of v (Raw and Dup as such); lone surrogates other than the surrogate-escaped
    bytes (U+DC80..U+DCFF) become \\uXXXX escapes."""
    return LONE_SURROGATE_RE.sub(lambda m: "\\u%04x" % ord(m.group(0)), _dumps(v))


def _dumps(v):
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, Dup):
        return "{" + ", ".join(json.dumps(k, ensure_ascii=False) + ": " + _dumps(x) for k, x in v.pairs) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k, ensure_ascii=False) + ": " + _dumps(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        if all(isinstance(x, SCALARS) for x in v):
            return json.dumps(v, ensure_ascii=False)
        return "[" + ", ".join(_dumps(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)  # NaN and Infinity pass as such


def to_bytes(text):
    """UTF-8, with the surrogate-escaped bytes (U+DC80..U+DCFF) written as those raw bytes."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


JSON_NUMBERS = [-1, 0, -0.0, 1e308, -1e308, 5e-324, 1e-300, 2 ** 53 + 1, 2 ** 63, 2 ** 64, -2 ** 63 - 1,
                4294967297, 1e20, 0.5, 1, 1000, 1e9, float("nan"), float("inf"), float("-inf"),
                Raw("1e400"), Raw("-1e400"), Raw("1e-400"), Raw("-0"), Raw("1" + "0" * 400),
                Raw("0." + "0" * 400 + "1")]


def hostile_json(rng, old):
    r = rng.random()
    if isinstance(old, (int, float)) and not isinstance(old, bool) and r < 0.5:
        return rng.choice(JSON_NUMBERS)
    if isinstance(old, list) and old and r < 0.5:
        op = rng.randrange(5)
        if op == 0:
            return old[:-1]
        if op == 1:
            return old + [copy.deepcopy(rng.choice(old))]
        if op == 2:
            i = rng.randrange(len(old))
            return old[:i] + [rng.choice(JSON_NUMBERS + ["x", None, True, [], {}])] + old[i + 1:]
        if op == 3:
            return []
        return [old]
    if isinstance(old, str) and r < 0.5:
        return rng.choice(["", old.upper(), old + "x", " " + old, "\udcff", Raw('"\\ud800"'),
                           Raw('"a\\u0000b"'), old * 1000, hostile_text(rng)])
    return rng.choice([
        "x", "", True, False, None, [], {}, [1, 2], {"a": 1}, [[1, 2, 3]], rng.choice(JSON_NUMBERS),
        [float("nan")] * 3, "1", "0.005", hostile_text(rng), Raw('"\\ud800"'), Raw('"\\u0000"'),
        [None] * 6, {"": None},
    ])


def json_nodes(doc):
    """(container, key) of every node below the root, depth first."""
    out, stack = [], [doc]
    while stack:
        c = stack.pop()
        items = c.items() if isinstance(c, dict) else enumerate(c) if isinstance(c, list) else ()
        for k, v in items:
            out.append((c, k))
            if isinstance(v, (dict, list)):
                stack.append(v)
    return out


def nest(rng, depth, inner="1"):
    if rng.random() < 0.5:
        return Raw("[" * depth + inner + "]" * depth)
    return Raw('{"a": ' * depth + inner + "}" * depth)


# the scenario's "waves" objects the "waves" mutation starts from (docs/scenarios.md)
WAVES = [{"wave_type": "regular", "wave_height": 0.5, "wave_period": 4, "wave_direction": 0.3, "water_depth": 30},
         {"wave_type": "jonswap", "wave_height": 0.3, "wave_period": 4, "wave_direction": 0, "water_depth": 0,
          "wave_gamma": 3.3, "wave_spreading": 10, "wave_components": 1024, "wave_seed": 7},
         {"wave_type": "pm", "wave_height": 0.3, "wave_period": 4, "wave_components": 64}]

# the navigation filter's object (every key, docs/scenarios.md), flown on the estimate
NAVIGATION = [{"initial_position_sd": 0.05, "initial_velocity_sd": 0.02, "initial_attitude_sd": 0.01,
               "initial_current_sd": 0.5, "current_walk": 0.001, "acoustic": True}]


def with_hostile_object(rng, doc, name, choices):
    """doc[name] = one of `choices` with one of its keys given a hostile value or dropped;
    returns the change's description."""
    obj = dict(rng.choice(choices))
    key = rng.choice(list(obj))
    if rng.random() < 0.8:
        obj[key] = hostile_json(rng, obj[key])
        change = f"{key} = {short(dumps(obj[key]))}"
    else:
        del obj[key]
        change = f"without {key}"
    doc[name] = obj
    return f"/{name} {change}"


def mutate_scenario(rng, doc, scenario_path):
    """One mutation of a scenario; returns (text, description). doc is changed in place."""
    op = rng.choices(["value", "delete", "unknown", "dupkey", "nest", "huge_array", "huge_string",
                      "document", "truncate", "bytes", "model", "waves", "navigation"],
                     [40, 10, 6, 5, 7, 5, 4, 5, 6, 6, 6, 6, 4])[0]
    if op == "waves" and isinstance(doc, dict):  # the waves object, one of its keys hostile or dropped
        change = with_hostile_object(rng, doc, "waves", WAVES)
        return dumps(doc), change
    if op == "navigation" and isinstance(doc, dict):  # the filter's object, the run flown on its estimate
        doc["feedback"] = "estimate"
        change = with_hostile_object(rng, doc, "navigation", NAVIGATION)
        return dumps(doc), change
    nodes = json_nodes(doc) if isinstance(doc, (dict, list)) else []
    if not nodes and op in ("value", "delete", "nest", "huge_array", "huge_string"):
        op = "document"
    if op == "value":
        c, k = rng.choice(nodes)
        c[k] = hostile_json(rng, c[k])
        return dumps(doc), f"{pointer(doc, c, k)} = {short(dumps(c[k]))}"
    if op == "delete":
        c, k = rng.choice(nodes)
        where = pointer(doc, c, k)
        del c[k]
        return dumps(doc), f"delete {where}"
    objects = [x for x in [doc] + [c[k] for c, k in nodes] if isinstance(x, dict)]
    if not objects and op in ("unknown", "dupkey"):
        op = "document"
    if op == "unknown":
        o = rng.choice(objects)
        key = rng.choice(["bogus", "", "Model", "duration ", "\udcff", "x" * 1000])
        o[key] = rng.choice([1, "x", None, {}, []])
        return dumps(doc), f"unknown key {short(key)!r}"
    if op == "dupkey":
        o = rng.choice([x for x in objects if x] or objects)
        pairs = list(o.items())
        if pairs:
            k, v = rng.choice(pairs)
            pairs.append((k, hostile_json(rng, v) if rng.random() < 0.5 else v))
        text = dumps(doc)
        return text.replace(dumps(o), dumps(Dup(pairs)), 1), "duplicated key"
    if op == "nest":
        c, k = rng.choice(nodes)
        depth = rng.choice([63, 64, 65, 100, 500, 1000, 100000])
        c[k] = nest(rng, depth)
        return dumps(doc), f"{pointer(doc, c, k)} nested {depth} deep"
    if op == "huge_array":
        arrays = [(c, k) for c, k in nodes if isinstance(c[k], list) and c[k]]
        c, k = rng.choice(arrays) if arrays else rng.choice(nodes)
        unit = c[k][0] if isinstance(c[k], list) and c[k] else 0
        item = dumps(unit)
        n = max(1, rng.choice([100_000, 1_000_000, 4_000_000]) // (len(item) + 2))
        c[k] = Raw("[" + ", ".join([item] * n) + "]")
        return dumps(doc), f"{pointer(doc, c, k)} = {n} copies of {short(dumps(unit))}"
    if op == "huge_string":
        c, k = rng.choice(nodes)
        c[k] = big_repeat(rng, rng.choice(["a", "\u00e9", "\\", "\""]), rng.choice([100_000, 2_000_000]))
        return dumps(doc), f"{pointer(doc, c, k)} = a {len(c[k])}-character string"
    if op == "document":
        text = dumps(doc)
        choice = rng.randrange(10)
        alternatives = [("[]", "[]"), ("an array", "[" + text + "]"), ("1", "1"), ("a string", '"x"'),
                        ("null", "null"), ("empty", ""), ("whitespace", " \n\t"),
                        ("BOM", "\ufeff" + text), ("trailing garbage", text + " }x"),
                        ("two documents", text + text)]
        name, new = alternatives[choice]
        return new, f"document: {name}"
    if op == "truncate":
        return truncate(rng, dumps(doc)), "truncated"
    if op == "bytes":
        return byte_mutations(rng, dumps(doc)), "byte mutations"
    target = rng.choice(["/nonexistent/model.xml", "", "/dev/null", "/", os.path.dirname(scenario_path),
                         scenario_path, "model.xml", "../model.xml", "\udcff.xml",
                         Raw('"/tmp/a\\u0000b.xml"'), "x" * 5000 + ".xml"])
    if isinstance(doc, dict):
        doc["model"] = target
    return dumps(doc), f"model = {short(dumps(target))}"


def pointer(doc, container, key):
    """The JSON pointer of container[key] (searched; only for the description)."""
    stack = [(doc, "")]
    while stack:
        c, path = stack.pop()
        if c is container:
            return f"{path}/{key}"
        items = c.items() if isinstance(c, dict) else enumerate(c) if isinstance(c, list) else ()
        for k, v in items:
            if isinstance(v, (dict, list)):
                stack.append((v, f"{path}/{k}"))
    return f"?/{key}"


def short(s, n=60):
    s = s if isinstance(s, str) else str(s)
    s = to_bytes(s).decode("utf-8", "backslashreplace").replace("\n", "\\n").replace("\r", "\\r")
    return s if len(s) <= n else f"{s[:n]}... ({len(s)} chars)"


# ----------------------------------------------------------------------------------------
# cases

class Case:
    """One input and how it is run. data: bytes of the input file (or None); command: argv
    tokens (@NEREID@, @INPUT@, @CASE@, @SOURCE@ are replaced when it runs; None: `nereid
    run INPUT`); setup: files made in the case folder first, [("file", name, text) |
    ("dir", name) | ("symlink", name, target)]; env: more environment; expect: None, or
    {"error": True, "names": [...], "no_wrote": bool} for a known-bad input; ops: the
    pyapi operations of a python case."""

    def __init__(self, cid, kind, origin, description, data, suffix, command=None, setup=(), env=None,
                 expect=None, ops=None, coverage=False):
        self.id, self.kind, self.origin, self.description = cid, kind, origin, description
        self.data, self.suffix = data, suffix
        self.command, self.setup, self.env, self.expect, self.ops = command, list(setup), env or {}, expect, ops
        self.coverage = coverage  # a fixed case of the coverage list (run whatever the budget)


class Generator:
    """Case N of seed S of each kind, as a pure function of (S, N), the shipped inputs and
    `nereid --help`. The config, scenario and structure kinds share one numbering (case N
    has kind N mod 3, ids "N"); the xml, cli and python kinds number their own cases
    ("xml-N", "cli-N", "py-N"), the first ones being their coverage lists."""

    def __init__(self, args, seeds, plugin_keys, commands, unwritable, envs=True):
        self.args, self.seeds, self.plugin_keys = args, seeds, plugin_keys
        self.commands, self.unwritable = commands, unwritable
        self.xml_cover = xml_coverage(seeds[0], args.source)
        self.cli_cover = cli_coverage(commands, unwritable, args.source)
        self.envs = envs
        self.py_cover = python_coverage(envs)
        self.file_inputs = files.load(args.source)

    def coverage_counts(self):
        return {"xml": len(self.xml_cover), "cli": len(self.cli_cover), "python": len(self.py_cover),
                "file": files.coverage_count(self.file_inputs)}

    def make(self, cid):
        """The case with id `cid` ("N", "xml-N", "cli-N", "py-N")."""
        kind, _, n = cid.rpartition("-")
        n = int(n)
        if not kind:
            return make_case(self.seeds, self.plugin_keys, self.args.source, self.args.seed, n, KINDS)
        if kind == "xml":
            return self.xml(n)
        if kind == "cli":
            return self.cli(n)
        if kind == "py":
            return self.python(n)
        if kind == "file":
            return self.file(n)
        raise ValueError(f"case id {cid!r}: expected N, xml-N, cli-N, py-N or file-N")

    def xml(self, n):
        if n < len(self.xml_cover):
            origin, text, desc, command = self.xml_cover[n]
            coverage = True
        else:
            rng = random.Random(f"nereid-fuzz/{self.args.seed}/xml/{n}")
            origin, text = rng.choice(self.seeds[0])
            descs = []
            for _ in range(rng.choices([1, 2, 3], [70, 20, 10])[0]):
                text, d = mutate_xml(rng, text, os.path.join(self.args.source, origin))
                descs.append(d)
            desc, command, coverage = "; ".join(descs), "info" if rng.random() < 0.2 else "run", False
        argv = ["@NEREID@", "info", "@INPUT@"] if command == "info" else None
        return Case(f"xml-{n}", "xml", origin, f"{command}: {desc}", to_bytes(text), ".xml", command=argv,
                    coverage=coverage)

    def cli(self, n):
        if n < len(self.cli_cover):
            parts, coverage = self.cli_cover[n], True
        else:
            rng = random.Random(f"nereid-fuzz/{self.args.seed}/cli/{n}")
            parts, coverage = cli_random(rng, self.commands, self.unwritable, self.args.source, self.seeds), False
        command, desc, argv, setup, env, data, expect = parts
        data, suffix = data if data else (None, ".json")
        return Case(f"cli-{n}", "cli", f"nereid {command}", desc, data, suffix, command=argv, setup=setup, env=env,
                    expect=expect, coverage=coverage)

    def python(self, n):
        if n < len(self.py_cover):
            ops, coverage = self.py_cover[n], True
        else:
            ops, coverage = python_random(random.Random(f"nereid-fuzz/{self.args.seed}/py/{n}"), self.envs), False
        desc = ", ".join(f"{name}({short(repr(pyapi.OPS[name][0][i][0]), 40)})" for name, i in ops)
        return Case(f"py-{n}", "python", "tools/fuzz/pyapi.py", desc, to_bytes(json.dumps(ops)), ".json",
                    ops=ops, coverage=coverage)

    def file(self, n):
        parts = files.case_parts(self.args.seed, n, self.file_inputs)
        if parts is None:
            return None
        origin, data, suffix, argv, setup, desc, bad, coverage = parts
        expect = err([files.INPUT_NAME + suffix]) if bad else None
        return Case(f"file-{n}", "file", origin, desc, data, suffix, command=["@NEREID@", *argv], setup=setup,
                    expect=expect, coverage=coverage)


def make_case(seeds, plugin_keys, source, seed, n, kinds):
    kind = MUTANT_KINDS[n % len(MUTANT_KINDS)]
    if kind not in kinds:
        return None
    rng = random.Random(f"nereid-fuzz/{seed}/{n}")
    models, scenarios = seeds
    steps = rng.choices([1, 2, 3], [75, 18, 7])[0]
    descriptions = []
    if kind == "scenario":
        origin, doc = rng.choice(scenarios)
        doc = copy.deepcopy(doc)
        path = os.path.join(source, origin)
        text = dumps(doc)
        for _ in range(steps):
            try:
                text, d = mutate_scenario(rng, doc, path)
            except RecursionError:  # a document nested too deep for dumps (an earlier mutation)
                break
            descriptions.append(d)
            if len(text) > 100_000:  # a huge document is mutated no further (this script would be slow)
                break
            try:  # mutate further only while the text is still a document this script can read
                doc = json.loads(text)
            except (ValueError, RecursionError):
                break
        return Case(str(n), kind, origin, "; ".join(descriptions), to_bytes(text), ".json")
    if kind == "config":
        origin, text = rng.choice([m for m in models if CONFIG_RE.search(m[1])])
        for _ in range(steps):
            if not CONFIG_RE.search(text):
                break
            text, d = mutate_config(rng, text, plugin_keys)
            descriptions.append(d)
    else:
        origin, text = rng.choice(models)
        for _ in range(steps):
            text, d = mutate_structure(rng, text, os.path.join(source, origin))
            descriptions.append(d)
    return Case(str(n), kind, origin, "; ".join(descriptions), to_bytes(text), ".xml")


def shipped_cases(seeds):
    models, scenarios = seeds
    out = [(origin, to_bytes(text), ".xml") for origin, text in models]
    out += [(origin, to_bytes(dumps(doc)), ".json") for origin, doc in scenarios]
    return [Case(f"shipped-{i}", "shipped", origin, "unchanged", data, suffix)
            for i, (origin, data, suffix) in enumerate(out)]


def limit_child(memory_mb, output_mb):
    def apply():
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if memory_mb > 0:
            b = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (b, b))
        if output_mb > 0:  # a larger file ends the run with SIGXFSZ
            b = output_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_FSIZE, (b, b))
    return apply


def command_for(nereid, input_path, out_dir):
    return [nereid, "run", input_path, "--out", out_dir, "--duration", RUN_DURATION]


def classify(returncode, stderr, stdout, summary, timed_out):
    """(outcome, message) for one run; see the module docstring."""
    message = stderr.split("\nusage:\n", 1)[0].strip() if stderr else ""
    if message.startswith("usage:"):
        message = ""
    if timed_out:
        return "hang", message
    if returncode == 0:
        return "ok", message
    if returncode in (1, 2, 3):
        if message:
            return "error", message
        # a run stopped by a diverged state or a MuJoCo error reports it in summary.json
        # (and as "error: ..." on stdout) rather than on stderr
        status = summary.get("status") if isinstance(summary, dict) else None
        if returncode in (1, 3) and status in ("diverged", "mujoco_error") and summary.get("error"):
            return "error", str(summary["error"])
        return "crash", message
    return "crash", message


LOADER_RETRIES, LOADER_WAIT_S = 5, 3
TRACEBACK = "Traceback (most recent call last)"
BYTE_ESCAPE_RE = re.compile(r"\\x[0-9a-f]{2}")
WROTE_RE = re.compile(r"^wrote ", re.M)


class EnvironmentProblem(Exception):
    """nereid cannot be started at all (no fault of the input)."""


def loader_failed(returncode, stderr, stdout="", case=None):
    """Whether the program did not start for a reason that is no fault of the input: the
    dynamic loader failed, or (python) the nereid module did not import."""
    if returncode == 127 and "error while loading shared libraries" in stderr:
        return True
    return case is not None and case.ops is not None and returncode != 0 and "@@BEGIN" not in stdout \
        and "ImportError" in stderr


def execute(cmd, cwd, args, env=None):
    """Runs cmd; returns (process, stdout, stderr, timed out)."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, env=env,
                            preexec_fn=limit_child(args.memory_mb, args.output_mb))
    timed_out = False
    try:
        out, err = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the process group this call started
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
    return proc, out.decode("utf-8", "backslashreplace"), err.decode("utf-8", "backslashreplace"), timed_out


def substitute(token, places):
    for key, value in places.items():
        token = token.replace(key, value)
    return token


def case_command(case, args, places):
    """The argv of a case, its tokens replaced."""
    if case.ops is not None:
        return [args.python, PY_WORKER, places["@INPUT@"]]
    if case.command is None:
        return command_for(args.nereid, places["@INPUT@"], os.path.join(places["@CASE@"], "out"))
    return [substitute(t, places) for t in case.command]


def case_env(case, args, places):
    env = dict(os.environ)
    if case.ops is not None:
        env["PYTHONPATH"] = os.pathsep.join([args.python_path] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["NEREID_MODEL_DIR"] = os.path.join(args.source, "models")
    env.update({k: substitute(v, places) for k, v in case.env.items()})
    return env


def make_setup(case, case_dir):
    for item in case.setup:
        path = os.path.join(case_dir, item[1])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if item[0] == "file":
            with open(path, "w") as f:
                f.write(item[2])
        elif item[0] == "dir":
            os.makedirs(path, exist_ok=True)
        elif item[0] == "symlink":
            os.symlink(item[2], path)


def judge_python(case, proc, stdout, stderr, timed_out):
    """(outcome, message, problems, operations after which MUJOCO_LOG.TXT appeared) of a
    python case, from the worker's markers."""
    begun, results = None, []
    for line in stdout.splitlines():
        if line.startswith("@@BEGIN "):
            begun = line[8:].strip()
        elif line.startswith("@@END "):
            try:
                results.append(json.loads(line[6:]))
            except ValueError:
                pass
            begun = None
    problems, wrong, raised, log_file = [], [], False, []
    for r in results:
        variants, _ = pyapi.OPS[r["op"]]
        arg, expect = variants[r["variant"]][:2]
        name = f"{r['op']}({arg!r})"
        if r.get("log_file") and "direct" not in variants[r["variant"]][2:]:
            log_file.append(name)
        e = r["raised"]
        if e is None:
            if expect == "error":
                wrong.append(f"{name}: no exception")
            continue
        raised = True
        if expect == "ok":
            problems.append(f"{name}: raised {e['type']}: {short(e['message'], 200)}")
        elif not any(t in pyapi.CLEAR for t in e["mro"]):
            problems.append(f"{name}: an unclear {e['type']}: {short(e['message'], 200)}")
        elif not e["message"].strip():
            problems.append(f"{name}: {e['type']} with an empty message")
    if timed_out or proc.returncode != 0:
        where = f"in {begun}" if begun else "after the last operation" if results else "before the first operation"
        tail = stderr.strip().splitlines()[-3:]
        message = f"the process {'timed out' if timed_out else 'ended with status %d' % proc.returncode} {where}" + \
                  (": " + " | ".join(tail) if tail else "")
        return ("hang" if timed_out else "crash"), message, problems, log_file
    if wrong:
        return "wrong-ok", "; ".join(wrong + problems), problems, log_file
    return ("error" if raised else "ok"), "; ".join(problems), problems, log_file


def case_expect(case):
    """The case's expectation; a model holding a '%' or a NUL the XML parser would see is
    known-bad whatever its kind (Nereid refuses it before MuJoCo parses it,
    docs/robustness.md)."""
    if case.expect is None and case.ops is None and case.suffix == ".xml" and case.data is not None \
            and refused_in_mjcf(case.data.decode("utf-8", "surrogateescape")):
        return err([])
    return case.expect


def run_case(case, args, work):
    """Runs one case in its own folder under work; returns its result (a row of the JSON
    report). Raises EnvironmentProblem when the program does not start."""
    case_dir, cwd, input_path = make_case_dir(case, work)
    places = {"@NEREID@": args.nereid, "@INPUT@": input_path, "@CASE@": case_dir, "@SOURCE@": args.source}
    cmd = case_command(case, args, places)
    env = case_env(case, args, places)
    out_dir = os.path.join(case_dir, "out")
    proc, stdout, stderr, timed_out, wall = execute_until_started(case, args, cmd, cwd, env, out_dir)
    summary = read_summary(out_dir)
    # a run stopped for writing a file beyond --output-mb did not end in bounded space: a
    # hang, as one that does not end in bounded time
    over_output = args.output_mb > 0 and proc.returncode == -signal.SIGXFSZ
    expect = case_expect(case)
    outcome, message, flags = judge_run(case, expect, proc, stdout, stderr, summary, timed_out or over_output)
    noise = add_output_flags(case, cwd, stdout, stderr, message, flags)
    rc = proc.returncode
    result = {
        "id": case.id, "kind": case.kind, "origin": case.origin, "mutation": case.description,
        "outcome": outcome, "flags": flags, "status": run_status(rc, timed_out, over_output, args.output_mb),
        "returncode": None if timed_out else rc,
        "wall_s": round(wall, 3), "input": input_path if case.data is not None else None,
        "input_bytes": len(case.data or b""), "command": cmd, "message": short(message, 400),
        "message_chars": len(message), "noise": noise, "expect": "error" if (expect or {}).get("error") else None,
        "stdout_tail": stdout[-400:] if (outcome in ("crash", "hang", "wrong-ok") or flags) else "",
    }
    failing = outcome in FAILING or flags
    if failing and args.keep_failures:
        keep_failure(case, args, result, input_path, stdout, stderr)
    tidy_case_dir(case_dir, failing)
    return result


def make_case_dir(case, work):
    """A fresh folder for the case, with its input file and setup; returns (the folder, its
    empty working directory, the input's path)."""
    case_dir = os.path.join(work, f"case-{case.id}")
    shutil.rmtree(case_dir, ignore_errors=True)
    cwd = os.path.join(case_dir, "cwd")
    os.makedirs(cwd)
    input_path = os.path.join(case_dir, "input" + case.suffix)
    if case.data is not None:
        with open(input_path, "wb") as f:
            f.write(case.data)
    make_setup(case, case_dir)
    return case_dir, cwd, input_path


def execute_until_started(case, args, cmd, cwd, env, out_dir):
    """Runs cmd, again while the program does not start (a rebuild in progress); returns
    (process, stdout, stderr, timed out, wall seconds). Raises EnvironmentProblem after
    LOADER_RETRIES retries."""
    for attempt in range(LOADER_RETRIES + 1):
        t0 = time.monotonic()
        try:
            proc, stdout, stderr, timed_out = execute(cmd, cwd, args, env)
        except OSError as e:  # the executable is being written (ETXTBSY, EACCES) or replaced
            proc, stdout, stderr, timed_out = None, "", f"{cmd[0]}: {e}", False
        wall = time.monotonic() - t0
        if proc is not None and not loader_failed(proc.returncode, stderr, stdout, case):
            return proc, stdout, stderr, timed_out, wall
        # the executable or a library it loads is being rebuilt: not the input's fault
        time.sleep(LOADER_WAIT_S)
        shutil.rmtree(out_dir, ignore_errors=True)
        shutil.rmtree(cwd, ignore_errors=True)
        os.makedirs(cwd)
    raise EnvironmentProblem(f"{args.nereid} does not start ({short(stderr.strip(), 300)}); "
                             f"is it being rebuilt?")


def read_summary(out_dir):
    """The run's summary.json, or None when there is none or it is not JSON."""
    try:
        with open(os.path.join(out_dir, "summary.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def judge_run(case, expect, proc, stdout, stderr, summary, hung):
    """(outcome, message, flags) of a run from its exit and its output: a python case from
    the worker's markers, a command from its exit status, message and expectation."""
    flags = []
    if case.ops is not None:
        outcome, message, problems, log_file = judge_python(case, proc, stdout, stderr, hung)
        if problems:
            flags.append("py-exception")
        if log_file:
            flags.append("log-file")
            message += ("; " if message else "") + "MUJOCO_LOG.TXT after " + ", ".join(log_file)
    else:
        outcome, message = classify(proc.returncode, stderr, stdout, summary, hung)
        if expect and expect.get("error") and outcome == "ok":
            outcome = "wrong-ok"
        if expect and outcome == "error" and expect.get("names") and not any(n in message for n in expect["names"]):
            flags.append("unnamed")
        if expect and expect.get("no_wrote") and WROTE_RE.search(stdout):
            flags.append("wrote")
        if TRACEBACK in stdout or TRACEBACK in stderr:
            flags.append("traceback")
    return outcome, message, flags


def add_output_flags(case, cwd, stdout, stderr, message, flags):
    """Adds to flags those of what the run left: MUJOCO_LOG.TXT, MuJoCo's log lines, a long
    message; returns the log lines, by stream."""
    if os.path.exists(os.path.join(cwd, "MUJOCO_LOG.TXT")) and "log-file" not in flags:
        flags.append("log-file")
    # MuJoCo's default log handler: "WARNING: ..." / "ERROR: ..." lines (stdout in older
    # MuJoCo, stderr in 3.14); both streams are searched. Python keeps MuJoCo's handler
    # outside Nereid's calls (docs/robustness.md), so its cases are not searched.
    noise = {}
    for name, text in (("stdout", stdout), ("stderr", stderr)) if case.ops is None else ():
        m = NOISE_RE.search(text)
        if m:
            noise[name] = short(text[m.start():].split("\n", 1)[0], 200)
    if noise:
        flags.append("stdout-noise")
    # counted in bytes: a byte that is not UTF-8 is written \xNN here, but is one byte
    if len(BYTE_ESCAPE_RE.sub("x", message)) > LONG_MESSAGE and case.ops is None:
        flags.append("long-message")
    return noise


def run_status(rc, timed_out, over_output, output_mb):
    """How the run ended, in words: a timeout, an output over the limit, a signal or an exit."""
    return "timeout" if timed_out else f"output over {output_mb} MiB (SIGXFSZ)" if over_output else (
        f"signal {signal.Signals(-rc).name}" if rc < 0 and -rc in signal.valid_signals() else f"exit {rc}")


def keep_failure(case, args, result, input_path, stdout, stderr):
    """Copies a failing case to --keep-failures DIR/case-ID/: its input (result["kept"]),
    result.json with the whole output, and repro.sh."""
    dest = os.path.join(args.keep_failures, f"case-{case.id}")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    if case.data is not None:
        kept = os.path.join(dest, "input" + case.suffix)
        shutil.copyfile(input_path, kept)
        result["kept"] = kept
    with open(os.path.join(dest, "result.json"), "w") as f:
        json.dump(dict(result, stdout=stdout[-20000:], stderr=stderr[-20000:]), f, indent=2)
    with open(os.path.join(dest, "repro.sh"), "w") as f:
        f.write("#!/bin/sh\n# " + short(case.description, 300).replace("\n", " ") + "\n")
        f.write(repro_script(case, args, result.get("kept")) + "\n")
    os.chmod(os.path.join(dest, "repro.sh"), 0o755)


def tidy_case_dir(case_dir, failing):
    """Removes a passing case's folder; a failing one's stays, less its files over 1 MiB."""
    for folder, _, names in os.walk(case_dir):  # keep a failing case's folder small
        for f in names:
            path = os.path.join(folder, f)
            if failing and os.path.isfile(path) and not os.path.islink(path) and os.path.getsize(path) > (1 << 20):
                os.remove(path)
    if not failing:
        shutil.rmtree(case_dir, ignore_errors=True)


def repro_script(case, args, input_copy):
    """Shell commands that remake the case's folder in a new temporary one and run it."""
    if case.command is None and case.ops is None:
        return 'cd "$(mktemp -d)" && ' + shlex.join(command_for(args.nereid, input_copy or "input.xml", "out"))
    places = {"@NEREID@": args.nereid, "@CASE@": "$C", "@SOURCE@": args.source, "@INPUT@": "$C/input" + case.suffix}
    lines = ['C="$(mktemp -d)" && mkdir "$C/cwd"']
    if input_copy:
        lines.append(f'cp {shlex.quote(input_copy)} "$C/input{case.suffix}"')
    for item in case.setup:
        path = '"$C"/' + shlex.quote(item[1])
        lines.append(f'mkdir -p "$(dirname {path})"')
        if item[0] == "file":
            lines.append(f"printf %s {shlex.quote(item[2])} > {path}")
        elif item[0] == "dir":
            lines.append(f"mkdir -p {path}")
        else:
            lines.append(f"ln -s {shlex.quote(item[2])} {path}")
    env = {}
    if case.ops is not None:
        env = {"PYTHONPATH": args.python_path, "NEREID_MODEL_DIR": os.path.join(args.source, "models")}
        cmd = [args.python, PY_WORKER, places["@INPUT@"]]
    else:
        cmd = [substitute(t, places) for t in case.command]
    env.update({k: substitute(v, places) for k, v in case.env.items()})

    def quote(word):  # "$C" stays expandable
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") + '"' \
            if "$C" in word else shlex.quote(word)
    prefix = " ".join(f"{k}={quote(v)}" for k, v in env.items())
    lines.append('cd "$C/cwd" && ' + (prefix + " " if prefix else "") + " ".join(quote(w) for w in cmd))
    return " && \\\n  ".join(lines)


def repro_line(result, case, args):
    line = repro_script(case, args, result.get("kept") or result.get("input"))
    if len(line) > 2000:
        line = re.sub(r"\S{200,}", lambda m: m.group(0)[:60] + f"...({len(m.group(0))} chars)", line) + \
            "\n  (cut: --keep-failures DIR writes the whole command to DIR/case-ID/repro.sh)"
    line = line.replace("\n", "\n      ")
    if result["kind"] != "shipped":
        line += "\n      regenerate: " + shlex.join([sys.executable, os.path.abspath(__file__), "--nereid", args.nereid,
                                                      "--source", args.source, "--seed", str(args.seed),
                                                      "--case", result["id"]])
    return line


def python_available(args):
    """(None, whether the RL environments import) when the python kind can run (nereid
    imports from --python-path), else (why not, False)."""
    if not args.python_path or not os.path.isdir(os.path.join(args.python_path, "nereid")):
        return f"no nereid package in {args.python_path or '(no --python-path)'}", False
    env = dict(os.environ, PYTHONPATH=args.python_path, NEREID_MODEL_DIR=os.path.join(args.source, "models"))
    results = []
    for code in ("import nereid, numpy, mujoco", "import nereid.envs"):
        try:
            p = subprocess.run([args.python, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                               stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e), False
        results.append(None if p.returncode == 0 else short(p.stderr.strip().splitlines()[-1] if p.stderr.strip()
                                                            else f"exit {p.returncode}", 200))
    return results[0], results[1] is None


def argument_parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nereid", required=True, help="the nereid executable")
    ap.add_argument("--source", required=True, help="the repository root (models/, scenarios/)")
    ap.add_argument("--seconds", type=float, default=100, help="time budget (default 100)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the mutants (default 0)")
    ap.add_argument("--timeout", type=float, default=20, help="seconds per case before it is a hang (default 20)")
    ap.add_argument("--work", help="scratch folder (default: a new temporary one, removed when all passed)")
    ap.add_argument("--json", help="write a JSON report here")
    ap.add_argument("--keep-failures", help="copy failing inputs here, with result.json and repro.sh")
    ap.add_argument("--kinds", default=",".join(KINDS), help="case kinds to run (default: all)")
    ap.add_argument("--case", help="run only these cases (comma separated ids: N, xml-N, cli-N, py-N), "
                                   "ignoring --seconds")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at once (default 1)")
    ap.add_argument("--memory-mb", type=int, default=4096,
                    help="address-space limit per run in MiB; 0: none (needed for ASan builds)")
    ap.add_argument("--output-mb", type=int, default=512,
                    help="file-size limit per run in MiB (beyond it the case is a hang); 0: none")
    ap.add_argument("--no-shipped", action="store_true", help="skip the unchanged shipped inputs")
    ap.add_argument("--no-coverage", action="store_true",
                    help="skip the coverage cases (every class of the xml, cli and python kinds once)")
    ap.add_argument("--python", default=sys.executable, help="the Python of the python kind (default: this one)")
    ap.add_argument("--python-path", help="the folder the nereid package imports from "
                                          "(default: python/ beside the nereid executable)")
    ap.add_argument("--need-python", action="store_true",
                    help="exit 2 when the python kind cannot run (else it is skipped with a note)")
    ap.add_argument("--show", type=int, default=3,
                    help="failures printed in full per outcome or flag (default 3)")
    ap.add_argument("--list", type=int, metavar="N", help="print the first N cases (no runs) and exit")
    return ap


def case_stream(args, gen, seeds, plugin_keys, kinds):
    """The cases to run, in order: --case's, or the shipped inputs, the coverage cases and
    the mutants (endless)."""
    def coverage():
        counts = gen.coverage_counts()
        for kind, prefix in (("cli", "cli"), ("xml", "xml"), ("python", "py"), ("file", "file")):
            if kind in kinds:
                for n in range(counts[kind]):
                    yield gen.make(f"{prefix}-{n}")

    def mutants():
        """Round k: the config, scenario and structure cases 3k..3k+2, one xml and one cli
        case, every PY_EVERY rounds a python case (a process of several operations) and every
        FILE_EVERY rounds a file case."""
        counts = gen.coverage_counts()
        k = 0
        while True:
            for n in range(3 * k, 3 * k + 3):
                c = make_case(seeds, plugin_keys, args.source, args.seed, n, kinds)
                if c is not None:
                    yield c
            if "xml" in kinds:
                yield gen.make(f"xml-{counts['xml'] + k}")
            if "cli" in kinds:
                yield gen.make(f"cli-{counts['cli'] + k}")
            if "python" in kinds and k % PY_EVERY == 0:
                yield gen.make(f"py-{counts['python'] + k // PY_EVERY}")
            if "file" in kinds and k % FILE_EVERY == 0:
                c = gen.make(f"file-{counts['file'] + k // FILE_EVERY}")
                if c is not None:
                    yield c
            k += 1

    def generate():
        if args.case:
            for cid in args.case.split(","):
                yield gen.make(cid.strip())
            return
        if not args.no_shipped:
            yield from shipped_cases(seeds)
        if not args.no_coverage:
            yield from coverage()
        yield from mutants()

    return generate()


def list_cases(cases, n):
    """--list N: the first N cases, one line each."""
    for _ in range(n):
        c = next(cases, None)
        if c is None:
            break
        print(f"{c.id:>9} {c.kind:<9} {short(c.origin, 40):<44} {len(c.data or b''):>9} B  "
              f"{'E ' if (case_expect(c) or {}).get('error') else '  '}{short(c.description, 120)}")


def run_cases(cases, args, work):
    """Runs the cases on args.jobs threads until the budget is spent (the shipped and
    coverage cases whatever it is); returns (results, the cases by id, wall seconds).
    Raises EnvironmentProblem when the machine cannot run a case."""
    start = time.monotonic()
    results = []
    by_id = {}
    pending = set()
    next_progress = start + 15
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        exhausted = False
        held = None  # a case taken from the generator, not yet submitted
        while True:
            while not exhausted and len(pending) < max(1, args.jobs):
                c = held or next(cases, None)
                held = None
                if c is None:
                    exhausted = True
                    break
                # the shipped inputs and the coverage cases run whatever the budget
                if not (args.case or c.coverage or c.kind == "shipped") and time.monotonic() - start >= args.seconds:
                    exhausted = True
                    break
                by_id[c.id] = c
                pending.add(pool.submit(run_case, c, args, work))
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                try:
                    r = fut.result()
                except EnvironmentProblem:
                    for p in pending:
                        p.cancel()
                    raise
                results.append(r)
                if r["outcome"] in FAILING or r["flags"]:
                    print(f"  FAIL case {r['id']} ({r['kind']}, {r['origin']}): "
                          f"{'+'.join([r['outcome']] + r['flags'])} [{r['status']}] {short(r['mutation'], 100)}",
                          flush=True)
            if time.monotonic() > next_progress:
                next_progress += 15
                print(f"  ... {len(results)} cases, {time.monotonic() - start:.0f} s", flush=True)
    return results, by_id, time.monotonic() - start


def summarise(results, by_id, wall, args):
    """Prints the outcomes, the slowest case and the failures (args.show of each kind, with
    a line to reproduce each); writes the JSON report (--json); returns the failures."""
    def order(r):
        prefix, _, n = r["id"].rpartition("-")
        return (["shipped", "cli", "xml", "py", ""].index(prefix) if prefix in ("shipped", "cli", "xml", "py") else 4,
                int(n))
    results.sort(key=order)
    counts = {k: 0 for k in OUTCOMES + FLAGS}
    by_kind = {}
    for r in results:
        counts[r["outcome"]] += 1
        for f in r["flags"]:
            counts[f] += 1
        k = by_kind.setdefault(r["kind"], {o: 0 for o in OUTCOMES})
        k[r["outcome"]] += 1
    failures = [r for r in results if r["outcome"] in FAILING or r["flags"]]
    slowest = max(results, key=lambda r: r["wall_s"]) if results else None
    covered = sum(1 for r in results if by_id[r["id"]].coverage)

    print(f"\n{len(results)} cases in {wall:.1f} s (seed {args.seed}; {covered} coverage cases)")
    for k in OUTCOMES + FLAGS:
        print(f"  {k:<13} {counts[k]:6d}")
    for kind, c in sorted(by_kind.items()):
        print(f"  {kind:<10} " + ", ".join(f"{o} {c[o]}" for o in OUTCOMES if c[o]))
    if slowest:
        print(f"  slowest case: {slowest['id']} ({slowest['wall_s']:.2f} s, {slowest['origin']})")
    shown = []
    for cls in ("wrong-ok", "crash", "hang") + FLAGS:
        shown += [r for r in failures if (r["outcome"] == cls or cls in r["flags"]) and r not in shown][:args.show]
    for r in shown:
        print(f"\ncase {r['id']} ({r['kind']}, from {r['origin']}): {'+'.join([r['outcome']] + r['flags'])}, "
              f"{r['status']}\n  mutation: {short(r['mutation'], 300)}")
        if r["message"]:
            print(f"  message: {short(r['message'], 300)}")
        for stream, line in r["noise"].items():
            print(f"  MuJoCo on {stream}: {line}")
        if r["stdout_tail"]:
            print(f"  stdout (end): {short(r['stdout_tail'].strip(), 300)}")
        print(f"  reproduce: {repro_line(r, by_id[r['id']], args)}")
    if len(failures) > len(shown):
        print(f"\n... and {len(failures) - len(shown)} more failures" + (" (see the JSON report)" if args.json else ""))

    if args.json:
        report = {"nereid": args.nereid, "source": args.source, "seed": args.seed, "budget_s": args.seconds,
                  "timeout_s": args.timeout, "wall_s": round(wall, 2), "cases": len(results), "counts": counts,
                  "by_kind": by_kind, "coverage_cases": covered, "failures": failures,
                  "results": [{k: r[k] for k in ("id", "kind", "origin", "mutation", "outcome", "flags", "status",
                                                 "wall_s", "message")} for r in results]}
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return failures


def main(argv=None):
    ap = argument_parser()
    args = ap.parse_args(argv)

    args.nereid = os.path.abspath(args.nereid)
    args.source = os.path.abspath(args.source)
    if not (os.path.isfile(args.nereid) and os.access(args.nereid, os.X_OK)):
        ap.error(f"{args.nereid}: not an executable")
    if not os.path.isdir(os.path.join(args.source, "models")):
        ap.error(f"{args.source}: no models/ folder")
    args.python_path = os.path.abspath(args.python_path or os.path.join(os.path.dirname(args.nereid), "python"))
    kinds = [k for k in args.kinds.split(",") if k]
    if not kinds or any(k not in KINDS for k in kinds):
        ap.error(f"--kinds: choose from {', '.join(KINDS)}")
    if args.keep_failures:
        args.keep_failures = os.path.abspath(args.keep_failures)
        os.makedirs(args.keep_failures, exist_ok=True)
    own_work = not args.work
    work = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="nereid-fuzz-")
    os.makedirs(work, exist_ok=True)
    for old in os.listdir(work):  # case folders of an earlier run
        if old.startswith("case-"):
            shutil.rmtree(os.path.join(work, old), ignore_errors=True)

    try:
        v = subprocess.run([args.nereid, "version"], capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
        if v.returncode != 0:
            raise OSError(f"exit {v.returncode}: {v.stderr.strip()[:300]}")
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"fuzz.py: {args.nereid} version fails: {e}", file=sys.stderr)
        return 2
    seeds = load_seeds(args.source)
    if not seeds[0] or not seeds[1]:
        ap.error(f"{args.source}: no models/**/*.xml or scenarios/**/*.json found")
    plugin_keys = load_plugin_keys(args.source)
    commands = read_cli_commands(args.nereid)
    unwritable = probe_unwritable(work)
    envs = True
    if "python" in kinds and not args.list:
        why, envs = python_available(args)
        if why and args.need_python:
            print(f"fuzz.py: the python kind cannot run: {why}", file=sys.stderr)
            return 2
        if why:
            kinds.remove("python")
            print(f"fuzz.py: the python kind is skipped: {why}", flush=True)
        elif not envs:
            print("fuzz.py: the RL environments do not import (Gymnasium?): their operations are skipped", flush=True)
    gen = Generator(args, seeds, plugin_keys, commands, unwritable, envs)

    cases = case_stream(args, gen, seeds, plugin_keys, kinds)
    if args.list is not None:
        list_cases(cases, args.list)
        return 0
    print(f"nereid fuzz: {args.nereid} on {args.source}, seed {args.seed}, budget {args.seconds:g} s, "
          f"timeout {args.timeout:g} s, work {work}; coverage cases: "
          + ", ".join(f"{k} {n}" for k, n in gen.coverage_counts().items() if k in kinds)
          + f"; unwritable folder: {unwritable or 'none found'}", flush=True)
    try:
        results, by_id, wall = run_cases(cases, args, work)
    except EnvironmentProblem as e:
        print(f"fuzz.py: stopped: {e}", file=sys.stderr)
        if own_work:
            shutil.rmtree(work, ignore_errors=True)
        return 2
    failures = summarise(results, by_id, wall, args)
    if own_work and not failures:
        shutil.rmtree(work, ignore_errors=True)
    elif failures:
        print(f"\nfailing cases' folders are kept under {work}")
    print("FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
