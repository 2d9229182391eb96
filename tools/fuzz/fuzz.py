#!/usr/bin/env python3
"""Fuzz harness for `nereid run`: mutated models and scenarios, each run in a fresh directory.

Usage:
  tools/fuzz/fuzz.py --nereid build/nereid --source . [--seconds 100] [--seed 0]
                     [--timeout 20] [--work DIR] [--json REPORT.json]
                     [--keep-failures DIR] [--kinds config,scenario,structure]
                     [--case N[,N...]] [--jobs N] [--memory-mb 4096] [--output-mb 512]
                     [--no-shipped] [--list N]

Every case is one `nereid run INPUT --out DIR --duration 0.2` in a new, empty working
directory, with stdin closed, a per-case timeout and an address-space limit. Case N of
seed S is a pure function of (S, N) and the shipped inputs, so `--seed S --case N`
regenerates and re-runs it. Before the mutants, the shipped models and scenarios run
unchanged (case ids "shipped-…"; --no-shipped skips them).

Mutant kinds (case N has kind N mod 3):
  config     <config key=… value=…/> of the marine plugins in models/: hostile values
             (negative, 0, 1e308, 1e400, nan, inf, empty, wrong number counts, text,
             non-UTF-8 bytes, long strings), dropped, duplicated, unknown, renamed keys,
             dropped or duplicated instances, a wrong plugin name.
  scenario   scenarios/**/*.json but crosscheck/ (model path made absolute): other types,
             hostile numbers (incl. 1e400, NaN, Infinity), deep nesting (63..100000),
             MB-sized arrays and strings, unknown, missing and duplicated keys, documents
             that are not objects, truncated or byte-flipped text, a bad model path.
  structure  models/**/*.xml: elements or attributes deleted or duplicated, attributes
             given bad values, truncated or byte-flipped files, a small <size memory>,
             timestep 0 / negative / tiny / nan, bad <option>s, broken keyframes, deep
             body nesting, bad <include>s.

Outcomes (one per case):  ok (exit 0); error (exit 1, 2 or 3 with a message: on stderr,
or for a run that stopped on a diverged state or a MuJoCo error, in summary.json);
crash (a signal, any other exit status, or exit 1/2/3 with no message); hang (timeout,
or an output file beyond --output-mb: no end in bounded time or space).
Flags (any case): log-file (MUJOCO_LOG.TXT appeared in the working directory),
stdout-noise (MuJoCo's own "WARNING:"/"ERROR:" lines from its default log handler, on
stdout or on stderr: MuJoCo 3.14 writes them to stderr), long-message (the error message
is longer than 2000 characters).

Exit status: 0 when there was no crash, hang, log-file, stdout-noise or long-message;
1 when there was; 2 for a usage error of this script, or when nereid does not start
(`nereid version` fails, or the dynamic loader keeps failing: a rebuild in progress).
Standard library only.
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

KINDS = ("config", "scenario", "structure")
OUTCOMES = ("ok", "error", "crash", "hang")
FLAGS = ("log-file", "stdout-noise", "long-message")
FAILING = {"crash", "hang"} | set(FLAGS)
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
    "nereid.current": ["velocity", "time_profile", "depth_profile"],
    "nereid.thruster": ["input", "command_map", "thrust_coefficient", "thrust_curve", "thrust_loss",
                        "time_constant", "thrust_limits", "dead_band"],
    "nereid.tether": ["model", "site", "anchor_body", "anchor_point", "length", "segments", "diameter",
                      "cd_normal", "cd_tangential", "mass_per_metre", "axial_stiffness", "bending_damping",
                      "added_mass_coefficient", "fluid_density", "analytic_weight_factor"],
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
    pairs = [(parent, child) for parent in root.iter() for child in list(parent)]
    op = rng.choices(["delete", "duplicate", "del_attr", "set_attr", "memory", "timestep", "option",
                      "keyframe", "inertial", "nest", "include", "no_extension"],
                     [14, 10, 10, 14, 8, 8, 10, 6, 6, 4, 4, 2])[0]
    if op == "delete" and pairs:
        parent, child = rng.choice(pairs)
        parent.remove(child)
        return f"delete <{child.tag} {short(attrs(child))}>"
    if op == "duplicate" and pairs:
        parent, child = rng.choice(pairs)
        n = rng.choice([1, 1, 1, 20])
        at = list(parent).index(child)
        for _ in range(n):
            parent.insert(at + 1, copy.deepcopy(child))
        return f"duplicate <{child.tag} {short(attrs(child))}> x{n}"
    with_attrs = [el for el in root.iter() if el.attrib]
    if op == "del_attr" and with_attrs:
        el = rng.choice(with_attrs)
        key = rng.choice(sorted(el.attrib))
        del el.attrib[key]
        return f"delete <{el.tag}> {key}"
    if op == "set_attr" and with_attrs:
        el = rng.choice(with_attrs)
        key = rng.choice(sorted(el.attrib))
        old = el.attrib[key]
        value = hostile_config_value(rng, old) if rng.random() < 0.8 else hostile_text(rng)
        el.attrib[key] = value
        return f"<{el.tag}> {key}={short(value)}"
    if op == "memory":
        size = ensure_element(root, "size")
        value = rng.choice(MEMORY_SIZES)
        size.attrib["memory"] = value
        return f'<size memory="{value}">'
    if op == "timestep":
        option = ensure_element(root, "option")
        value = rng.choice(TIMESTEPS)
        option.attrib["timestep"] = value
        return f'<option timestep="{value}">'
    if op == "option":
        option = ensure_element(root, "option")
        if rng.random() < 0.2:
            flag = ET.SubElement(option, "flag")
            key = rng.choice(["contact", "gravity", "warmstart", "energy", "bogus", "multiccd", "island"])
            flag.attrib[key] = rng.choice(["disable", "enable", "maybe", ""])
            return f"<option><flag {key}={flag.attrib[key]!r}>"
        k, v = rng.choice(OPTION_MUTATIONS).split("=", 1)
        option.attrib[k] = v.strip('"')
        return f"<option {k}={v}>"
    if op == "keyframe":
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
    if op == "inertial":
        inertials = list(root.iter("inertial"))
        if inertials:
            el = rng.choice(inertials)
            attr = rng.choice(["mass", "diaginertia", "pos", "fullinertia", "quat"])
            el.attrib[attr] = rng.choice(["0", "-1", "nan", "1e308", "1e-300", "0 0 0", "1 1 1e12",
                                          "1 1 100", "1 2", "1 0 0 0 0 0", "0 0 0 0"])
            return f"<inertial {attr}={el.attrib[attr]}>"
    if op == "nest":
        worldbody = root.find("worldbody")
        if worldbody is not None:
            depth = rng.choice([100, 400, 499, 1000, 10000])
            # written out by mutate_structure: ElementTree's writer recurses
            ET.SubElement(worldbody, NEST_TAG, {"depth": str(depth)})
            return f"{depth} nested bodies"
    if op == "include":
        target = rng.choice([model_path, "/nonexistent/x.xml", "/dev/null", os.path.dirname(model_path),
                             "", "\udcff.xml"])
        root.insert(rng.randrange(len(root) + 1), ET.Element("include", {"file": target}))
        return f"<include file={short(target)!r}>"
    if op == "no_extension":
        ext = root.find("extension")
        if ext is not None:
            root.remove(ext)
            return "delete <extension>"
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


def mutate_scenario(rng, doc, scenario_path):
    """One mutation of a scenario; returns (text, description). doc is changed in place."""
    op = rng.choices(["value", "delete", "unknown", "dupkey", "nest", "huge_array", "huge_string",
                      "document", "truncate", "bytes", "model"],
                     [40, 10, 6, 5, 7, 5, 4, 5, 6, 6, 6])[0]
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
    def __init__(self, cid, kind, origin, description, data, suffix):
        self.id, self.kind, self.origin, self.description = cid, kind, origin, description
        self.data, self.suffix = data, suffix  # data: bytes of the input file


def make_case(seeds, plugin_keys, source, seed, n, kinds):
    kind = KINDS[n % len(KINDS)]
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


class EnvironmentProblem(Exception):
    """nereid cannot be started at all (no fault of the input)."""


def loader_failed(returncode, stderr):
    return returncode == 127 and "error while loading shared libraries" in stderr


def execute(cmd, cwd, args):
    """Runs cmd; returns (process, stdout, stderr, timed out)."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
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


