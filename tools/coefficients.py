#!/usr/bin/env python3
"""Added mass, buoyancy and a first damping guess from a vehicle's geometry.

`nereid coefficients MESH|MODEL.xml` runs this script (docs/own_vehicle.md, part 1):

* the infinite-frequency added-mass matrix in unbounded fluid (no free surface) by a
  boundary-element solve with Capytaine (direct boundary integral equation, constant
  panels; `--submergence D` adds a free surface D metres above the reference point, with
  the potential zero on it, as Nemoh's infinite-frequency limit does at depth D);
* the displaced volume and centre of buoyancy of the same surface (divergence theorem);
* a mesh-convergence study: three or more refinements, the spread and a Richardson
  estimate per entry;
* an explicitly labelled first guess of the quadratic drag from projected areas and the
  3-D body drag coefficients of White, Fluid Mechanics, Table 7.3 (potential flow gives
  no damping).

Frames. Mesh coordinates are the vehicle's MuJoCo body frame (x forward, y port, z up:
FLU) unless `--frame frd` says they are SNAME's (x forward, y starboard, z down). The
matrices are reported in SNAME/FRD order X, Y, Z, K, M, N (as papers print them) and in
the MuJoCo body frame, through the rule of include/nereid/frames.h: T6 A T6 with
T6 = blockdiag(T, T), T = diag(1, -1, -1). An MJCF body is meshed in its body frame from
its geoms; panels of one geom whose centre lies inside another geom are removed (the
union's outer surface, up to the panels that straddle an intersection line).

Errors in the input (a mesh that is not watertight, inverted or inconsistent normals,
zero or negative volume, degenerate panels, too many panels, a file that is not a mesh,
coordinates that look like millimetres, a body that does not exist) raise InputError with
the file and the problem; the command line prints it and exits 1 having written nothing.
"""
import argparse
import json
import math
import os
import struct
import sys
import time
import xml.etree.ElementTree as ET

import numpy as np
from tool_args import integer, is_number, number

# The most panels one solve may have: the direct method stores two dense N x N matrices
# (8 bytes an entry) and factorises one; 6000 panels take about 0.6 GB and minutes.
PANEL_LIMIT = 6000
DEFAULT_MAX_PANELS = 2000
# A body larger than this (m, largest extent) is taken for a mesh written in millimetres.
MAX_EXTENT_M = 30.0
# The farthest a vertex may lie from the mesh's origin (m): farther, the volume's products
# of coordinates lose every digit (and beyond 1e102 overflow).
MAX_OFFSET_M = 1e4
TOL_REL = 1e-9
MAX_FILE_BYTES = 100_000_000  # a mesh file (binary STL: 2 million triangles)

# White, Fluid Mechanics (7th ed.), Table 7.3: drag of a short circular cylinder with its
# axis along the flow (Cd on the frontal area) against length/diameter; L/D = 0 is the
# flat disc normal to the flow (Cd 1.17, Hoerner, Fluid-Dynamic Drag, 3-17).
WHITE_T73_L_OVER_D = [0.0, 0.5, 1.0, 2.0, 4.0, 8.0]
WHITE_T73_CD = [1.17, 1.15, 0.90, 0.85, 0.87, 0.99]
DAMPING_SOURCE = ("projected area x drag coefficient of a short cylinder of the same "
                  "length/diameter along the flow (White, Fluid Mechanics, Table 7.3); rotations by "
                  "strip theory on the panels with the mean Cd; replace with identified values")

AXES = ["X", "Y", "Z", "K", "M", "N"]


class InputError(Exception):
    """Bad input: the message names the file and the problem."""


# ----------------------------------------------------------------------------- mesh files

def _read_stl(path, data):
    if len(data) >= 84:
        n = struct.unpack_from("<I", data, 80)[0]
        if len(data) == 84 + 50 * n and n > 0:
            rec = np.frombuffer(data, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]),
                                count=n, offset=84)
            tri = rec["v"].astype(np.float64)
            return tri
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a mesh: neither a binary STL (size does not match its triangle count) "
                         "nor ASCII text")
    if not text.lstrip().lower().startswith("solid"):
        raise InputError(f"{path}: not a mesh: an ASCII STL starts with 'solid'")
    verts = []
    for lineno, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if words and words[0].lower() == "vertex":
            try:
                if len(words) != 4:
                    raise ValueError
                verts.append([float(w) for w in words[1:]])
            except ValueError:
                raise InputError(f"{path}:{lineno}: not a mesh: bad vertex line '{line.strip()}'")
    if not verts or len(verts) % 3:
        raise InputError(f"{path}: not a mesh: {len(verts)} vertices, not a positive multiple of 3")
    return np.array(verts).reshape(-1, 3, 3)


