#!/usr/bin/env python3
"""Env-steps per second through the Python vector environment (nereid.make_vector_env), for
batch sizes 1, 16, 256 at 1 and 2 threads, beside the C++ figures measured in the same run
(`nereid bench`), and the Python overhead at batch 256.

Usage: bench_python.py NEREID_BINARY [--out FILE.json] [--env-steps N]
"""
import argparse
import json
import subprocess
import tempfile
import time

import numpy as np

import nereid

TASK = "BlueROV2StationKeeping-v0"


def python_rate(batch, threads, env_steps):
    env = nereid.make_vector_env(TASK, batch, threads)
    env.reset(seed=1)
    actions = np.tile((0.3 * (np.arange(env.single_action_space.shape[0]) % 7) / 7 - 0.1)
                      .astype(np.float32), (batch, 1))
    steps = max(20, env_steps // batch)
    for _ in range(10):
        env.step(actions)
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(steps):
            env.step(actions)
        best = max(best, steps * batch / (time.perf_counter() - start))
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("nereid")
    p.add_argument("--out")
    p.add_argument("--env-steps", type=int, default=40000)
    a = p.parse_args()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([a.nereid, "bench", "--samples", "1", "--steps", "10", "--rl-steps",
                        str(a.env_steps), "--out", f.name], check=True, stdout=subprocess.DEVNULL)
        cpp = {c["name"]: c["env_steps_per_s"] for c in json.load(open(f.name))["cases"]
               if "env_steps_per_s" in c}
    rows = []
    for batch in (1, 16, 256):
        for threads in (1, 2):
            py = python_rate(batch, threads, a.env_steps)
            c = cpp[f"rl/{TASK}/batch{batch}/threads{threads}"]
            rows.append({"batch": batch, "threads": threads, "python_env_steps_per_s": py,
                         "cpp_env_steps_per_s": c, "python_overhead": 1 - py / c})
            print(f"batch {batch:4d} threads {threads}: python {py:10.0f} env-steps/s, "
                  f"C++ {c:10.0f}, overhead {100 * (1 - py / c):5.1f}%")
    report = {"task": TASK, "rows": rows}
    if a.out:
        json.dump(report, open(a.out, "w"), indent=2)


if __name__ == "__main__":
    main()
