"""Kind `file` of tools/fuzz/fuzz.py: the contents of the other files Nereid's commands read.

Besides models and scenarios, `nereid coefficients` reads a hull mesh (binary or ASCII STL,
Wavefront OBJ), `nereid replay` and `nereid identify free` read a trial log and `nereid
identify tow` reads tow-test runs (docs/logs.md). A case writes one such file, mutated,
as its input and runs the command on it; the command must end with a clear error (naming
the file) or a result, never a Python traceback, a signal or a hang.

The base inputs are the shipped ones: models/example_vehicle/hull.stl (binary STL; its
ASCII STL and OBJ forms are written from it here, vertices shared), examples/logs/trial.csv
and examples/logs/tow/*.csv (the mutated run is given with the other shipped runs, so a
fit has its speeds). Each mutation class says whether the result is known-bad (then the
command must refuse it naming the file) or may be either.

Standard library only.
"""
import os
import random
import re
import struct

INPUT_NAME = "input"  # fuzz.py writes a case's data to CASE/input<suffix>

TRIAL_LOG = "examples/logs/trial.csv"
TOW_FOLDER = "examples/logs/tow"
TOW_RUN = "surge_+0.400_1.csv"
MESH = "models/example_vehicle/hull.stl"
MODEL = "@SOURCE@/models/bluerov/bluerov.xml"

# input name: (origin, suffix, argv after @NEREID@); @INPUT@ is the mutated file
COEFFICIENTS = ["coefficients", "@INPUT@", "--max-panels", "40", "--out", "@CASE@/out.json"]
INPUTS = {
    "stl-binary": (MESH, ".stl", COEFFICIENTS),
    "stl-ascii": (MESH + " (as ASCII STL)", ".stl", COEFFICIENTS),
    "obj": (MESH + " (as OBJ)", ".obj", COEFFICIENTS),
    "trial-replay": (TRIAL_LOG, ".csv", ["replay", "@INPUT@", "--model", MODEL, "--out", "@CASE@/out",
                                          "--no-plots"]),
    "trial-identify": (TRIAL_LOG, ".csv", ["identify", "free", "@INPUT@", "--model", MODEL,
                                            "--max-evaluations", "1", "--out", "@CASE@/out.json"]),
    "tow": (f"{TOW_FOLDER}/{TOW_RUN}", ".csv", ["identify", "tow", "@INPUT@", "@CASE@/tow",
                                                 "--out", "@CASE@/out.json"]),
}

BAD_NUMBERS = ["nan", "-nan", "inf", "-inf", "1e400", "abc", "1.0abc", "0x10", "--1", ""]
ODD_NUMBERS = ["1e308", "-1e308", "5e-324", "0", "-0", "1e-300", "99999999999999999999"]
BAD_INDICES = ["0", "99999", "-99999", "18446744073709551616", "abc", "1.5", ""]


def read(path):
    with open(path, "rb") as f:
        return f.read()


def stl_triangles(data):
    """[(normal, v1, v2, v3)] of a binary STL."""
    (count,) = struct.unpack_from("<I", data, 80)
    return [struct.unpack_from("<12f", data, 84 + 50 * i) for i in range(count)]


def stl_binary(header, triangles):
    out = bytearray(header[:80].ljust(80, b"\0"))
    out += struct.pack("<I", len(triangles))
    for t in triangles:
        out += struct.pack("<12f", *t) + b"\0\0"
    return bytes(out)


def fmt(x):
    return repr(float(x))


def stl_ascii(triangles):
    lines = ["solid hull"]
    for t in triangles:
        lines.append(f"  facet normal {fmt(t[0])} {fmt(t[1])} {fmt(t[2])}")
        lines.append("    outer loop")
        for k in (3, 6, 9):
            lines.append(f"      vertex {fmt(t[k])} {fmt(t[k + 1])} {fmt(t[k + 2])}")
        lines.append("    endloop")
        lines.append("  endfacet")
    lines.append("endsolid hull")
    return "\n".join(lines) + "\n"


