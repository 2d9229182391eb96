#!/usr/bin/env python3
"""Scale-out on Ray: rollouts of a Nereid task spread over Ray actors, each stepping a C++
batch (nereid.BatchEnv). Locally this starts a one-node Ray cluster; on a cluster, run it
with RAY_ADDRESS set. Returns per-actor returns and env-steps per second.

Usage: ray_rollouts.py [--task BlueROV2StationKeeping-v0] [--actors 2] [--envs 64]
                       [--steps 500] [--policy scripted|random]
"""
import argparse
import json
import time

import numpy as np
import ray


@ray.remote(num_cpus=1)
class RolloutWorker:
    def __init__(self, task, num_envs):
        import nereid

        self.env = nereid.BatchEnv(task, num_envs, 1, nereid.model_dir())

    def rollout(self, seed, steps, policy):
        """Steps the batch `steps` times; returns the summed reward per environment."""
        env = self.env
        env.reset(seed)
        rng = np.random.default_rng(seed)
        totals = np.zeros(env.num_envs)
        start = time.perf_counter()
        for _ in range(steps):
            if policy == "scripted":
                actions = env.scripted_actions()
            else:
                actions = rng.uniform(-1, 1, (env.num_envs, env.action_size)).astype(np.float32)
            env.step(actions)
            totals += env.rewards
        rate = steps * env.num_envs / (time.perf_counter() - start)
        return {"seed": seed, "returns": totals.tolist(), "env_steps_per_s": rate}


def run(task="BlueROV2StationKeeping-v0", actors=2, envs=64, steps=500, policy="scripted", seed=0):
    ray.init(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    workers = [RolloutWorker.remote(task, envs) for _ in range(actors)]
    results = ray.get([w.rollout.remote(seed + i, steps, policy) for i, w in enumerate(workers)])
    return results


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--task", default="BlueROV2StationKeeping-v0")
    p.add_argument("--actors", type=int, default=2)
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--policy", default="scripted", choices=["scripted", "random"])
    a = p.parse_args()
    results = run(a.task, a.actors, a.envs, a.steps, a.policy)
    summary = {
        "mean_return": float(np.mean([np.mean(r["returns"]) for r in results])),
        "env_steps_per_s_total": float(sum(r["env_steps_per_s"] for r in results)),
        "actors": a.actors,
    }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