def _read_obj(path, data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a mesh: an OBJ file is text")
    verts, faces = [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        try:
            if words[0] == "v":
                verts.append([float(w) for w in words[1:4]])
                if len(verts[-1]) != 3:
                    raise ValueError
            elif words[0] == "f":
                idx = []
                for w in words[1:]:
                    i = int(w.split("/")[0])
                    idx.append(i - 1 if i > 0 else len(verts) + i)
                if len(idx) < 3:
                    raise ValueError
                faces.append(idx)
        except ValueError:
            raise InputError(f"{path}:{lineno}: not a mesh: bad line '{line.strip()}'")
    if not verts or not faces:
        raise InputError(f"{path}: not a mesh: no vertices or faces (OBJ 'v' and 'f' lines)")
    V = np.array(verts)
    tris = []
    for k, f in enumerate(faces):
        if min(f) < 0 or max(f) >= len(V):
            raise InputError(f"{path}: not a mesh: face {k + 1} uses vertex {max(f) + 1} of {len(V)}")
        for j in range(1, len(f) - 1):  # fan triangulation of polygons
            tris.append([f[0], f[j], f[j + 1]])
    return V[np.array(tris)]


def read_mesh(path, scale=1.0):
    """(vertices, faces) of an STL (ASCII or binary) or OBJ file, scaled; faces are triangles."""
    try:
        if not os.path.isfile(path):
            raise InputError(f"{path}: not a regular file")
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise InputError(f"{path}: {size} bytes, more than the limit of {MAX_FILE_BYTES} for a mesh")
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}")
    ext = os.path.splitext(path)[1].lower()
    if ext == ".stl":
        tri = _read_stl(path, data)
    elif ext == ".obj":
        tri = _read_obj(path, data)
    else:
        raise InputError(f"{path}: not a mesh file: expected .stl, .obj or an MJCF model .xml")
    if not np.all(np.isfinite(tri)):
        raise InputError(f"{path}: not a mesh: a vertex coordinate is not a finite number")
    V, F = merge_vertices(tri.reshape(-1, 3) * scale, np.arange(tri.shape[0] * 3).reshape(-1, 3))
    return V, F


def merge_vertices(V, F):
    """Vertices closer than 1e-9 of the extent merged (an STL repeats them per triangle)."""
    ext = float(np.ptp(V, axis=0).max()) if len(V) else 0.0
    q = np.round(V / max(ext * TOL_REL * 10, 1e-300)).astype(np.int64)
    _, first, inverse = np.unique(q, axis=0, return_index=True, return_inverse=True)
    return V[first], [[int(inverse.reshape(-1)[i]) for i in f] for f in F]


# ----------------------------------------------------------------------------- geometry

def face_arrays(V, F):
    """Centres, unit normals and areas of the panels (triangles or planar-ish quads)."""
    C, N, A = [], [], []
    for f in F:
        p = V[f]
        if len(f) == 3:
            nvec = 0.5 * np.cross(p[1] - p[0], p[2] - p[0])
            c = p.mean(axis=0)
        else:
            nvec = 0.5 * np.cross(p[2] - p[0], p[3] - p[1])
            c = p.mean(axis=0)
        a = float(np.linalg.norm(nvec))
        C.append(c)
        A.append(a)
        N.append(nvec / a if a > 0 else nvec)
    return np.array(C), np.array(N), np.array(A)


def triangles(V, F):
    out = []
    for f in F:
        for j in range(1, len(f) - 1):
            out.append([f[0], f[j], f[j + 1]])
    return V[np.array(out)]


def volume_properties(V, F):
    """Volume, centroid and the inertia tensor of unit density about the origin, of the
    closed surface (tetrahedra from the origin: exact for a closed polyhedron)."""
    T = triangles(V, F)
    a, b, c = T[:, 0], T[:, 1], T[:, 2]
    v = np.einsum("ij,ij->i", a, np.cross(b, c)) / 6.0
    vol = float(v.sum())
    centroid = (v[:, None] * (a + b + c) / 4.0).sum(axis=0) / vol if vol != 0 else np.zeros(3)
    # second moments of each tetrahedron (0, a, b, c): (v/20)(sum x_i x_j + (sum x)(sum x))
    s = a + b + c
    S = (np.einsum("ni,nj->nij", a, a) + np.einsum("ni,nj->nij", b, b) + np.einsum("ni,nj->nij", c, c)
         + np.einsum("ni,nj->nij", s, s))
    second = (v[:, None, None] * S / 20.0).sum(axis=0)
    inertia = np.trace(second) * np.eye(3) - second
    return vol, centroid, inertia


def check_mesh(V, F, source, max_panels=PANEL_LIMIT):
    """Raises InputError unless the surface is a closed, consistently outward-oriented,
    non-degenerate surface of positive volume with at most max_panels panels."""
    if len(F) > max_panels:
        raise InputError(f"{source}: {len(F)} panels, more than the limit of {max_panels} "
                         f"(the solve stores dense N x N matrices; simplify the mesh)")
    ext = float(np.ptp(V, axis=0).max())
    if ext > MAX_EXTENT_M:
        raise InputError(f"{source}: the body is {ext:.4g} m across, more than {MAX_EXTENT_M:g} m: the "
                         "coordinates look like millimetres; give --units mm (or --scale 0.001)")
    far = float(np.abs(V).max())
    if far > MAX_OFFSET_M:
        raise InputError(f"{source}: a vertex lies {far:.4g} m from the mesh's origin, more than the limit "
                         f"of {MAX_OFFSET_M:g} m: move the mesh to its own origin")
    _, _, A = face_arrays(V, F)
    bad = np.flatnonzero(A <= (ext * 1e-7) ** 2)
    if ext <= 0 or len(bad):
        k = int(bad[0]) if len(bad) else 0
        raise InputError(f"{source}: {len(bad) if len(bad) else len(F)} degenerate panels (zero area), "
                         f"e.g. panel {k + 1}: remove them or re-export the mesh")
    directed = {}
    for k, f in enumerate(F):
        for j in range(len(f)):
            e = (f[j], f[(j + 1) % len(f)])
            directed[e] = directed.get(e, 0) + 1
    for (i, j), n in directed.items():
        back = directed.get((j, i), 0)
        if back == 0:
            if n == 1:
                raise InputError(f"{source}: not watertight: the edge from {np.round(V[i], 6).tolist()} to "
                                 f"{np.round(V[j], 6).tolist()} belongs to one panel only (a hole)")
        if n > 1 or back > 1:
            raise InputError(f"{source}: inconsistent normals: the edge from {np.round(V[i], 6).tolist()} to "
                             f"{np.round(V[j], 6).tolist()} is walked the same way by {max(n, back)} panels "
                             "(neighbouring panels must list their common edge in opposite orders, or the "
                             "surface is not a manifold)")
    vol, _, _ = volume_properties(V, F)
    if abs(vol) <= 1e-9 * ext ** 3:
        raise InputError(f"{source}: zero volume ({vol:.3g} m^3): a flat or self-cancelling surface")
    if vol < 0:
        raise InputError(f"{source}: inverted normals: the enclosed volume is negative ({vol:.6g} m^3); "
                         "the panels must be ordered counter-clockwise seen from outside")
    return vol


def subdivide(V, F):
    """Each triangle into four by its edge midpoints (the same flat surface, conforming)."""
    V = [np.asarray(v) for v in V]
    mids = {}

    def mid(i, j):
        key = (min(i, j), max(i, j))
        if key not in mids:
            mids[key] = len(V)
            V.append(0.5 * (V[i] + V[j]))
        return mids[key]

    out = []
    for f in F:
        for t in ([f[0], f[j], f[j + 1]] for j in range(1, len(f) - 1)):
            a, b, c = t
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            out += [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]
    return np.array(V), out


# ----------------------------------------------------------------------------- primitives

def _orient(V, F):
    vol, _, _ = volume_properties(V, F)
    return (V, F) if vol > 0 else (V, [list(reversed(f)) for f in F])


def ellipsoid_mesh(a, b, c, n):
    """Cube-sphere quads (6 n^2, equiangular), vertices on the ellipsoid x^2/a^2 + ... = 1.
    n is scaled per axis so elongated bodies keep square-ish panels."""
    t = np.tan(np.linspace(-np.pi / 4, np.pi / 4, n + 1))
    verts, faces, index = [], [], {}

    def vid(p):
        key = tuple(np.round(p, 12))
        if key not in index:
            index[key] = len(verts)
            verts.append(p)
        return index[key]

    for axis in range(3):
        for s in (-1.0, 1.0):
            for i in range(n):
                for j in range(n):
                    q = []
                    for (u, w) in ((i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)):
                        p = np.zeros(3)
                        p[axis], p[(axis + 1) % 3], p[(axis + 2) % 3] = s, t[u], t[w]
                        q.append(vid(p / np.linalg.norm(p)))
                    faces.append(q if s > 0 else q[::-1])
    V = np.array(verts) * np.array([a, b, c])
    return _orient(V, faces)


def revolution_mesh(profile, m, axis=2):
    """Surface of revolution of the profile [(axial, radius)] (first and last radius 0)
    about `axis`, m segments around."""
    verts, faces, rings = [], [], []
    phi = np.linspace(0, 2 * np.pi, m, endpoint=False)
    e = [(axis + 1) % 3, (axis + 2) % 3]
    for z, r in profile:
        if r <= 1e-12:
            p = np.zeros(3)
            p[axis] = z
            rings.append([len(verts)] * m)
            verts.append(p)
        else:
            ring = []
            for f in phi:
                p = np.zeros(3)
                p[axis], p[e[0]], p[e[1]] = z, r * math.cos(f), r * math.sin(f)
                ring.append(len(verts))
                verts.append(p)
            rings.append(ring)
    for k in range(len(rings) - 1):
        r0, r1 = rings[k], rings[k + 1]
        for j in range(m):
            jn = (j + 1) % m
            q = [r0[j], r0[jn], r1[jn], r1[j]]
            uniq = list(dict.fromkeys(q))
            if len(uniq) >= 3:
                faces.append(uniq)
    return _orient(np.array(verts), faces)


def box_mesh(hx, hy, hz, h):
    """Quads of side about h on the box [-hx, hx] x [-hy, hy] x [-hz, hz]."""
    half = [hx, hy, hz]
    verts, faces, index = [], [], {}

    def vid(p):
        key = tuple(np.round(p, 12))
        if key not in index:
            index[key] = len(verts)
            verts.append(np.array(p))
        return index[key]

    for axis in range(3):
        u, w = (axis + 1) % 3, (axis + 2) % 3
        nu = max(1, int(math.ceil(2 * half[u] / h)))
        nw = max(1, int(math.ceil(2 * half[w] / h)))
        gu = np.linspace(-half[u], half[u], nu + 1)
        gw = np.linspace(-half[w], half[w], nw + 1)
        for s in (-1.0, 1.0):
            for i in range(nu):
                for j in range(nw):
                    q = []
                    for (a, b) in ((i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)):
                        p = [0.0, 0.0, 0.0]
                        p[axis], p[u], p[w] = s * half[axis], gu[a], gw[b]
                        q.append(vid(p))
                    faces.append(q if s > 0 else q[::-1])
    return _orient(np.array(verts), faces)


def cylinder_mesh(r, hh, h):
    """A closed cylinder of radius r and half-length hh along z, panels of about h."""
    m = max(8, int(math.ceil(2 * math.pi * r / h)))
    nr = max(1, int(math.ceil(r / h)))
    nz = max(1, int(math.ceil(2 * hh / h)))
    prof = [(-hh, 0.0)] + [(-hh, r * k / nr) for k in range(1, nr + 1)]
    prof += [(-hh + 2 * hh * k / nz, r) for k in range(1, nz + 1)]
    prof += [(hh, r * k / nr) for k in range(nr - 1, 0, -1)] + [(hh, 0.0)]
    return revolution_mesh(prof, m)


def capsule_mesh(r, hh, h):
    m = max(8, int(math.ceil(2 * math.pi * r / h)))
    nq = max(2, int(math.ceil(0.5 * math.pi * r / h)))
    nz = max(1, int(math.ceil(2 * hh / h)))
    prof = [(-hh - r * math.cos(t), r * math.sin(t)) for t in np.linspace(0, np.pi / 2, nq + 1)]
    prof += [(-hh + 2 * hh * k / nz, r) for k in range(1, nz + 1)]
    prof += [(hh + r * math.sin(t), r * math.cos(t)) for t in np.linspace(0, np.pi / 2, nq + 1)[1:]]
    return revolution_mesh(prof, m)


# ----------------------------------------------------------------------------- solve

def frd_to_flu6(A):
    """nereid/frames.h ToMujoco(Mat6, kFRD): T6 A T6, T6 = blockdiag(T, T), T = diag(1,-1,-1).
    The map is its own inverse (FLU to FRD is the same)."""
    s = np.array([1.0, -1.0, -1.0, 1.0, -1.0, -1.0])
    return s[:, None] * np.asarray(A) * s[None, :]


def frd_to_flu3(x):
    return np.asarray(x, dtype=float) * np.array([1.0, -1.0, -1.0])


def transport(r):
    """H(r) of include/nereid/fossen.h: nu_P = H(r) nu_O for P = O + r."""
    H = np.eye(6)
    x, y, z = r
    S = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    H[:3, 3:] = -S  # v_P = v_O + w x r = v_O - r x w
    return H


def move_reference(A_P, r_from_new_to_P):
    """A matrix given about P, expressed about Q where P = Q + r: H(r)^T A_P H(r)
    (fossen.h ShiftToOrigin)."""
    H = transport(r_from_new_to_P)
    return H.T @ A_P @ H


def solve_added_mass(V, F, rho, ref, submergence=None):
    """6x6 added mass about `ref` in the mesh's frame (z up for a free surface)."""
    import logging
    import capytaine as cpt
    logging.getLogger("capytaine").setLevel(logging.ERROR)
    V = np.asarray(V, dtype=float)
    ref = np.asarray(ref, dtype=float)
    kwargs = dict(free_surface=np.inf, omega=np.inf)
    if submergence is not None:
        shift = np.array([0.0, 0.0, -float(submergence) - ref[2]])
        V = V + shift
        ref = ref + shift
        kwargs = dict(free_surface=0.0, water_depth=np.inf, omega=np.inf)
    mesh = cpt.Mesh(V, [list(f) for f in F], auto_clean=False, auto_check=False)
    body = cpt.FloatingBody(mesh=mesh, dofs=cpt.rigid_body_dofs(rotation_center=ref))
    dofs = list(body.dofs)
    solver = cpt.BEMSolver(method="direct")
    A = np.zeros((6, 6))
    for i, d in enumerate(dofs):
        res = solver.solve(cpt.RadiationProblem(body=body, radiating_dof=d, rho=rho, **kwargs), keep_details=False)
        for j, e in enumerate(dofs):
            A[j, i] = float(res.added_mass[e])  # force in dof j from motion of dof i
    return A


def matrix_report(A):
    """The symmetrised matrix with its relative asymmetry and eigenvalues."""
    A = np.asarray(A)
    scale = max(float(np.abs(A).max()), 1e-300)
    asym = float(np.abs(A - A.T).max()) / scale
    S = 0.5 * (A + A.T)
    eig = np.linalg.eigvalsh(S)
    return S, {"relative_asymmetry": asym, "eigenvalues": eig.tolist(),
               "positive_definite": bool(eig.min() > 1e-9 * scale),
               "positive_semidefinite": bool(eig.min() >= -1e-9 * scale)}


def richardson(values, panels):
    """Per entry: the spread over the levels and, where the last three change
    monotonically, the Richardson limit with the observed order (h ~ panels^-1/2)."""
    vals = np.array(values)
    h = np.array(panels, dtype=float) ** -0.5
    spread = vals.max(axis=0) - vals.min(axis=0)
    est = np.full(vals.shape[1:], np.nan)
    order = np.full(vals.shape[1:], np.nan)
    if len(vals) >= 3:
        f1, f2, f3 = vals[-3], vals[-2], vals[-1]
        h1, h2, h3 = h[-3], h[-2], h[-1]
        for idx in np.ndindex(f1.shape):
            d1, d2 = f1[idx] - f2[idx], f2[idx] - f3[idx]
            scale = max(abs(f3[idx]), 1e-300)
            if abs(d2) < 1e-12 * scale and abs(d1) < 1e-12 * scale:
                est[idx], order[idx] = f3[idx], np.nan
                continue
            if d1 * d2 <= 0:
                continue
            target = d1 / d2

            def g(p):
                return (h1 ** p - h2 ** p) / (h2 ** p - h3 ** p) - target
            lo, hi = 0.2, 6.0
            if g(lo) * g(hi) > 0:
                continue
            for _ in range(80):
                mid = 0.5 * (lo + hi)
                if g(lo) * g(mid) <= 0:
                    hi = mid
                else:
                    lo = mid
            p = 0.5 * (lo + hi)
            c = d2 / (h2 ** p - h3 ** p)
            est[idx], order[idx] = f3[idx] - c * h3 ** p, p
    return spread, est, order


# ----------------------------------------------------------------------------- bodies

def mesh_surface(path, scale, max_panels):
    V, F = read_mesh(path, scale)
    check_mesh(V, F, path)
    levels = []
    while len(F) <= max_panels:
        levels.append((V, F))
        if len(F) * 4 > max_panels:
            break
        V, F = subdivide(V, F)
    if not levels:
        raise InputError(f"{path}: {len(F)} panels, more than --max-panels {max_panels}")
    return levels[-3:]


def primitive_mesh(kind, size, h, mesh_data=None):
    if kind == "sphere":
        n = max(3, int(math.ceil(math.pi * size[0] / (2 * h))))
        return ellipsoid_mesh(size[0], size[0], size[0], n)
    if kind == "ellipsoid":
        n = max(3, int(math.ceil(math.pi * max(size[:3]) / (2 * h))))
        return ellipsoid_mesh(*size[:3], n)
    if kind == "box":
        return box_mesh(*size[:3], h)
    if kind == "cylinder":
        return cylinder_mesh(size[0], size[1], h)
    if kind == "capsule":
        return capsule_mesh(size[0], size[1], h)
    if kind == "mesh":
        V, F = mesh_data
        while True:
            _, _, A = face_arrays(V, F)
            if math.sqrt(A.max() * 2) <= 1.5 * h or len(F) > PANEL_LIMIT:
                return V, F
            V, F = subdivide(V, F)
    raise InputError(f"geom type {kind} cannot be meshed")


def inside_primitive(kind, size, P, mesh_data=None, pad=0.0):
    """Which points (geom frame) are strictly inside the geom (grown by pad)."""
    if pad and kind != "mesh":
        size = [x + pad for x in size[:3]]
    if kind == "sphere":
        return np.einsum("ij,ij->i", P, P) < size[0] ** 2
    if kind == "ellipsoid":
        return ((P / np.array(size[:3])) ** 2).sum(axis=1) < 1
    if kind == "box":
        return np.all(np.abs(P) < np.array(size[:3]), axis=1)
    if kind == "cylinder":
        return (P[:, 0] ** 2 + P[:, 1] ** 2 < size[0] ** 2) & (np.abs(P[:, 2]) < size[1])
    if kind == "capsule":
        z = np.clip(P[:, 2], -size[1], size[1])
        return P[:, 0] ** 2 + P[:, 1] ** 2 + (P[:, 2] - z) ** 2 < size[0] ** 2
    if kind == "mesh":
        V, F = mesh_data
        T = triangles(V, F)
        wn = np.zeros(len(P))
        for t in T:  # generalised winding number (van Oosterom and Strackee's solid angle)
            a, b, c = t[0] - P, t[1] - P, t[2] - P
            la, lb, lc = (np.linalg.norm(x, axis=1) for x in (a, b, c))
            num = np.einsum("ij,ij->i", a, np.cross(b, c))
            den = la * lb * lc + np.einsum("ij,ij->i", a, b) * lc + np.einsum("ij,ij->i", b, c) * la \
                + np.einsum("ij,ij->i", c, a) * lb
            wn += 2 * np.arctan2(num, den)
        return wn / (4 * np.pi) > 0.5
    return np.zeros(len(P), dtype=bool)


def quat_to_mat(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def union_surface(geoms, h):
    """Panels of every geom (body frame) less those inside another geom: a panel of geom i
    goes when its centre moved 1e-6 L outward lies inside geom j (j != i: the overlap and
    faces touching another geom), or when it lies on geom j's surface facing the same way
    (j < i: coplanar duplicates keep the first geom's; a panel whose centre is on the edge
    of geom j's face goes too, so coplanar panels never overlap: where the two meshes' panel
    edges do not line up, the seam has gaps of up to half a panel, which close with refinement)."""
    meshes = []
    for g in geoms:
        V, F = primitive_mesh(g["type"], g["size"], h, g.get("mesh"))
        R, p = g["R"], g["pos"]
        meshes.append((V @ R.T + p, F))
    allV = np.vstack([m[0] for m in meshes])
    L = float(np.ptp(allV, axis=0).max())
    eps = 1e-6 * L
    outV, outF, offset = [], [], 0
    removed = 0
    for i, (V, F) in enumerate(meshes):
        C, N, _ = face_arrays(V, F)
        keep = np.ones(len(F), dtype=bool)
        for j, g in enumerate(geoms):
            if j == i:
                continue
            R, p = g["R"], g["pos"]
            out_pt = (C + eps * N - p) @ R
            in_pt = (C - eps * N - p) @ R
            a = inside_primitive(g["type"], g["size"], out_pt, g.get("mesh"))
            keep &= ~a
            if j < i:  # on geom j's surface (its face's edge included): no coplanar overlap
                b = inside_primitive(g["type"], g["size"], in_pt, g.get("mesh"), pad=eps)
                keep &= ~(b & ~a)
        removed += int((~keep).sum())
        used = sorted({v for k, f in enumerate(F) if keep[k] for v in f})
        remap = {v: offset + n for n, v in enumerate(used)}
        outV.append(V[used])
        outF += [[remap[v] for v in f] for k, f in enumerate(F) if keep[k]]
        offset += len(used)
    return np.vstack(outV), outF, removed


def mjcf_body(path, body_name):
    """The geoms of `body_name` in its body frame, from the compiled model."""
    try:
        import nereid
        model, _ = nereid.load(path)
    except ImportError:
        import mujoco
        lib = os.environ.get("NEREID_PLUGIN_LIBRARY")
        if lib:
            mujoco.mj_loadPluginLibrary(lib)
        try:
            model = mujoco.MjModel.from_xml_path(path)
        except Exception as e:
            raise InputError(f"{path}: cannot load the model: {e}")
    except ValueError as e:
        raise InputError(str(e))
    import mujoco
    names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(model.nbody)]
    if body_name is None:
        candidates = [b for b in range(1, model.nbody) if model.body_parentid[b] == 0 and model.body_geomnum[b] > 0]
        if len(candidates) != 1:
            raise InputError(f"{path}: --body is needed: the model's top-level bodies with geoms are "
                             f"{[names[b] for b in candidates]}")
        bid = candidates[0]
    else:
        if body_name not in names:
            raise InputError(f"{path}: body '{body_name}' does not exist (bodies: "
                             f"{', '.join(n for n in names[1:] if n)})")
        bid = names.index(body_name)
    geoms = []
    types = {int(mujoco.mjtGeom.mjGEOM_SPHERE): "sphere", int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): "ellipsoid",
             int(mujoco.mjtGeom.mjGEOM_BOX): "box", int(mujoco.mjtGeom.mjGEOM_CYLINDER): "cylinder",
             int(mujoco.mjtGeom.mjGEOM_CAPSULE): "capsule", int(mujoco.mjtGeom.mjGEOM_MESH): "mesh"}
    for gid in range(model.ngeom):
        if model.geom_bodyid[gid] != bid:
            continue
        t = int(model.geom_type[gid])
        if t not in types:
            gname = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, gid) or f"#{gid}"
            raise InputError(f"{path}: body '{names[bid]}': geom '{gname}' of type {mujoco.mjtGeom(t).name} "
                             "cannot be meshed (box, sphere, capsule, cylinder, ellipsoid and mesh can)")
        g = {"type": types[t], "size": model.geom_size[gid].tolist(), "pos": model.geom_pos[gid].copy(),
             "R": quat_to_mat(model.geom_quat[gid])}
        if g["type"] == "mesh":
            mid = model.geom_dataid[gid]
            v0, nv = model.mesh_vertadr[mid], model.mesh_vertnum[mid]
            f0, nf = model.mesh_faceadr[mid], model.mesh_facenum[mid]
            V = model.mesh_vert[v0:v0 + nv].astype(float)
            F = model.mesh_face[f0:f0 + nf].tolist()
            V, F = merge_vertices(V, F)
            check_mesh(V, F, f"{path}: body '{names[bid]}' mesh geom #{gid}")
            g["mesh"] = (V, F)
        geoms.append(g)
    if not geoms:
        raise InputError(f"{path}: body '{names[bid]}' has no geoms to mesh")
    return names[bid], geoms