def obj_text(triangles):
    """The mesh as OBJ, vertices shared (the same coordinates: one vertex)."""
    index, verts, faces = {}, [], []
    for t in triangles:
        face = []
        for k in (3, 6, 9):
            v = tuple(t[k:k + 3])
            if v not in index:
                index[v] = len(verts) + 1
                verts.append(v)
            face.append(index[v])
        faces.append(face)
    lines = ["# Nereid example vehicle hull (models/example_vehicle/hull.stl)"]
    lines += [f"v {fmt(a)} {fmt(b)} {fmt(c)}" for a, b, c in verts]
    lines += ["f " + " ".join(map(str, f)) for f in faces]
    return "\n".join(lines) + "\n"


def load(source):
    """{input name: (origin, bytes, suffix, argv, setup)} of the shipped inputs that can be
    read from `source` (an input whose file is missing is left out)."""
    out = {}
    mesh = os.path.join(source, MESH)
    if os.path.isfile(mesh):
        data = read(mesh)
        tris = stl_triangles(data)
        forms = {"stl-binary": data, "stl-ascii": stl_ascii(tris).encode(), "obj": obj_text(tris).encode()}
        for name, blob in forms.items():
            origin, suffix, argv = INPUTS[name]
            out[name] = (origin, blob, suffix, argv, [])
    trial = os.path.join(source, TRIAL_LOG)
    if os.path.isfile(trial):
        for name in ("trial-replay", "trial-identify"):
            origin, suffix, argv = INPUTS[name]
            out[name] = (origin, read(trial), suffix, argv, [])
    tow = os.path.join(source, TOW_FOLDER)
    if os.path.isfile(os.path.join(tow, TOW_RUN)):
        origin, suffix, argv = INPUTS["tow"]
        others = [("file", f"tow/{f}", read(os.path.join(tow, f)).decode())
                  for f in sorted(os.listdir(tow)) if f.endswith(".csv") and f != TOW_RUN]
        out["tow"] = (origin, read(os.path.join(tow, TOW_RUN)), suffix, argv, others)
    return out


# ----------------------------------------------------------------------------------------
# mutations: each returns (bytes, description, known_bad)

def flip_bytes(rng, data, start=0):
    b = bytearray(data)
    for _ in range(rng.choice([1, 2, 4, 16])):
        if len(b) > start:
            b[rng.randrange(start, len(b))] = rng.randrange(256)
    return bytes(b)


def truncated(rng, data):
    return data[:rng.randrange(len(data))] if data else data


def stl_binary_mutation(rng, data, cls):
    tris = [list(t) for t in stl_triangles(data)]
    header = data[:80]
    if cls == "flip-bytes":
        return flip_bytes(rng, data, 84), "bytes flipped after the header", False
    if cls == "truncate":
        return truncated(rng, data), "truncated", True
    if cls == "count":
        n = rng.choice([0, len(tris) - 1, len(tris) + 1, 2 ** 32 - 1, 2 ** 31])
        b = bytearray(data)
        struct.pack_into("<I", b, 80, n)
        return bytes(b), f"triangle count {n} (file holds {len(tris)})", True
    if cls == "non-finite":
        i, k = rng.randrange(len(tris)), rng.randrange(3, 12)
        tris[i][k] = rng.choice([float("nan"), float("inf"), -float("inf")])
        return stl_binary(header, tris), f"triangle {i + 1} coordinate {k - 2}: {tris[i][k]}", True
    if cls == "degenerate":
        i = rng.randrange(len(tris))
        tris[i][6:9] = tris[i][3:6]
        tris[i][9:12] = tris[i][3:6]
        return stl_binary(header, tris), f"triangle {i + 1} collapsed to a point", True
    if cls == "no-triangles":
        return stl_binary(header, []), "no triangles", True
    if cls == "scale":
        s = rng.choice([1e-6, 1e6, 3e38, 1e-38])
        return stl_binary(header, [t[:3] + [x * s for x in t[3:]] for t in tris]), f"coordinates x {s:g}", False
    if cls == "normals":
        v = rng.choice([float("nan"), 0.0, 1e30])
        return stl_binary(header, [[v, v, v] + t[3:] for t in tris]), f"every normal {v}", False
    if cls == "solid-header":
        return stl_binary(b"solid binary file that says solid", tris), "binary STL whose header starts 'solid'", False
    if cls == "repeat":
        k = rng.choice([2, 50, 2000])
        return stl_binary(header, tris * k), f"every triangle {k} times", False
    raise ValueError(cls)


