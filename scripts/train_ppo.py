#!/usr/bin/env python3
"""Trains PPO (stable-baselines3, CPU) on a Nereid task through the C++ vector environment,
then compares it with the scripted baseline and a random policy.

Usage: train_ppo.py [--task BlueROV2StationKeeping-v0] [--steps 1000000] [--envs 16]
                    [--threads 2] [--out results/ppo]
"""
import argparse
import json
import os

import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import VecEnv

import nereid


class SB3VecEnv(VecEnv):
    """stable-baselines3's VecEnv interface over nereid's C++ batch (auto-reset inside)."""

    def __init__(self, task, num_envs, num_threads):
        self.venv = nereid.make_vector_env(task, num_envs, num_threads)
        super().__init__(num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._actions = None

    def reset(self):
        obs, _ = self.venv.reset(seed=int(np.random.randint(0, 2**31)))
        return obs.copy()

    def step_async(self, actions):
        self._actions = actions

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
        dones = terminated | truncated
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = info["final_obs"][i]
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs.copy(), rewards.copy(), dones.copy(), infos

    def close(self):
        pass

    def get_attr(self, name, indices=None):
        return [getattr(self.venv, name)] * self.num_envs

    def set_attr(self, name, value, indices=None):
        setattr(self.venv, name, value)

    def env_method(self, *args, **kwargs):
        raise NotImplementedError

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * self.num_envs


def evaluate(task, policy, episodes=10):
    env = nereid.NereidEnv(task)
    returns = []
    for k in range(episodes):
        obs, _ = env.reset(seed=10_000 + k)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(policy(env, obs))
            total += reward
            done = terminated or truncated
        returns.append(total)
    return float(np.mean(returns))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--task", default="BlueROV2StationKeeping-v0")
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--envs", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default="results/ppo")
    a = p.parse_args()
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)
    model = PPO("MlpPolicy", SB3VecEnv(a.task, a.envs, a.threads), n_steps=256, batch_size=1024,
                seed=0, verbose=1, device="cpu")
    model.learn(total_timesteps=a.steps)
    model.save(os.path.join(a.out, "ppo"))
    rng = np.random.default_rng(0)
    report = {
        "task": a.task, "timesteps": a.steps,
        "ppo": evaluate(a.task, lambda env, o: model.predict(o, deterministic=True)[0]),
        "scripted": evaluate(a.task, lambda env, o: env.scripted_action()),
        "random": evaluate(a.task, lambda env, o: rng.uniform(-1, 1, env.action_space.shape).astype(np.float32)),
    }
    print(json.dumps(report, indent=2))
    json.dump(report, open(os.path.join(a.out, "report.json"), "w"), indent=2)


if __name__ == "__main__":
    main()