def mjcf_levels(path, geoms, max_panels):
    """Three panel sizes whose unions have about max_panels/4, /2 and max_panels panels
    (the count goes as 1/h^2: a few secant steps from one trial)."""
    allV = []
    for g in geoms:
        V, _ = primitive_mesh(g["type"], g["size"], 1e9, g.get("mesh"))
        allV.append(V @ g["R"].T + g["pos"])
    L = float(np.ptp(np.vstack(allV), axis=0).max())
    levels = []
    h = L / 4
    for target in (max_panels / 4, max_panels / 2, max_panels):
        best = None
        for _ in range(10):
            V, F, _ = union_surface(geoms, h)
            n = len(F)
            if n <= max_panels and (best is None or abs(n - target) < abs(len(best[1]) - target)):
                best = (V, F)
            if abs(n - target) < 0.1 * target and n <= max_panels:
                break
            h *= math.sqrt(n / target) * (1.03 if n > target else 0.99)
        if best is None:
            raise InputError(f"{path}: the body's geoms need more than --max-panels {max_panels} panels "
                             "at their coarsest meshing")
        if not levels or len(best[1]) > len(levels[-1][1]):
            levels.append(best)
    return levels


def parse_ref(text):
    t = text.strip().lower()
    if t in ("cb", "cg", "origin"):
        return t
    try:
        parts = text.split(",")
        if not all(is_number(x) for x in parts):  # ASCII digits: float() would take '\u0661'
            raise ValueError
        v = [float(x) for x in parts]
        if len(v) != 3 or not all(math.isfinite(x) for x in v):
            raise ValueError
        return np.array(v)
    except ValueError:
        raise InputError(f"--ref '{text}': expected x,y,z (m), cb, cg or origin")