def text_mutation(rng, text, cls):
    """Classes shared by the text formats (ASCII STL, OBJ, CSV)."""
    if cls == "bytes":
        t = list(text)
        for _ in range(rng.choice([1, 2, 4, 16])):
            if t:
                i = rng.randrange(len(t))
                t[i] = chr(rng.randrange(1, 128)) if rng.random() < 0.7 else chr(0xDC80 + rng.randrange(128))
        return "".join(t), "characters changed", False
    if cls == "truncate":
        return truncated(rng, text), "truncated", False
    if cls == "crlf":
        return text.replace("\n", "\r\n"), "CRLF line ends", False
    if cls == "bom":
        return "\ufeff" + text, "a UTF-8 byte-order mark", False
    if cls == "empty":
        return rng.choice(["", "\n", "   \n\n"]), "empty", True
    if cls == "binary-junk":
        junk = "".join(chr(0xDC80 + rng.randrange(128)) for _ in range(rng.choice([1, 100, 5000])))
        return junk, "bytes that are not text", True
    raise ValueError(cls)


NUMBER_RE = re.compile(r"-?\d+\.?\d*(?:[eE][-+]?\d+)?")


def replace_number(rng, line, value):
    """`line` with one of its numbers (after the keyword) replaced by value."""
    spans = [m.span() for m in NUMBER_RE.finditer(line)]
    if not spans:
        return line
    a, b = rng.choice(spans)
    return line[:a] + value + line[b:]


def mesh_text_mutation(rng, text, cls, kind):
    lines = text.split("\n")
    vertex_lines = [i for i, ln in enumerate(lines) if ln.lstrip().startswith(("v ", "vertex "))]
    face_lines = [i for i, ln in enumerate(lines) if ln.startswith("f ")]
    if cls == "bad-number":
        i, v = rng.choice(vertex_lines), rng.choice(BAD_NUMBERS)
        lines[i] = replace_number(rng, lines[i], v)
        return "\n".join(lines), f"line {i + 1}: a coordinate {v!r}", True
    if cls == "odd-number":
        i, v = rng.choice(vertex_lines), rng.choice(ODD_NUMBERS)
        lines[i] = replace_number(rng, lines[i], v)
        return "\n".join(lines), f"line {i + 1}: a coordinate {v!r}", False
    if kind == "obj":
        if cls == "face-index":
            i, v = rng.choice(face_lines), rng.choice(BAD_INDICES)
            parts = lines[i].split()
            parts[rng.randrange(1, len(parts))] = v
            lines[i] = " ".join(parts)
            return "\n".join(lines), f"line {i + 1}: a face index {v!r}", True
        if cls == "short-face":
            i = rng.choice(face_lines)
            lines[i] = " ".join(lines[i].split()[:rng.choice([1, 2, 3])])
            return "\n".join(lines), f"line {i + 1}: a face of fewer than 3 vertices", True
        if cls == "no-faces":
            return "\n".join(ln for ln in lines if not ln.startswith("f ")), "no faces", True
        if cls == "slashes":
            out = [("f " + " ".join(f"{p}/{p}/{p}" for p in ln.split()[1:])) if ln.startswith("f ") else ln
                   for ln in lines]
            return "\n".join(out), "faces as v/vt/vn", False
        if cls == "extras":
            extra = ["o hull", "g body", "s off", "mtllib none.mtl", "usemtl steel", "vn 0 0 1", "vt 0 0",
                     "# comment", ""]
            for _ in range(rng.choice([1, 5, 50])):
                lines.insert(rng.randrange(len(lines)), rng.choice(extra))
            return "\n".join(lines), "groups, materials, normals, comments", False
        if cls == "huge-count":
            k = rng.choice([1000, 100_000])
            return text + "v 0 0 0\n" * k, f"{k} unused vertices", False
    else:  # ASCII STL
        if cls == "keyword":
            i = rng.choice(vertex_lines)
            # (STL keywords are case-insensitive in common readers: 'Vertex' is not a mistake)
            lines[i] = lines[i].replace("vertex", rng.choice(["vertx", "vertexx", "v", "vert"]))
            return "\n".join(lines), f"line {i + 1}: a misspelt keyword", True
        if cls == "short-loop":
            i = rng.choice(vertex_lines)
            del lines[i]
            return "\n".join(lines), f"line {i + 1}: a facet of two vertices", True
        if cls == "no-endsolid":
            return "\n".join(ln for ln in lines if not ln.startswith("endsolid")), "no endsolid", False
    return text_mutation(rng, text, cls)


