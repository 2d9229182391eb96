// Copyright Nereid authors.
// Nereid's RK4 step: MuJoCo's mj_RungeKutta and mj_advance, with Nereid's forward dynamics
// (added mass in the mass matrix) in every stage.
#include "nereid/simulation.h"

namespace nereid {

// Classic RK4 with Nereid's forward dynamics (added mass in every stage), following
// MuJoCo's mj_RungeKutta step for step (tableau, stage times, activation update, plugin
// advance and warm start), so that without added mass it equals mj_step with RK4.
void Simulation::RungeKutta4() {
  static constexpr double kA[3][3] = {{0.5, 0, 0}, {0, 0.5, 0}, {0, 0, 1}};
  static constexpr double kB[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  const int nq = static_cast<int>(m_->nq), nv = static_cast<int>(m_->nv),
            na = static_cast<int>(m_->na);
  const int nx = nq + nv + na, nf = nv + na;
  const mjtNum h = m_->opt.timestep, t0 = d_->time;
  mjtNum* X[4];
  mjtNum* F[4];
  mjtNum* buffer = rk_buffer_.data();
  for (int i = 0; i < 4; ++i) { X[i] = buffer; buffer += nx; }
  for (int i = 0; i < 4; ++i) { F[i] = buffer; buffer += nf; }
  mjtNum* dX = buffer;  // 2 nv + na

  mju_copy(X[0], d_->qpos, nq);
  mju_copy(X[0] + nq, d_->qvel, nv);
  if (na) mju_copy(X[0] + nq + nv, d_->act, na);
  mju_copy(F[0], d_->qacc, nv);
  if (na) mju_copy(F[0] + nv, d_->act_dot, na);

  for (int i = 1; i < 4; ++i) {
    mju_zero(dX, 2 * nv + na);
    double c = 0;
    for (int j = 0; j < i; ++j) {
      mju_addToScl(dX, X[j] + nq, kA[i - 1][j], nv);
      mju_addToScl(dX + nv, F[j], kA[i - 1][j], nv + na);
      c += kA[i - 1][j];
    }
    mju_copy(X[i], X[0], nx);
    mj_integratePos(m_, X[i], dX, h);
    mju_addToScl(X[i] + nq, dX + nv, h, nv + na);
    mju_copy(d_->qpos, X[i], nq);
    mju_copy(d_->qvel, X[i] + nq, nv);
    if (na) mju_copy(d_->act, X[i] + nq + nv, na);
    d_->time = t0 + c * h;
    ForwardNereid(true);
    mju_copy(F[i], d_->qacc, nv);
    if (na) mju_copy(F[i] + nv, d_->act_dot, na);
  }

  mju_zero(dX, 2 * nv + na);
  for (int j = 0; j < 4; ++j) {
    mju_addToScl(dX, X[j] + nq, kB[j], nv);
    mju_addToScl(dX + nv, F[j], kB[j], nv + na);
  }
  d_->time = t0;
  mju_copy(d_->qpos, X[0], nq);
  mju_copy(d_->qvel, X[0] + nq, nv);
  if (na) mju_copy(d_->act, X[0] + nq + nv, na);
  Advance(dX + 2 * nv, dX + nv, dX);
}

// MuJoCo's (internal) mj_advance: activations, velocities, positions, time, plugin
// advance, warm start. Sleep and sensor/actuator history are not supported (refused at
// load, in the constructor).
void Simulation::Advance(const mjtNum* act_dot, const mjtNum* qacc, const mjtNum* qvel) {
  const mjtNum h = m_->opt.timestep;
  for (int i = 0; i < static_cast<int>(m_->nactuator); ++i) {
    const int adr = m_->actuator_actadr[i];
    if (adr < 0) continue;
    const int group = m_->actuator_group[i];
    const bool disabled = group >= 0 && group <= 30 && (m_->opt.disableactuator & (1 << group));
    for (int j = adr; j < adr + m_->actuator_actnum[i]; ++j) {
      const mjtNum rate = disabled ? 0 : act_dot[j];
      mjtNum act = d_->act[j];
      if (m_->actuator_dyntype[i] == mjDYN_FILTEREXACT) {
        const mjtNum tau = mju_max(mjMINVAL, m_->actuator_dynprm[i * mjNDYN]);
        act += rate * tau * (1 - mju_exp(-h / tau));
      } else {
        act += rate * h;
      }
      if (m_->actuator_actlimited[i]) {
        act = mju_clip(act, m_->actuator_actrange[2 * i], m_->actuator_actrange[2 * i + 1]);
      }
      d_->act[j] = act;
    }
  }
  mju_addToScl(d_->qvel, qacc, h, static_cast<int>(m_->nv));
  mj_integratePos(m_, d_->qpos, qvel, h);
  d_->time += h;
  for (int i = 0; i < StageModel()->nplugin; ++i) {  // trailing Nereid sensors have no advance
    const mjpPlugin* plugin = mjp_getPluginAtSlot(m_->plugin[i]);
    if (plugin && plugin->advance) plugin->advance(m_, d_, i);
  }
  mju_copy(d_->qacc_warmstart, d_->qacc, static_cast<int>(m_->nv));
}

}  // namespace nereid