# ----------------------------------------------------------------------------- damping guess

def drag_guess(V, F, rho, ref):
    """Quadratic drag coefficients [X|u|u ... N|r|r] (positive magnitudes, body frame of the
    mesh) and the areas and Cd used. Projected area = half the absolute normal-projected
    panel area (exact for a convex body, an upper bound otherwise)."""
    C, N, A = face_arrays(V, F)
    ext = np.ptp(V, axis=0)
    out, areas, cds = [], [], []
    for k in range(3):
        Ap = 0.5 * float(np.sum(A * np.abs(N[:, k])))
        D = math.sqrt(4 * Ap / math.pi)
        cd = float(np.interp(ext[k] / D, WHITE_T73_L_OVER_D, WHITE_T73_CD))
        out.append(0.5 * rho * cd * Ap)
        areas.append(Ap)
        cds.append(cd)
    cd_mean = float(np.mean(cds))
    r = C - np.asarray(ref)
    for k in range(3):
        e = np.zeros(3)
        e[k] = 1
        s = np.einsum("ij,ij->i", np.cross(e, r), N)
        out.append(0.25 * rho * cd_mean * float(np.sum(A * np.abs(s) ** 3)))
    return np.array(out), areas, cds


# ----------------------------------------------------------------------------- the model

def write_binary_stl(path, V, F):
    T = triangles(V, F)
    n = np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0])
    n /= np.maximum(np.linalg.norm(n, axis=1)[:, None], 1e-300)
    rec = np.zeros(len(T), dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]))
    rec["n"], rec["v"] = n, T
    try:
        with open(path, "wb") as f:
            f.write(b"nereid coefficients".ljust(80, b" "))
            f.write(struct.pack("<I", len(T)))
            f.write(rec.tobytes())
    except OSError as e:
        raise InputError(f"{path}: cannot write: {e.strerror}")