def csv_mutation(rng, text, cls, name):
    lines = text.split("\n")
    comments = [i for i, ln in enumerate(lines) if ln.startswith("#")]
    header = next((i for i, ln in enumerate(lines) if ln and not ln.startswith("#")), None)
    rows = [i for i, ln in enumerate(lines) if header is not None and i > header and ln.strip()]
    if header is None or not rows:
        return text_mutation(rng, text, "bytes")
    columns = lines[header].split(",")
    if cls == "cell":
        i, c = rng.choice(rows), rng.randrange(1, len(columns))
        v = rng.choice(BAD_NUMBERS + ODD_NUMBERS)
        cells = lines[i].split(",")
        if c < len(cells):
            cells[c] = v
        lines[i] = ",".join(cells)
        return "\n".join(lines), f"line {i + 1}, column {columns[c]!r}: {v!r}", False
    if cls == "bad-time":
        i, v = rng.choice(rows), rng.choice(["nan", "inf", "abc", "", "-1e400"])
        cells = lines[i].split(",")
        cells[0] = v
        lines[i] = ",".join(cells)
        return "\n".join(lines), f"line {i + 1}: time {v!r}", True
    if cls == "time-order":
        i = rng.randrange(len(rows) - 1)
        a, b = rows[i], rows[i + 1]
        if rng.random() < 0.5:
            lines[a], lines[b] = lines[b], lines[a]
            what = f"lines {a + 1} and {b + 1} swapped (time goes back)"
        else:
            lines.insert(b, lines[a])
            what = f"line {a + 1} twice (a time repeated)"
        return "\n".join(lines), what, True
    if cls == "header-only":
        return "\n".join(lines[:header + 1]) + "\n", "no data rows", True
    if cls == "duplicate-column":
        c = rng.randrange(len(columns))
        cols = list(columns)
        cols[(c + 1) % len(cols)] = columns[c]
        lines[header] = ",".join(cols)
        return "\n".join(lines), f"column {columns[c]!r} twice in the header", True
    if cls == "drop-column":
        c = rng.randrange(len(columns))
        lines = [",".join(x for k, x in enumerate(ln.split(",")) if k != c) if (i == header or i in rows) else ln
                 for i, ln in enumerate(lines)]
        return "\n".join(lines), f"column {columns[c]!r} removed", False
    if cls == "ragged":
        i = rng.choice(rows)
        cells = lines[i].split(",")
        lines[i] = ",".join(cells[:-1] if rng.random() < 0.5 else cells + ["1", "2"])
        return "\n".join(lines), f"line {i + 1}: a row of another length", True
    if cls == "comment-value":
        i = rng.choice(comments) if comments else 0
        key = lines[i].split(":", 1)[0]
        v = rng.choice(BAD_NUMBERS + ["99", "NED,ENU", "x" * 5000, "\udcff"])
        lines[i] = f"{key}: {v}"
        return "\n".join(lines), f"line {i + 1}: {key.lstrip('# ')} = {v[:20]!r}", False
    if cls == "version":
        i = comments[0] if comments else 0
        key = lines[i].split(":", 1)[0]
        v = rng.choice(["2", "99", "0", "-1", "abc", ""])
        lines[i] = f"{key}: {v}"
        return "\n".join(lines), f"format version {v!r}", True
    if cls == "many-rows":
        # a trial log is replayed in simulated time (the shipped one lasts 14 s, about 1.5 s of
        # CPU): a few times longer only, so that a case stays within its timeout
        k = rng.choice([10, 200]) if name == "tow" else rng.choice([2, 3])
        body = [lines[i] for i in rows]
        t_end = float(body[-1].split(",")[0]) if body[-1].split(",")[0] else 0.0
        step = t_end + 0.02
        more = []
        for r in range(1, k):
            for ln in body:
                cells = ln.split(",")
                cells[0] = f"{float(cells[0]) + r * step:.6f}"
                more.append(",".join(cells))
        return "\n".join(lines[:rows[-1] + 1] + more) + "\n", f"the rows {k} times (time continued)", False
    return text_mutation(rng, text, cls)