def run_case(case, args, work):
    case_dir = os.path.join(work, f"case-{case.id}")
    shutil.rmtree(case_dir, ignore_errors=True)
    cwd = os.path.join(case_dir, "cwd")
    os.makedirs(cwd)
    input_path = os.path.join(case_dir, "input" + case.suffix)
    with open(input_path, "wb") as f:
        f.write(case.data)
    out_dir = os.path.join(case_dir, "out")
    cmd = command_for(args.nereid, input_path, out_dir)
    for attempt in range(LOADER_RETRIES + 1):
        t0 = time.monotonic()
        proc, stdout, stderr, timed_out = execute(cmd, cwd, args)
        wall = time.monotonic() - t0
        if not loader_failed(proc.returncode, stderr):
            break
        # the executable or a library it loads is being rebuilt: not the input's fault
        time.sleep(LOADER_WAIT_S)
        shutil.rmtree(out_dir, ignore_errors=True)
        shutil.rmtree(cwd, ignore_errors=True)
        os.makedirs(cwd)
    else:
        raise EnvironmentProblem(f"{args.nereid} does not start ({short(stderr.strip(), 300)}); "
                                 f"is it being rebuilt?")
    summary = None
    try:
        with open(os.path.join(out_dir, "summary.json")) as f:
            summary = json.load(f)
    except (OSError, ValueError):
        pass
    # a run stopped for writing a file beyond --output-mb did not end in bounded space: a
    # hang, as one that does not end in bounded time
    over_output = args.output_mb > 0 and proc.returncode == -signal.SIGXFSZ
    outcome, message = classify(proc.returncode, stderr, stdout, summary, timed_out or over_output)
    flags = []
    if os.path.exists(os.path.join(cwd, "MUJOCO_LOG.TXT")):
        flags.append("log-file")
    # MuJoCo's default log handler: "WARNING: ..." / "ERROR: ..." lines (stdout in older
    # MuJoCo, stderr in 3.14); both streams are searched
    noise = {}
    for name, text in (("stdout", stdout), ("stderr", stderr)):
        m = NOISE_RE.search(text)
        if m:
            noise[name] = short(text[m.start():].split("\n", 1)[0], 200)
    if noise:
        flags.append("stdout-noise")
    if len(message) > LONG_MESSAGE:
        flags.append("long-message")
    rc = proc.returncode
    status = "timeout" if timed_out else f"output over {args.output_mb} MiB (SIGXFSZ)" if over_output else (f"signal {signal.Signals(-rc).name}" if rc < 0 and -rc in
                                          signal.valid_signals() else f"exit {rc}")
    result = {
        "id": case.id, "kind": case.kind, "origin": case.origin, "mutation": case.description,
        "outcome": outcome, "flags": flags, "status": status, "returncode": None if timed_out else rc,
        "wall_s": round(wall, 3), "input": input_path, "input_bytes": len(case.data),
        "command": cmd, "message": short(message, 400), "message_chars": len(message),
        "noise": noise,
        "stdout_tail": stdout[-400:] if (outcome in ("crash", "hang") or flags) else "",
    }
    failing = outcome in FAILING or flags
    if failing and args.keep_failures:
        dest = os.path.join(args.keep_failures, f"case-{case.id}")
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        kept = os.path.join(dest, "input" + case.suffix)
        shutil.copyfile(input_path, kept)
        result["kept"] = kept
        with open(os.path.join(dest, "result.json"), "w") as f:
            json.dump(dict(result, stdout=stdout[-20000:], stderr=stderr[-20000:]), f, indent=2)
        with open(os.path.join(dest, "repro.sh"), "w") as f:
            f.write("#!/bin/sh\n# " + short(case.description, 300).replace("\n", " ") + "\n")
            f.write('cd "$(mktemp -d)" && ' + shlex.join(command_for(args.nereid, kept, "out")) + "\n")
        os.chmod(os.path.join(dest, "repro.sh"), 0o755)
    for folder, _, files in os.walk(out_dir):  # keep a failing case's folder small
        for f in files:
            path = os.path.join(folder, f)
            if failing and os.path.getsize(path) > (1 << 20):
                os.remove(path)
    if not failing:
        shutil.rmtree(case_dir, ignore_errors=True)
    return result