def _fmt(values):
    """Six significant digits; round-off below 1e-9 of the largest value written as 0."""
    v = np.asarray(values, dtype=float).reshape(-1)
    v = np.where(np.abs(v) < 1e-9 * max(float(np.abs(v).max()), 1e-300), 0.0, v)
    return " ".join(f"{x:.6g}" for x in v + 0.0)


def _instances(root, plugin):
    for p in root.iter("plugin"):
        if p.get("plugin") == plugin:
            for inst in p.findall("instance"):
                yield p, inst


def _config(inst):
    return {c.get("key"): c for c in inst.findall("config")}


def _set_config(inst, key, value):
    """Sets the key's value; the comments just before an existing key (they described the
    old value) go."""
    c = _config(inst).get(key)
    if c is None:
        c = ET.SubElement(inst, "config", {"key": key})
    else:
        children = list(inst)
        k = children.index(c) - 1
        while k >= 0 and children[k].tag is ET.Comment:
            inst.remove(children[k])
            k -= 1
    c.set("value", value)


def _instance_for(root, plugin, body):
    attached = {}
    for b in root.iter("body"):
        for p in b.findall("plugin"):
            if p.get("instance"):
                attached[p.get("instance")] = b.get("name")
    for parent, inst in _instances(root, plugin):
        cfg = _config(inst)
        name = cfg["body"].get("value") if "body" in cfg else attached.get(inst.get("name"))
        if name == body:
            return parent, inst
    return None, None


