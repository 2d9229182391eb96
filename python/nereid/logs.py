"""Trial logs and tow-test runs: Nereid's two measurement file formats (docs/logs.md).

    from nereid.logs import load_log, load_tow_run
    log = load_log("trial.csv")          # poses, body velocities, commands: one Stream each
    log.pose.t, log.pose.values          # (n,), (n, 7): x y z qw qx qy qz, Nereid's world frame
    run = load_tow_run("surge_0.50_a.csv")

Pure NumPy (no engine): the command line's `identify` and `replay` and the conversion of
recorded runs read their files here. Every error is a `LogError` (a ValueError) whose
message names the file, the line (1-based, as an editor shows it) and the column.

Frames. A log's `# frame:` names the world frame of its poses and the body frame of its
velocities and marker offset: NED (world north-east-down, body FRD: the marine papers'),
ENU (world east-north-up, body FLU: ROS REP 103's) or NWU (Nereid's own world: x north,
y west, z up, body FLU; docs/conventions.md). The loader returns everything in Nereid's
world and body frames, through the one conversion docs/conventions.md states,
T = diag(1, -1, -1) (NED -> NWU, FRD -> FLU), and for ENU the rotation of -90 degrees
about z that takes east-north-up to north-west-up.
"""
import csv
import gzip
import math
import os
import stat
from dataclasses import dataclass, field

import numpy as np

LOG_VERSION = "1"
TOW_VERSION = "1"
POSE_COLUMNS = ("x", "y", "z", "qw", "qx", "qy", "qz")
VELOCITY_COLUMNS = ("u", "v", "w", "p", "q", "r")
COMMAND_PREFIX = "cmd."
FRAMES = ("NED", "ENU", "NWU")
COMMAND_UNITS = {"newton": None, "normalized": (-1.0, 1.0), "pwm_us": (500.0, 2500.0)}
DOFS = ("surge", "sway", "heave", "roll", "pitch", "yaw")
ROTATIONAL = ("roll", "pitch", "yaw")
MAX_ROWS = 10_000_000
MAX_FILE_BYTES = 2 << 30
MAX_COMMANDS = 64


class LogError(ValueError):
    """A malformed trial log or tow run; the message names file, line and column."""


@dataclass
class Stream:
    """One stream of a log: sample times (n,) and values (n, k) in `columns` order."""
    t: np.ndarray
    values: np.ndarray
    columns: tuple


@dataclass
class TrialLog:
    """A loaded trial log; poses and velocities in Nereid's frames (module docstring)."""
    path: str
    meta: dict
    frame: str                       # the file's frame, as written
    marker_offset: np.ndarray        # marker frame origin in the body frame (FLU), m
    command_units: str = None
    pose: Stream = None              # x y z qw qx qy qz of the marker frame, world NWU
    velocity: Stream = None          # u v w p q r, body FLU
    commands: Stream = None          # one column per actuator, `names`
    names: tuple = field(default_factory=tuple)

    def body_positions(self):
        """World positions of the body origin: the marker's minus R(q) times the marker offset
        (the marker frame's axes are taken parallel to the body's, docs/logs.md)."""
        if self.pose is None:
            raise LogError(f"{self.path}: the log has no pose columns ({', '.join(POSE_COLUMNS)})")
        R = quat_to_matrix(self.pose.values[:, 3:7])
        return self.pose.values[:, 0:3] - np.einsum("nij,j->ni", R, self.marker_offset)


@dataclass
class TowRun:
    """A loaded tow-test run: carriage speed and measured force (or moment) over time."""
    path: str
    meta: dict
    dof: str
    t: np.ndarray
    speed: np.ndarray
    load: np.ndarray                 # force (N) or moment (N m), the column `quantity`
    quantity: str                    # "force" or "moment"
    stationary: tuple = None         # (t0, t1) from `# stationary:`, else None


