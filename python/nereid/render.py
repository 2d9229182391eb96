"""Pictures of a Nereid state with MuJoCo's own renderer and viewer (docs/python.md).

Headless rendering needs an OpenGL back end: MUJOCO_GL=egl (a GPU), MUJOCO_GL=osmesa
(software; Debian: libosmesa6) or glfw under Xvfb (`xvfb-run`).
"""
import numpy as np

import mujoco

from ._closing import take


class SceneRenderer:
    """Draws the model of a task (or any Nereid model) at a given qpos.

    rgb_array(qpos) -> (height, width, 3) uint8 through mujoco.Renderer, the camera following
    `body` (default: the first body with a free joint); human(qpos) opens
    mujoco.viewer.launch_passive once and shows each state given.
    """

    def __init__(self, model_path, width=640, height=480, body=None, distance=2.5):
        from .engine import load
        self.model, self.data = load(model_path)
        self.width, self.height = width, height
        self._renderer = None
        self._viewer = None
        self.camera = mujoco.MjvCamera()
        self.camera.type = mujoco.mjtCamera.mjCAMERA_TRACKING
        free = [b for b in range(1, self.model.nbody)
                if self.model.body_jntnum[b] > 0
                and self.model.jnt_type[self.model.body_jntadr[b]] == mujoco.mjtJoint.mjJNT_FREE]
        self.camera.trackbodyid = self.model.body(body).id if body else (free[0] if free else 0)
        self.camera.distance = distance
        self.camera.elevation = -20.0
        self.camera.azimuth = 135.0

    def _set(self, qpos):
        q = np.asarray(qpos, dtype=np.float64)
        if q.shape != (self.model.nq,):
            raise ValueError(f"qpos: expected shape ({self.model.nq},), got {q.shape}")
        self.data.qpos[:] = q
        mujoco.mj_kinematics(self.model, self.data)
        mujoco.mj_camlight(self.model, self.data)

    def rgb_array(self, qpos):
        self._set(qpos)
        if self._renderer is None:
            # the model's offscreen buffer bounds the picture; grow it if asked for more
            self.model.vis.global_.offwidth = max(self.model.vis.global_.offwidth, self.width)
            self.model.vis.global_.offheight = max(self.model.vis.global_.offheight, self.height)
            self._renderer = mujoco.Renderer(self.model, self.height, self.width)
        self._renderer.update_scene(self.data, camera=self.camera)
        return self._renderer.render()

    def human(self, qpos):
        import mujoco.viewer
        self._set(qpos)
        if self._viewer is None:
            self._viewer = mujoco.viewer.launch_passive(self.model, self.data)
            self._viewer.cam.type = self.camera.type
            self._viewer.cam.trackbodyid = self.camera.trackbodyid
            self._viewer.cam.distance = self.camera.distance
        self._viewer.sync()

    def close(self):
        """Frees the renderer and closes the viewer; safe from several threads at once, and a
        second close does nothing."""
        renderer, viewer = take(self, "_renderer", "_viewer")
        if renderer is not None:
            renderer.close()
        if viewer is not None:
            viewer.close()