def _relocate_files(root, src_dir, out_dir):
    """Relative asset paths of the copy still name the original files."""
    comp = root.find("compiler")
    for key in ("meshdir", "texturedir", "assetdir"):
        if comp is not None and comp.get(key) and not os.path.isabs(comp.get(key)):
            comp.set(key, os.path.relpath(os.path.join(src_dir, comp.get(key)), out_dir))
    has_dir = comp is not None and any(comp.get(k) for k in ("meshdir", "texturedir", "assetdir"))
    for tag in ("mesh", "texture", "hfield", "skin", "include", "model"):
        for el in root.iter(tag):
            f = el.get("file")
            if f and not os.path.isabs(f) and (tag in ("include", "model") or not has_dir):
                el.set("file", os.path.relpath(os.path.join(src_dir, f), out_dir))


def write_model(args, result, out_path, body_name, geometry_source):
    """A copy of the model (or, for a mesh, a new one-body model) whose nereid.hydrodynamics
    and nereid.buoyancy instances carry the computed values, with a comment naming the source."""
    A_flu = np.array(result["added_mass_mujoco"])  # about the reference point, FLU
    ref_flu = np.array(result["reference_point_mujoco"])
    cb_flu = np.array(result["center_of_buoyancy_mujoco"])
    vol = result["volume"]
    dq = np.array(result["damping_guess"]["quadratic_damping"])
    stamp = (f" added mass, volume and centre of buoyancy: nereid coefficients {geometry_source} "
             f"({result['panels']} panels, Capytaine {result['solver']['capytaine']}, infinite frequency, "
             + ("no free surface" if args.submergence is None else f"free surface {args.submergence:g} m above the "
              "reference point") + f", rho {args.rho:g}) ")
    out_dir = os.path.dirname(os.path.abspath(out_path))
    if args.input.lower().endswith(".xml"):
        parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
        tree = ET.parse(args.input, parser)
        root = tree.getroot()
        _relocate_files(root, os.path.dirname(os.path.abspath(args.input)), out_dir)
    else:
        # MuJoCo reads binary STL: the input surface (scaled, body frame) beside the model
        stl = os.path.splitext(out_path)[0] + "_hull.stl"
        V, F = args.input_surface
        write_binary_stl(stl, V, F)
        root = ET.fromstring(_new_model_xml(args, result, os.path.basename(stl)),
                             parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
        tree = ET.ElementTree(root)
    ext = root.find("extension")
    if ext is None:
        ext = ET.SubElement(root, "extension")
    for plugin in ("nereid.hydrodynamics", "nereid.buoyancy"):
        parent, inst = _instance_for(root, plugin, body_name)
        created = inst is None
        if created:
            parent = next((p for p in ext.findall("plugin") if p.get("plugin") == plugin), None)
            if parent is None:
                parent = ET.SubElement(ext, "plugin", {"plugin": plugin})
            inst = ET.SubElement(parent, "instance", {"name": f"{body_name}_{plugin.split('.')[1]}"})
            _set_config(inst, "body", body_name)
            _set_config(inst, "frame", "frd")
        cfg = _config(inst)
        frame = cfg["frame"].get("value") if "frame" in cfg else "frd"
        conv = (lambda x: frd_to_flu3(x)) if frame == "frd" else (lambda x: np.asarray(x, float))
        conv6 = (lambda M: frd_to_flu6(M)) if frame == "frd" else (lambda M: np.asarray(M, float))
        idx = list(parent).index(inst)
        if plugin == "nereid.hydrodynamics":
            r_inst = conv(np.array([float(x) for x in cfg["reference_point"].get("value").split()])
                          if "reference_point" in cfg else np.zeros(3))
            # the instance's reference point (FLU), so its damping keeps its point
            A_inst = move_reference(A_flu, ref_flu - r_inst)
            A_inst = 0.5 * (A_inst + A_inst.T)
            _set_config(inst, "added_mass", _fmt(conv6(A_inst)))
            text = stamp + "in this instance's frame about its reference point."
            if created or args.damping == "guess":
                _set_config(inst, "linear_damping", "0 0 0 0 0 0")
                _set_config(inst, "quadratic_damping", _fmt(dq))
                text += " Damping: a FIRST GUESS, not measured: " + DAMPING_SOURCE + "."
            parent.insert(idx, ET.Comment(text))
        else:
            _set_config(inst, "volume", f"{vol:.6g}")
            _set_config(inst, "center_of_buoyancy", _fmt(conv(cb_flu)))
            parent.insert(idx, ET.Comment(stamp))
    ET.indent(tree, "  ")
    tmp = out_path + ".tmp"
    try:
        tree.write(tmp, encoding="unicode", xml_declaration=False)
        os.replace(tmp, out_path)
    except OSError as e:
        if os.path.isfile(tmp):
            os.remove(tmp)
        raise InputError(f"{out_path} (--write-model): cannot write: {e.strerror}")


def _new_model_xml(args, result, mesh_file):
    """A one-body model flying the mesh: free joint, the mesh as its geom, a uniform solid's
    inertia of mass --mass (default rho V: neutrally buoyant) with its centre of gravity
    --cg-drop below the centre of buoyancy (a righting moment)."""
    vol = result["volume"]
    mass = args.mass if args.mass else args.rho * vol
    cb = np.array(result["center_of_buoyancy_mujoco"])
    I_origin = np.array(result["unit_density_inertia_origin_mujoco"]) * mass / vol
    I_cb = I_origin - mass * (np.dot(cb, cb) * np.eye(3) - np.outer(cb, cb))
    cg = cb - np.array([0, 0, args.cg_drop])
    cg = np.where(np.abs(cg) < 1e-12, 0.0, cg)
    fullinertia = " ".join(f"{x:.6g}" for x in np.where(np.abs(I_cb) < 1e-9 * np.abs(I_cb).max(), 0.0, I_cb)[
        [0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]] + 0.0)
    return f"""<mujoco model="{args.body or 'vehicle'}">
  <!-- Written by nereid coefficients from {os.path.basename(args.input)}: a free body of mass
       {mass:.6g} kg (uniform solid; CG {args.cg_drop:g} m below the CB). Set the real mass,
       centre of gravity and inertia of your vehicle here. -->
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <asset>
    <mesh name="hull" file="{mesh_file}"/>
  </asset>
  <worldbody>
    <body name="{args.body or 'vehicle'}" pos="0 0 -2" simple="false">
      <freejoint/>
      <inertial pos="{_fmt(cg)}" mass="{mass:.6g}" fullinertia="{fullinertia}"/>
      <geom type="mesh" mesh="hull" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <extension/>
  <keyframe>
    <key qpos="0 0 -2 1 0 0 0"/>
  </keyframe>
</mujoco>
"""


# ----------------------------------------------------------------------------- main

def check_solve_args(args):
    """--max-panels and --rho within their ranges, else InputError."""
    if args.max_panels > PANEL_LIMIT or args.max_panels < 20:
        raise InputError(f"--max-panels {args.max_panels}: between 20 and {PANEL_LIMIT}")
    if not (math.isfinite(args.rho) and 1 <= args.rho <= 2000):
        raise InputError(f"--rho {args.rho}: expected a water density in kg/m^3 (1 to 2000)")


def mjcf_input_levels(args):
    """An MJCF body's refinement levels: (body name, levels, source, its CG in the body
    frame from the loaded model, or None when the model does not load)."""
    inp = args.input
    if not os.path.isfile(inp):
        raise InputError(f"{inp}: no such file")
    body_name, geoms = mjcf_body(inp, args.body)
    levels = mjcf_levels(inp, geoms, args.max_panels)
    source = f"{inp} body '{body_name}' ({len(geoms)} geoms)"
    try:
        import nereid
        import mujoco
        model, _ = nereid.load(inp)
        bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body_name)
        cg_flu = model.body_ipos[bid].copy()
    except Exception:
        cg_flu = None
    return body_name, levels, source, cg_flu