CLASSES = {
    "stl-binary": ["truncate", "count", "non-finite", "degenerate", "no-triangles", "flip-bytes", "scale",
                   "normals", "solid-header", "repeat"],
    "stl-ascii": ["bad-number", "keyword", "short-loop", "empty", "binary-junk", "odd-number", "no-endsolid",
                  "bytes", "truncate", "crlf", "bom"],
    "obj": ["bad-number", "face-index", "short-face", "no-faces", "odd-number", "slashes", "extras",
            "huge-count", "bytes", "truncate", "crlf", "bom"],
    "trial-replay": ["bad-time", "time-order", "header-only", "duplicate-column", "ragged", "version", "empty",
                     "cell", "drop-column", "comment-value", "many-rows", "bytes", "truncate", "crlf", "bom"],
    "trial-identify": ["bad-time", "time-order", "header-only", "ragged", "cell", "drop-column", "bytes",
                       "truncate"],
    "tow": ["bad-time", "time-order", "header-only", "duplicate-column", "ragged", "version", "empty",
            "binary-junk", "cell", "drop-column", "comment-value", "many-rows", "bytes", "truncate", "crlf"],
}
# the coverage list: every class that must be refused, of every input but the second reader
# of the trial log, once (each case starts Python and its command's libraries, 2-3 s of CPU)
KNOWN_BAD = {"count", "non-finite", "degenerate", "no-triangles", "bad-number", "keyword", "short-loop",
             "face-index", "short-face", "no-faces", "bad-time", "time-order", "header-only",
             "duplicate-column", "ragged", "version", "empty", "binary-junk"}
COVERAGE = [(name, cls) for name in CLASSES if name != "trial-identify" for cls in CLASSES[name]
            if cls in KNOWN_BAD or (name == "stl-binary" and cls == "truncate")]


def mutate(rng, name, blob, cls):
    """(bytes, description, known_bad) of input `name` mutated by class `cls`."""
    if name == "stl-binary":
        return stl_binary_mutation(rng, blob, cls)
    text = blob.decode("utf-8", "surrogateescape")
    if name in ("stl-ascii", "obj"):
        text, desc, bad = mesh_text_mutation(rng, text, cls, name)
    else:
        text, desc, bad = csv_mutation(rng, text, cls, name)
    return text.encode("utf-8", "surrogateescape"), desc, bad


def case_parts(seed, n, inputs):
    """Case file-N of `seed`: (origin, data, suffix, argv, setup, description, known_bad,
    coverage) or None when no input could be read. The first len(COVERAGE) cases are the
    coverage list; later ones draw an input and a class."""
    cover = [c for c in COVERAGE if c[0] in inputs]
    rng = random.Random(f"nereid-fuzz/{seed}/file/{n}")
    if n < len(cover):
        name, cls = cover[n]
        coverage = True
    else:
        names = sorted(inputs)
        if not names:
            return None
        name = rng.choice(names)
        cls = rng.choice(CLASSES[name])
        coverage = False
    origin, blob, suffix, argv, setup = inputs[name]
    data, desc, bad = mutate(rng, name, blob, cls)
    command = argv[0] if argv[0] != "identify" else " ".join(argv[:2])
    return (origin, data, suffix, argv, setup, f"nereid {command}: {name} {cls}: {desc}", bad, coverage)


def coverage_count(inputs):
    return len([c for c in COVERAGE if c[0] in inputs])
