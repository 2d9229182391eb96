"""MuJoCo's viewer with Nereid's physics (docs/python.md, "The viewer").

    python -m nereid.viewer MODEL.xml|SCENARIO.json [--constraints uk] [--scale N_PER_M]

Opens mujoco.viewer.launch_passive on a model loaded with nereid.load and steps it with
Nereid's engine in real time. Arrows in the viewer's user scene show, per body, the thrust
of each thruster (orange, at its site), the damping (blue) and buoyancy (green, at the
centre of buoyancy) that Nereid's plugins applied, and the constraint force of each UK
connection (magenta). Keys drive the first vehicle with thrusters through the thrust
allocation: W/S surge, A/D sway, R/F heave, Q/E yaw, X stops. `force_arrows` and
`teleop_wrench` hold that logic and need no window.
"""
import argparse
import sys
import time

import numpy as np

import mujoco

import nereid

COLOURS = {"thrust": (1.0, 0.45, 0.1, 1.0), "damping": (0.2, 0.4, 1.0, 1.0),
           "buoyancy": (0.2, 0.85, 0.3, 1.0), "connection": (0.9, 0.2, 0.9, 1.0)}
# key -> (wrench component, sign): body frame FLU [fx fy fz tx ty tz]
KEYS = {"W": (0, 1), "S": (0, -1), "A": (1, 1), "D": (1, -1), "R": (2, 1), "F": (2, -1),
        "Q": (5, 1), "E": (5, -1)}
STEP_FORCE, STEP_TORQUE = 10.0, 2.0  # N, N m per key press


def force_arrows(model, data, stepper, scale=0.02, min_force=1e-3):
    """The arrows to draw: a list of (kind, start point, end point), world frame, m.

    An arrow is `scale` m long per newton (default 2 cm/N), from the point where the force
    acts. thrust: each nereid.thruster actuator's force along its site's thrust axis;
    damping, buoyancy: what Nereid's plugins applied in the last forward pass
    (Stepper.plugin_wrenches); connection: each active UK connection's force on body1.
    """
    arrows = []
    for a in range(model.nactuator):
        if model.actuator_trntype[a] != mujoco.mjtTrn.mjTRN_SITE:
            continue
        site = model.actuator_trnid[a, 0]
        out = model.actuator_outadr[a]  # gear and actuator_force are per force output (a site: one)
        axis = data.site_xmat[site].reshape(3, 3) @ model.actuator_gear[out, :3]
        f = data.actuator_force[out] * axis
        if np.linalg.norm(f) > min_force:
            p = data.site_xpos[site].copy()
            arrows.append(("thrust", p, p + scale * f))
    for w in stepper.plugin_wrenches():
        if w["kind"] not in ("damping", "buoyancy"):
            continue
        f = np.array(w["force"])
        if np.linalg.norm(f) > min_force:
            p = np.array(w["point"])
            arrows.append((w["kind"], p, p + scale * f))
    for c in stepper.connections():
        f = np.array(c["force"])
        if c["active"] and np.linalg.norm(f) > min_force:
            p = np.array(c["point"])
            arrows.append(("connection", p, p + scale * f))
    return arrows


def draw_arrows(scene, arrows, width=0.01):
    """Adds the arrows to an mjvScene (the viewer's user_scn), as many as fit."""
    scene.ngeom = 0
    for kind, start, end in arrows:
        if scene.ngeom >= scene.maxgeom:
            break
        g = scene.geoms[scene.ngeom]
        mujoco.mjv_initGeom(g, mujoco.mjtGeom.mjGEOM_ARROW, np.zeros(3), np.zeros(3), np.zeros(9),
                            np.array(COLOURS[kind], dtype=np.float32))
        mujoco.mjv_connector(g, mujoco.mjtGeom.mjGEOM_ARROW, width, start, end)
        scene.ngeom += 1


def teleop_wrench(wrench, key):
    """The body-frame wrench after a key press (W/S/A/D/R/F/Q/E add, X zeroes)."""
    w = np.array(wrench, dtype=float)
    key = key.upper()
    if key == "X":
        return np.zeros(6)
    if key in KEYS:
        i, sign = KEYS[key]
        w[i] += sign * (STEP_FORCE if i < 3 else STEP_TORQUE)
    return w


def first_vehicle(model):
    """The id of the first body that carries nereid.thruster actuators on sites, or None."""
    for a in range(model.nactuator):
        if model.actuator_trntype[a] == mujoco.mjtTrn.mjTRN_SITE and model.actuator_plugin[a] >= 0:
            return int(model.site_bodyid[model.actuator_trnid[a, 0]])
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m nereid.viewer", description=__doc__.splitlines()[0])
    ap.add_argument("input", help="MODEL.xml or SCENARIO.json")
    ap.add_argument("--constraints", choices=("mujoco", "uk"), default=None)
    ap.add_argument("--scale", type=float, default=0.02, help="arrow length per newton, m/N")
    args = ap.parse_args(argv)
    import mujoco.viewer

    model, data = nereid.load(args.input, constraints=args.constraints)
    stepper = nereid.stepper(model, data)
    vehicle = first_vehicle(model)
    label = None if vehicle is None else nereid._nereid._output_name(model, int(mujoco.mjtObj.mjOBJ_BODY), vehicle)
    state = {"wrench": np.zeros(6)}

    def on_key(keycode):
        if vehicle is None or not (0 <= keycode < 256):
            return
        state["wrench"] = teleop_wrench(state["wrench"], chr(keycode))
        stepper.drive(vehicle, list(state["wrench"]))
        print(f"{label}: wrench {np.round(state['wrench'], 1).tolist()} (body frame, N and N m)", flush=True)

    with mujoco.viewer.launch_passive(model, data, key_callback=on_key) as viewer:
        start_wall, start_sim = time.monotonic(), data.time
        while viewer.is_running():
            with viewer.lock():
                # real time: step until the simulated time catches up with the wall clock
                target = start_sim + (time.monotonic() - start_wall)
                try:
                    while data.time < target:
                        stepper.step(1)
                except nereid.Error as e:
                    print(f"stopped: {e}", file=sys.stderr)
                    start_wall, start_sim = time.monotonic(), data.time
                draw_arrows(viewer.user_scn, force_arrows(model, data, stepper, args.scale))
            viewer.sync()
            time.sleep(max(0.0, model.opt.timestep - 0.001))
    return 0


if __name__ == "__main__":
    sys.exit(main())