def mesh_input_levels(args):
    """A mesh file's refinement levels in the body frame (FLU), scaled to metres; records
    the scale used and the coarsest level on args."""
    inp = args.input
    scale = args.scale * {"m": 1.0, "cm": 0.01, "mm": 0.001}[args.units]
    args.scale_used = scale
    levels = mesh_surface(inp, scale, args.max_panels)
    if args.frame == "frd":
        s = np.array([1.0, -1.0, -1.0])
        levels = [(V * s, F) for V, F in levels]  # a rotation: orientation is kept
    args.input_surface = levels[0]
    return levels


def reference_point(args, cb, cg_flu):
    """The --ref point in the body frame (FLU): cb, origin, cg (the centre of buoyancy when
    the CG is unknown) or x,y,z (FRD when --frame frd on a mesh)."""
    ref = parse_ref(args.ref)
    if isinstance(ref, str):
        ref = {"cb": cb, "origin": np.zeros(3), "cg": cg_flu if cg_flu is not None else cb}[ref]
    elif args.frame == "frd" and not args.input.lower().endswith(".xml"):
        ref = frd_to_flu3(ref)
    return ref


def solve_levels(levels, args, ref, log):
    """The added mass about `ref` at every level, logging each; (matrices, timings)."""
    results, timings = [], []
    for k, (V, F) in enumerate(levels):
        t0 = time.time()
        log(f"coefficients: level {k + 1}/{len(levels)}: {len(F)} panels ...", end="", flush=True)
        A = solve_added_mass(V, F, args.rho, ref, args.submergence)
        dt = time.time() - t0
        log(f" {dt:.1f} s")
        results.append(A)
        timings.append({"panels": len(F), "seconds": dt})
    return results, timings


# A diagonal term is numerically zero when it is below this fraction of its scale: the largest
# translational term for X Y Z, that times the body's length squared (L = volume^(1/3)) for
# K M N. A sphere's rotational terms (zero in potential flow) come out at about 1e-5 of m L^2,
# a vehicle's smallest real ones at 1e-2 or more; the relative change of such a term between
# refinements is the solver's noise, not convergence.
NUMERICALLY_ZERO = 1e-3


def negligible_terms(diag, volume):
    """Indices of the diagonal terms (X Y Z K M N) that are numerically zero (NUMERICALLY_ZERO)."""
    m = float(np.max(np.abs(diag[:3])))
    scale = [m] * 3 + [m * max(volume, 0.0) ** (2.0 / 3.0)] * 3
    return [i for i in range(6) if abs(diag[i]) < NUMERICALLY_ZERO * scale[i]]


def convergence_report(results, panels, timings, A_frd, volume):
    """The result's "convergence" entry: every level's symmetrised matrix (FRD), the spread,
    Richardson estimates, the diagonal's relative change at the last refinement, and the
    largest of those changes over the terms that are not numerically zero."""
    conv_vals = [frd_to_flu6(0.5 * (A + A.T)) for A in results]
    spread, est, order = richardson(conv_vals, panels)
    diag = np.diag(A_frd)
    scale_diag = np.maximum(np.abs(diag), 1e-300)
    rel_change = (np.abs(np.diag(conv_vals[-1]) - np.diag(conv_vals[-2])) / scale_diag).tolist() \
        if len(conv_vals) >= 2 else None
    zero = negligible_terms(diag, volume)
    counted = [c for i, c in enumerate(rel_change or []) if i not in zero]
    return {
        "panels": panels,
        "added_mass_frd": [c.tolist() for c in [frd_to_flu6(v) for v in conv_vals]],
        "spread": frd_to_flu6(spread).tolist(),
        "richardson": [[None if not math.isfinite(x) else x for x in row] for row in frd_to_flu6(est).tolist()],
        "observed_order": [[None if not math.isfinite(x) else x for x in row] for row in order.tolist()],
        "diagonal_relative_change_last_level": rel_change,
        "numerically_zero_terms": [AXES[i] for i in zero],
        "largest_relative_change_last_level": max(counted) if counted else None,
        "timing": timings,
    }


