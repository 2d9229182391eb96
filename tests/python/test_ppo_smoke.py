"""A test-sized PPO run (stable-baselines3, CPU) on station keeping that must beat a random
policy. The full run is scripts/train_ppo.py. Skipped where stable-baselines3 is missing."""
import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")
torch = pytest.importorskip("torch")

import nereid  # noqa: E402


def evaluate(env, policy, episodes=4, seed=500):
    total = 0.0
    for k in range(episodes):
        obs, _ = env.reset(seed=seed + k)
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(policy(obs))
            total += reward
            done = terminated or truncated
    return total / episodes


def test_short_ppo_run_beats_random_policy():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    env = nereid.NereidEnv("BlueROV2StationKeeping-v0")
    model = sb3.PPO("MlpPolicy", env, n_steps=1024, batch_size=256, learning_rate=3e-4,
                    seed=0, verbose=0, device="cpu")
    model.learn(total_timesteps=12288)
    trained = evaluate(env, lambda o: model.predict(o, deterministic=True)[0])
    rng = np.random.default_rng(0)
    random = evaluate(env, lambda o: rng.uniform(-1, 1, env.action_space.shape).astype(np.float32))
    print(f"PPO after 12288 steps: {trained:.1f}; random policy: {random:.1f}")
    assert trained > random