def quat_to_matrix(q):
    """(n, 4) unit quaternions w x y z -> (n, 3, 3) rotation matrices."""
    q = np.asarray(q, dtype=float)
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def quat_multiply(a, b):
    """Hamilton products a b of (n, 4) or (4,) quaternions w x y z."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    aw, ax, ay, az = np.moveaxis(np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)), -1, 0)
    bw, bx, by, bz = np.moveaxis(np.broadcast_to(b, np.broadcast_shapes(a.shape, b.shape)), -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], -1)


# ENU -> NWU: north = e_y, west = -e_x, up = z: the rotation of -90 degrees about z
_ENU_TO_NWU = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
_ENU_TO_NWU_Q = np.array([math.cos(math.pi / 4), 0.0, 0.0, -math.sin(math.pi / 4)])
_T = np.array([1.0, -1.0, -1.0])


def pose_to_nereid(frame, pose):
    """(n, 7) poses (x y z qw qx qy qz) in `frame` -> Nereid's world (NWU) with a FLU body."""
    pose = np.array(pose, dtype=float)
    if frame == "NED":  # p' = T p; R' = T R T: the quaternion's vector part by T
        pose[:, 0:3] *= _T
        pose[:, 4:7] *= _T
    elif frame == "ENU":  # p' = M p; R' = M R (the body frame is FLU already)
        pose[:, 0:3] = pose[:, 0:3] @ _ENU_TO_NWU.T
        pose[:, 3:7] = quat_multiply(_ENU_TO_NWU_Q, pose[:, 3:7])
    return pose


def pose_from_nereid(frame, pose):
    """The inverse of pose_to_nereid (log writers use it)."""
    pose = np.array(pose, dtype=float)
    if frame == "NED":
        pose[:, 0:3] *= _T
        pose[:, 4:7] *= _T
    elif frame == "ENU":
        pose[:, 0:3] = pose[:, 0:3] @ _ENU_TO_NWU
        inv = _ENU_TO_NWU_Q * np.array([1.0, -1.0, -1.0, -1.0])
        pose[:, 3:7] = quat_multiply(inv, pose[:, 3:7])
    return pose


