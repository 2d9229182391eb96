"""Scale-out on Ray (scripts/ray_rollouts.py), on a local one-node cluster: the actors'
rollouts equal the same rollouts stepped locally. Skipped where Ray is not installed."""
import os
import sys

import numpy as np
import pytest

ray = pytest.importorskip("ray")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))

import nereid  # noqa: E402
import ray_rollouts  # noqa: E402


def test_ray_actors_match_local_rollouts():
    try:
        results = ray_rollouts.run(actors=2, envs=4, steps=60, policy="scripted", seed=7)
    finally:
        ray.shutdown()
    for r in results:
        env = nereid.BatchEnv("BlueROV2StationKeeping-v0", 4, 1, nereid.model_dir())
        env.reset(r["seed"])
        totals = np.zeros(4)
        for _ in range(60):
            env.step(env.scripted_actions())
            totals += env.rewards
        np.testing.assert_array_equal(totals, np.asarray(r["returns"]))
        assert r["env_steps_per_s"] > 0
