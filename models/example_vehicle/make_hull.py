#!/usr/bin/env python3
"""Writes hull.stl: the example vehicle of docs/own_vehicle.md, an ROV-like block 0.50 m
long, 0.36 m wide and 0.26 m high with 0.06 m chamfers along its four long edges (an
octagonal prism along x, capped at both ends). Coordinates in metres, MuJoCo body frame
(x forward, y port, z up), origin at the block's centre. Binary STL, outward normals.

    python3 models/example_vehicle/make_hull.py [OUT.stl]
"""
import os
import struct
import sys

import numpy as np

LENGTH, WIDTH, HEIGHT, CHAMFER = 0.50, 0.36, 0.26, 0.06


def hull():
    w, h, c = WIDTH / 2, HEIGHT / 2, CHAMFER
    section = [(w, h - c), (w - c, h), (-w + c, h), (-w, h - c), (-w, -h + c), (-w + c, -h), (w - c, -h),
               (w, -h + c)]  # (y, z) counter-clockwise seen from +x
    tris = []
    for x0, x1 in ((-LENGTH / 2, LENGTH / 2),):
        for k in range(len(section)):
            (y0, z0), (y1, z1) = section[k], section[(k + 1) % len(section)]
            a, b = (x0, y0, z0), (x0, y1, z1)
            cc, d = (x1, y1, z1), (x1, y0, z0)
            tris += [(a, b, cc), (a, cc, d)]
        for x, sign in ((x1, 1), (x0, -1)):  # caps: fans from the centre
            for k in range(len(section)):
                p, q = section[k], section[(k + 1) % len(section)]
                t = ((x, 0.0, 0.0), (x, *p), (x, *q))
                tris.append(t if sign > 0 else (t[0], t[2], t[1]))
    return np.array(tris, dtype=float)


def write(path):
    T = hull()
    n = np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0])
    n /= np.linalg.norm(n, axis=1)[:, None]
    with open(path, "wb") as f:
        f.write(b"Nereid example vehicle hull (models/example_vehicle/make_hull.py)".ljust(80, b" "))
        f.write(struct.pack("<I", len(T)))
        for k in range(len(T)):
            f.write(struct.pack("<12fH", *n[k], *T[k].reshape(-1), 0))


if __name__ == "__main__":
    write(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "hull.stl"))