def compute(args, log=print):
    """Everything but the writing: returns the result dict."""
    t_start = time.time()
    check_solve_args(args)
    body_name = args.body
    cg_flu = None
    inp = args.input
    if inp.lower().endswith(".xml"):
        body_name, levels, source, cg_flu = mjcf_input_levels(args)
    else:
        levels = mesh_input_levels(args)
        source = inp
    # the finest level's geometry
    Vf, Ff = levels[-1]
    vol, cb, inertia = volume_properties(Vf, Ff)
    cb = np.where(np.abs(cb) < 1e-12 * float(np.ptp(Vf, axis=0).max()), 0.0, cb) + 0.0
    if vol <= 0:
        raise InputError(f"{source}: the meshed surface encloses no positive volume ({vol:.3g} m^3)")
    ref = reference_point(args, cb, cg_flu)
    results, timings = solve_levels(levels, args, ref, log)
    A_raw = results[-1]
    A_flu, report = matrix_report(A_raw)
    panels = [len(F) for _, F in levels]
    A_frd = frd_to_flu6(A_flu)
    convergence = convergence_report(results, panels, timings, A_frd, vol)
    dq, areas, cds = drag_guess(Vf, Ff, args.rho, ref)
    result = {
        "source": source,
        "body": body_name,
        "units": "SI: kg, kg m, kg m^2; m; m^3",
        "frame": "SNAME/FRD: x forward, y starboard, z down; order X Y Z K M N (surge sway heave roll pitch yaw)",
        "added_mass": A_frd.tolist(),
        "added_mass_mujoco": A_flu.tolist(),
        "reference_point": (frd_to_flu3(ref) + 0.0).tolist(),
        "reference_point_mujoco": (np.asarray(ref, dtype=float) + 0.0).tolist(),
        "volume": vol,
        "center_of_buoyancy": (frd_to_flu3(cb) + 0.0).tolist(),
        "center_of_buoyancy_mujoco": cb.tolist(),
        "unit_density_inertia_origin_mujoco": inertia.tolist(),
        "panels": len(Ff),
        "density": args.rho,
        "free_surface": None if args.submergence is None else
        {"submergence": args.submergence, "boundary_condition": "potential zero (infinite frequency)"},
        "matrix": {"relative_asymmetry_before_symmetrising": report["relative_asymmetry"],
                   "eigenvalues": report["eigenvalues"], "positive_definite": report["positive_definite"]},
        "convergence": convergence,
        "damping": "potential flow gives no damping: identify it from measurements "
                   "(docs/own_vehicle.md part 2)",
        "damping_guess": {"quadratic_damping": dq.tolist(), "projected_area": areas, "drag_coefficient": cds,
                          "label": "FIRST GUESS, not measured", "method": DAMPING_SOURCE},
        "solver": {"capytaine": __import__("capytaine").__version__, "method": "direct BIE, constant panels",
                   "frequency": "infinite"},
        "elapsed_s": time.time() - t_start,
    }
    return result


def summary(result):
    d = np.diag(np.array(result["added_mass"]))
    c = result["convergence"]
    worst = c["largest_relative_change_last_level"]
    worst = float("nan") if worst is None else worst
    zero = c["numerically_zero_terms"]
    left_out = f" ({' '.join(zero)} numerically zero, left out)" if zero and math.isfinite(worst) else ""
    lines = [f"added mass about {np.round(result['reference_point'], 4).tolist()} (SNAME/FRD, diagonal "
             f"X Y Z K M N): " + " ".join(f"{x:.4g}" for x in d),
             f"volume {result['volume']:.6g} m^3, centre of buoyancy {np.round(result['center_of_buoyancy'], 4).tolist()} "
             f"(FRD), {result['panels']} panels",
             f"convergence: panels {c['panels']}, largest diagonal change at the last refinement {100 * worst:.2f} %"
             f"{left_out}",
             f"matrix: asymmetry {result['matrix']['relative_asymmetry_before_symmetrising']:.2g} (symmetrised), "
             f"positive definite: {'yes' if result['matrix']['positive_definite'] else 'NO'}",
             "damping: " + result["damping"] + "; first guess (quadratic, "
             + "X Y Z K M N): " + " ".join(f"{x:.3g}" for x in result["damping_guess"]["quadratic_damping"])
             + " -- " + result["damping_guess"]["label"]]
    if len(c["panels"]) < 3:
        lines.append(f"warning: only {len(c['panels'])} refinement(s) fit under --max-panels (each subdivision "
                     "quadruples the panels): no convergence estimate; give a coarser mesh or a larger --max-panels")
    return "\n".join(lines)




def build_parser():
    p = argparse.ArgumentParser(prog="nereid coefficients", description=__doc__.split("\n")[0])
    p.add_argument("input")
    p.add_argument("--body")
    p.add_argument("--ref", default="cb")
    p.add_argument("--rho", type=number, default=1000.0)
    p.add_argument("--out")
    p.add_argument("--write-model")
    p.add_argument("--scale", type=number, default=1.0)
    p.add_argument("--units", choices=["m", "cm", "mm"], default="m")
    p.add_argument("--frame", choices=["flu", "frd"], default="flu")
    p.add_argument("--max-panels", type=integer, default=DEFAULT_MAX_PANELS)
    p.add_argument("--submergence", type=number)
    p.add_argument("--damping", choices=["keep", "guess"], default="keep")
    p.add_argument("--mass", type=number)
    p.add_argument("--cg-drop", type=number, default=0.0)
    return p


class _ArgError(Exception):
    pass


def main(argv=None):
    parser = build_parser()
    parser.error = lambda msg: (_ for _ in ()).throw(_ArgError(msg))
    try:
        args = parser.parse_args(argv)
        args.scale_used = args.scale
        if not (math.isfinite(args.scale) and args.scale > 0):
            raise InputError(f"--scale {args.scale}: expected a positive number")
        if args.submergence is not None and not (math.isfinite(args.submergence) and 0 < args.submergence <= 1e4):
            raise InputError(f"--submergence {args.submergence}: expected a depth in m, above 0 and at most 1e4")
        if args.mass is not None and not (math.isfinite(args.mass) and 0 < args.mass <= 1e7):
            raise InputError(f"--mass {args.mass}: expected a mass in kg, above 0 and at most 1e7")
        if not (math.isfinite(args.cg_drop) and abs(args.cg_drop) <= 100):
            raise InputError(f"--cg-drop {args.cg_drop}: expected a distance in m, at most 100 either way")
        if args.scale > 1e6:
            raise InputError(f"--scale {args.scale}: at most 1e6")
        for flag, path in (("--out", args.out), ("--write-model", args.write_model)):
            if path is not None and not path:
                raise InputError(f"{flag}: an empty path")
            if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
                raise InputError(f"{path} ({flag}): the folder does not exist")
            if path and os.path.isdir(path):
                raise InputError(f"{path} ({flag}): is a folder")
            if path and not os.access(os.path.dirname(os.path.abspath(path)), os.W_OK):
                raise InputError(f"{path} ({flag}): cannot write into the folder")
        if args.write_model and os.path.abspath(args.write_model) == os.path.abspath(args.input):
            raise InputError(f"{args.write_model} (--write-model): would overwrite the input")
        result = compute(args, log=lambda *a, **k: print(*a, **{**k, "file": sys.stderr}))
        print(summary(result))
        written = []
        try:
            if args.write_model:
                write_model(args, result, args.write_model, result["body"] or args.body or "vehicle", args.input)
                written.append(args.write_model)
            if args.out:
                try:
                    with open(args.out + ".tmp", "w") as f:
                        json.dump(result, f, indent=1)
                    os.replace(args.out + ".tmp", args.out)
                except OSError as e:
                    raise InputError(f"{args.out} (--out): cannot write: {e.strerror}")
                written.append(args.out)
        except InputError:
            for path in written + [args.out + ".tmp" if args.out else None]:
                if path and os.path.isfile(path):
                    os.remove(path)
            raise
        for path in written:
            print(f"wrote {path}")
        return 0
    except (InputError, _ArgError) as e:
        words = [w if len(w) <= 200 else w[:200] + f"... ({len(w)} characters)" for w in str(e).split(" ")]
        print(f"nereid: error: coefficients: {' '.join(words)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