def repro_line(result, args):
    path = result.get("kept", result["input"])
    line = 'cd "$(mktemp -d)" && ' + shlex.join(command_for(args.nereid, path, "out"))
    if result["kind"] != "shipped":
        line += "\n      regenerate: " + shlex.join([sys.executable, os.path.abspath(__file__), "--nereid", args.nereid,
                                                      "--source", args.source, "--seed", str(args.seed),
                                                      "--case", result["id"]])
    return line


def main(argv=None):
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
    ap.add_argument("--kinds", default=",".join(KINDS), help="mutant kinds to run (default: all)")
    ap.add_argument("--case", help="run only these case numbers (comma separated), ignoring --seconds")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at once (default 1)")
    ap.add_argument("--memory-mb", type=int, default=4096,
                    help="address-space limit per run in MiB; 0: none (needed for ASan builds)")
    ap.add_argument("--output-mb", type=int, default=512,
                    help="file-size limit per run in MiB (beyond it the case is a hang); 0: none")
    ap.add_argument("--no-shipped", action="store_true", help="skip the unchanged shipped inputs")
    ap.add_argument("--show", type=int, default=3,
                    help="failures printed in full per outcome or flag (default 3)")
    ap.add_argument("--list", type=int, metavar="N", help="print the first N mutants (no runs) and exit")
    args = ap.parse_args(argv)

    args.nereid = os.path.abspath(args.nereid)
    args.source = os.path.abspath(args.source)
    if not (os.path.isfile(args.nereid) and os.access(args.nereid, os.X_OK)):
        ap.error(f"{args.nereid}: not an executable")
    if not os.path.isdir(os.path.join(args.source, "models")):
        ap.error(f"{args.source}: no models/ folder")
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
    if args.list is not None:
        n = shown = 0
        while shown < args.list:
            c = make_case(seeds, plugin_keys, args.source, args.seed, n, kinds)
            n += 1
            if c is not None:
                shown += 1
                print(f"{c.id:>6} {c.kind:<9} {c.origin:<48} {len(c.data):>9} B  {short(c.description, 120)}")
        return 0

    def generate():
        if args.case:
            for n in args.case.split(","):
                c = make_case(seeds, plugin_keys, args.source, args.seed, int(n), KINDS)
                yield c
            return
        if not args.no_shipped:
            yield from shipped_cases(seeds)
        n = 0
        while True:
            c = make_case(seeds, plugin_keys, args.source, args.seed, n, kinds)
            n += 1
            if c is not None:
                yield c

    start = time.monotonic()
    results = []
    print(f"nereid fuzz: {args.nereid} on {args.source}, seed {args.seed}, budget {args.seconds:g} s, "
          f"timeout {args.timeout:g} s, work {work}", flush=True)
    cases = generate()
    pending = set()
    next_progress = start + 15
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        exhausted = False
        while True:
            while not exhausted and len(pending) < max(1, args.jobs) and \
                    (args.case or time.monotonic() - start < args.seconds):
                c = next(cases, None)
                if c is None:
                    exhausted = True
                    break
                pending.add(pool.submit(run_case, c, args, work))
            if not pending:
                break
            if not args.case and time.monotonic() - start >= args.seconds:
                exhausted = True
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                try:
                    r = fut.result()
                except EnvironmentProblem as e:
                    for p in pending:
                        p.cancel()
                    print(f"fuzz.py: stopped: {e}", file=sys.stderr)
                    if own_work:
                        shutil.rmtree(work, ignore_errors=True)
                    return 2
                results.append(r)
                if r["outcome"] in FAILING or r["flags"]:
                    print(f"  FAIL case {r['id']} ({r['kind']}, {r['origin']}): "
                          f"{'+'.join([r['outcome']] + r['flags'])} [{r['status']}] {short(r['mutation'], 100)}",
                          flush=True)
            if time.monotonic() > next_progress:
                next_progress += 15
                print(f"  ... {len(results)} cases, {time.monotonic() - start:.0f} s", flush=True)
    wall = time.monotonic() - start

    results.sort(key=lambda r: (not r["id"].startswith("shipped"), int(r["id"].split("-")[-1])))
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

    print(f"\n{len(results)} cases in {wall:.1f} s (seed {args.seed})")
    for k in OUTCOMES + FLAGS:
        print(f"  {k:<13} {counts[k]:6d}")
    for kind, c in sorted(by_kind.items()):
        print(f"  {kind:<10} " + ", ".join(f"{o} {c[o]}" for o in OUTCOMES if c[o]))
    if slowest:
        print(f"  slowest case: {slowest['id']} ({slowest['wall_s']:.2f} s, {slowest['origin']})")
    shown = []
    for cls in ("crash", "hang") + FLAGS:
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
        print(f"  reproduce: {repro_line(r, args)}")
    if len(failures) > len(shown):
        print(f"\n... and {len(failures) - len(shown)} more failures" + (" (see the JSON report)" if args.json else ""))

    if args.json:
        report = {"nereid": args.nereid, "source": args.source, "seed": args.seed, "budget_s": args.seconds,
                  "timeout_s": args.timeout, "wall_s": round(wall, 2), "cases": len(results), "counts": counts,
                  "by_kind": by_kind, "failures": failures,
                  "results": [{k: r[k] for k in ("id", "kind", "origin", "mutation", "outcome", "flags", "status",
                                                 "wall_s", "message")} for r in results]}
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    if own_work and not failures:
        shutil.rmtree(work, ignore_errors=True)
    elif failures:
        print(f"\nfailing cases' folders are kept under {work}")
    print("FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