def body_vector_to_flu(frame, v):
    """Body-frame vectors (n, 3k) of a log in `frame` -> FLU (FRD's y and z change sign)."""
    v = np.array(v, dtype=float)
    if frame == "NED":
        v = v * np.tile(_T, v.shape[-1] // 3)
    return v


def _read_table(path, magic):
    """Comment metadata, header and rows of a CSV file whose first line is `# magic: 1`."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # a folder, /dev/zero, a pipe
            raise LogError(f"{path}: not a regular file")
        if st.st_size > MAX_FILE_BYTES:
            raise LogError(f"{path}: {st.st_size} bytes (the limit is {MAX_FILE_BYTES})")
        opener = gzip.open if str(path).endswith(".gz") else open  # a gzip-compressed log: name.csv.gz
        with opener(path, "rt", newline="", encoding="utf-8") as f:
            text = f.read(MAX_FILE_BYTES + 1)
        if len(text) > MAX_FILE_BYTES:
            raise LogError(f"{path}: more than {MAX_FILE_BYTES} characters uncompressed (the limit)")
        lines = text.splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise LogError(f"{path}: cannot read: {e}") from None
    if not lines or not lines[0].startswith(f"# {magic}:"):
        raise LogError(f"{path}: line 1: the file must begin with '# {magic}: 1' (docs/logs.md)")
    meta = {}
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        key, sep, value = lines[i][1:].partition(":")
        if not sep:
            raise LogError(f"{path}: line {i + 1}: a comment line must be '# key: value', got {lines[i]!r}")
        key = key.strip()
        if key in meta:
            raise LogError(f"{path}: line {i + 1}: metadata key '{key}' given twice")
        meta[key] = value.strip()
        i += 1
    version = meta[magic]
    if version != "1":
        raise LogError(f"{path}: line 1: {magic} version {version!r} is not supported (this Nereid reads 1)")
    if i >= len(lines):
        raise LogError(f"{path}: line {i + 1}: no header row after the metadata")
    header_line = i + 1
    header = [h.strip() for h in next(csv.reader([lines[i]]))]
    for j, h in enumerate(header):
        if not h:
            raise LogError(f"{path}: line {header_line}, column {j + 1}: empty column name")
        if h in header[:j]:
            raise LogError(f"{path}: line {header_line}, column '{h}': given twice")
    rows = []
    for k, line in enumerate(lines[i + 1:], start=i + 2):
        if not line.strip():
            continue
        if len(rows) >= MAX_ROWS:
            raise LogError(f"{path}: line {k}: more than {MAX_ROWS} rows (the limit)")
        cells = next(csv.reader([line]))
        if len(cells) != len(header):
            raise LogError(f"{path}: line {k}: {len(cells)} cells where the header has {len(header)} columns")
        rows.append((k, [c.strip() for c in cells]))
    return meta, header, header_line, rows


def _number(path, line, column, cell):
    try:
        x = float(cell)
    except ValueError:
        raise LogError(f"{path}: line {line}, column '{column}': {cell!r} is not a number") from None
    if not math.isfinite(x):
        raise LogError(f"{path}: line {line}, column '{column}': {cell!r} is not finite")
    return x


def _times(path, rows, index):
    t = np.empty(len(rows))
    for n, (line, cells) in enumerate(rows):
        if not cells[index]:
            raise LogError(f"{path}: line {line}, column 't': empty (every row needs a time)")
        t[n] = _number(path, line, "t", cells[index])
        if n and t[n] <= t[n - 1]:
            raise LogError(f"{path}: line {line}, column 't': {cells[index]} does not increase "
                           f"(previous row {t[n - 1]!r}); rows must be sorted by strictly increasing t")
    return t


def _group(path, rows, header, names, t, label):
    """The rows where the group `names` has values: a Stream, or None if no row has any."""
    idx = [header.index(c) for c in names]
    keep, values = [], []
    for n, (line, cells) in enumerate(rows):
        present = [bool(cells[j]) for j in idx]
        if not any(present):
            continue
        if not all(present):
            missing = names[present.index(False)]
            raise LogError(f"{path}: line {line}, column '{missing}': empty while other {label} columns "
                           "have values (a group is all present or all empty in a row)")
        keep.append(n)
        values.append([_number(path, line, c, cells[j]) for c, j in zip(names, idx)])
    if not keep:
        return None
    if len(keep) < 2:
        raise LogError(f"{path}: line {rows[keep[0]][0]}: the {label} stream has a single sample "
                       "(at least 2 are needed)")
    return Stream(t=t[keep], values=np.array(values, dtype=float), columns=tuple(names)), [rows[k][0] for k in keep]


def _vector3(path, meta, key):
    text = meta.get(key)
    if text is None:
        return np.zeros(3)
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3:
        raise LogError(f"{path}: metadata '{key}': {text!r} must be three numbers 'x,y,z'")
    try:
        v = np.array([float(p) for p in parts])
    except ValueError:
        raise LogError(f"{path}: metadata '{key}': {text!r} must be three numbers 'x,y,z'") from None
    if not np.all(np.isfinite(v)) or np.max(np.abs(v)) > 100:
        raise LogError(f"{path}: metadata '{key}': {text!r} must be finite and within 100 m")
    return v


def load_log(path):
    """Reads a Nereid trial log (docs/logs.md) into a TrialLog in Nereid's frames."""
    path = os.fspath(path)
    meta, header, header_line, rows = _read_table(path, "nereid-log")
    frame = meta.get("frame", "NED").upper()
    if frame not in FRAMES:
        raise LogError(f"{path}: metadata 'frame': {meta['frame']!r} is not one of {', '.join(FRAMES)}")
    if "t" not in header:
        raise LogError(f"{path}: line {header_line}: missing column 't'")
    known = {"t", *POSE_COLUMNS, *VELOCITY_COLUMNS}
    names = []
    for j, h in enumerate(header):
        if h.startswith(COMMAND_PREFIX) and len(h) > len(COMMAND_PREFIX):
            names.append(h[len(COMMAND_PREFIX):])
        elif h not in known:
            raise LogError(f"{path}: line {header_line}, column '{h}': unknown column (the columns are t, "
                           f"{','.join(POSE_COLUMNS)}, {','.join(VELOCITY_COLUMNS)} and cmd.<actuator>)")
    if len(names) > MAX_COMMANDS:
        raise LogError(f"{path}: line {header_line}: {len(names)} command columns (the limit is {MAX_COMMANDS})")
    for group, label in ((POSE_COLUMNS, "pose"), (VELOCITY_COLUMNS, "velocity")):
        present = [c for c in group if c in header]
        if present and len(present) != len(group):
            missing = [c for c in group if c not in header]
            raise LogError(f"{path}: line {header_line}: missing column '{missing[0]}' of the {label} group "
                           f"({','.join(group)}; give all or none)")
    if not rows:
        raise LogError(f"{path}: line {header_line + 1}: no data rows")
    if len(rows) < 2:
        raise LogError(f"{path}: line {rows[0][0]}: a single sample (at least 2 rows are needed)")
    t = _times(path, rows, header.index("t"))
    log = TrialLog(path=path, meta=meta, frame=frame, marker_offset=body_vector_to_flu(frame, _vector3(path, meta, "marker_offset")))
    if "x" in header:
        got = _group(path, rows, header, POSE_COLUMNS, t, "pose")
        if got:
            stream, lines = got
            norms = np.linalg.norm(stream.values[:, 3:7], axis=1)
            bad = np.flatnonzero(np.abs(norms - 1) > 1e-3)
            if bad.size:
                raise LogError(f"{path}: line {lines[bad[0]]}, columns 'qw,qx,qy,qz': the quaternion's norm is "
                               f"{norms[bad[0]]:.6g}, not 1 (within 1e-3)")
            stream.values[:, 3:7] /= norms[:, None]
            stream.values = pose_to_nereid(frame, stream.values)
            log.pose = stream
    if "u" in header:
        got = _group(path, rows, header, VELOCITY_COLUMNS, t, "velocity")
        if got:
            stream, _ = got
            stream.values = body_vector_to_flu(frame, stream.values)
            log.velocity = stream
    if names:
        cols = tuple(COMMAND_PREFIX + n for n in names)
        units = meta.get("command_units")
        if units is None:
            raise LogError(f"{path}: the log has command columns but no '# command_units:' line "
                           f"({'|'.join(COMMAND_UNITS)})")
        unit_list = [u.strip() for u in units.split(",")]
        for u in unit_list:
            if u not in COMMAND_UNITS:
                raise LogError(f"{path}: metadata 'command_units': unknown unit {u!r} ({'|'.join(COMMAND_UNITS)})")
        if len(set(unit_list)) > 1:
            raise LogError(f"{path}: metadata 'command_units': mixed units {units!r}: one unit for every "
                           "command column")
        got = _group(path, rows, header, cols, t, "command")
        if got:
            stream, lines = got
            limits = COMMAND_UNITS[unit_list[0]]
            if limits:
                lo, hi = limits
                bad = np.argwhere((stream.values < lo) | (stream.values > hi))
                if bad.size:
                    n, j = bad[0]
                    raise LogError(f"{path}: line {lines[n]}, column '{cols[j]}': {stream.values[n, j]:g} is "
                                   f"outside [{lo:g}, {hi:g}] of command_units {unit_list[0]} (mixed units?)")
            log.commands = stream
            log.names = tuple(names)
            log.command_units = unit_list[0]
    if log.pose is None and log.velocity is None and log.commands is None:
        raise LogError(f"{path}: line {header_line}: no stream has values (pose, velocity or cmd.* columns)")
    return log


def write_log(path, t, *, pose=None, velocity=None, commands=None, names=(), frame="NED",
              marker_offset=None, command_units=None, source="", extra_meta=None):
    """Writes a trial log. Arrays are on the common times `t`; NaN rows of a group are written
    empty (streams at different rates). `pose` and `velocity` are in Nereid's frames and are
    converted to `frame`; `marker_offset` is in the body frame FLU."""
    t = np.asarray(t, dtype=float)
    cols = ["t"]
    blocks = []
    if pose is not None:
        p = np.array(pose, dtype=float)
        ok = np.all(np.isfinite(p), axis=1)
        p[ok] = pose_from_nereid(frame, p[ok])
        cols += POSE_COLUMNS
        blocks.append(p)
    if velocity is not None:
        cols += VELOCITY_COLUMNS
        blocks.append(body_vector_to_flu(frame, velocity))
    if commands is not None:
        cols += [COMMAND_PREFIX + n for n in names]
        blocks.append(np.asarray(commands, dtype=float))
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# nereid-log: {LOG_VERSION}\n")
        if source:
            f.write(f"# source: {source}\n")
        f.write(f"# frame: {frame}\n")
        if marker_offset is not None:
            m = body_vector_to_flu(frame, np.asarray(marker_offset, dtype=float)[None, :])[0]
            f.write(f"# marker_offset: {m[0]:.6g},{m[1]:.6g},{m[2]:.6g}\n")
        if command_units:
            f.write(f"# command_units: {command_units}\n")
        for k, v in (extra_meta or {}).items():
            f.write(f"# {k}: {v}\n")
        f.write(",".join(cols) + "\n")
        for n in range(len(t)):
            cells = [f"{t[n]:.6f}"]
            for b in blocks:
                row = b[n]
                cells += ["" if not np.all(np.isfinite(row)) else f"{x:.7g}" for x in row]
            f.write(",".join(cells) + "\n")


def load_tow_run(path, dof=None):
    """Reads a tow-test run (docs/logs.md): columns t, speed and force (translational) or
    moment (rotational); `# dof:` names the degree of freedom. `dof`, if given, must match."""
    path = os.fspath(path)
    meta, header, header_line, rows = _read_table(path, "nereid-tow")
    run_dof = meta.get("dof")
    if run_dof is None:
        raise LogError(f"{path}: no '# dof:' line ({'|'.join(DOFS)})")
    run_dof = run_dof.lower()
    if run_dof not in DOFS:
        raise LogError(f"{path}: metadata 'dof': {meta['dof']!r} is not one of {', '.join(DOFS)}")
    if dof is not None and run_dof != dof:
        raise LogError(f"{path}: metadata 'dof': the run is {run_dof}, but {dof} was asked for")
    quantity = "moment" if run_dof in ROTATIONAL else "force"
    for c in ("t", "speed", quantity):
        if c not in header:
            other = "force" if quantity == "moment" else "moment"
            hint = f" ({run_dof} runs record '{quantity}', not '{other}')" if other in header else ""
            raise LogError(f"{path}: line {header_line}: missing column '{c}'{hint}")
    extra = [h for h in header if h not in ("t", "speed", quantity)]
    if extra:
        raise LogError(f"{path}: line {header_line}, column '{extra[0]}': unknown column (t, speed, {quantity})")
    if len(rows) < 2:
        line = rows[0][0] if rows else header_line + 1
        raise LogError(f"{path}: line {line}: {'a single sample' if rows else 'no data rows'} "
                       "(a run needs at least 2 rows)")
    t = _times(path, rows, header.index("t"))
    cols = {}
    for c in ("speed", quantity):
        j = header.index(c)
        vals = np.empty(len(rows))
        for n, (line, cells) in enumerate(rows):
            if not cells[j]:
                raise LogError(f"{path}: line {line}, column '{c}': empty")
            vals[n] = _number(path, line, c, cells[j])
        cols[c] = vals
    stationary = None
    if "stationary" in meta:
        parts = meta["stationary"].split(",")
        try:
            stationary = tuple(float(p) for p in parts)
        except ValueError:
            stationary = ()
        if len(stationary) != 2 or not stationary[0] < stationary[1]:
            raise LogError(f"{path}: metadata 'stationary': {meta['stationary']!r} must be 't0,t1' with t0 < t1")
        if stationary[0] < t[0] or stationary[1] > t[-1]:
            raise LogError(f"{path}: metadata 'stationary': {meta['stationary']!r} is outside the run's "
                           f"time {t[0]:g}..{t[-1]:g} s")
    return TowRun(path=path, meta=meta, dof=run_dof, t=t, speed=cols["speed"], load=cols[quantity],
                  quantity=quantity, stationary=stationary)


def write_tow_run(path, dof, t, speed, load, *, source="", extra_meta=None):
    """Writes a tow-test run in the format load_tow_run reads."""
    quantity = "moment" if dof in ROTATIONAL else "force"
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# nereid-tow: {TOW_VERSION}\n# dof: {dof}\n")
        if source:
            f.write(f"# source: {source}\n")
        for k, v in (extra_meta or {}).items():
            f.write(f"# {k}: {v}\n")
        f.write(f"t,speed,{quantity}\n")
        for a, b, c in zip(t, speed, load):
            f.write(f"{a:.4f},{b:.6g},{c:.6g}\n")
