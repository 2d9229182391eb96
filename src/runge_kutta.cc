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

namespace {

// The states of a MuJoCo 3.14 <dcmotor> (mjDYN_DCMOTOR), in the order MuJoCo lays them out
// in act: slew limit (dynprm[7] > 0), PI integral (gainprm[5] > 0), temperature
// (dynprm[2] > 0), LuGre bristle (dynprm[5] > 0), current (dynprm[0] > 0, the electrical
// time constant L / R). -1 where the motor has no such state.
struct DcMotorStates {
  int slew = -1, integral = -1, temperature = -1, bristle = -1, current = -1;
  DcMotorStates(const mjtNum* dynprm, const mjtNum* gainprm) {
    int next = 0;
    if (dynprm[7] > 0) slew = next++;
    if (gainprm[5] > 0) integral = next++;
    if (dynprm[2] > 0) temperature = next++;
    if (dynprm[5] > 0) bristle = next++;
    if (dynprm[0] > 0) current = next++;
  }
};

// A first-order lag of time constant tau after a step of h, from its state x and rate now:
// x + rate tau (1 - e^(-h/tau)), exact for dx/dt = (u - x) / tau with u held over the step
mjtNum ExactLag(mjtNum x, mjtNum rate, mjtNum tau, mjtNum h) {
  tau = mju_max(mjMINVAL, tau);
  return x + rate * tau * (1 - mju_exp(-h / tau));
}

// Actuator i's state at act[adr] after one step of h at `rate` (its act_dot), as MuJoCo
// 3.14 advances it (mj_advance): exact for a filterexact lag and for a DC motor's current
// and LuGre bristle, the integral clamped to the DC motor's Imax, Euler otherwise; then
// the actuator's actrange (DC motors excepted).
mjtNum NextActivation(const mjModel* m, const mjData* d, int i, int adr, mjtNum rate) {
  const mjtNum h = m->opt.timestep;
  const mjtNum* dynprm = m->actuator_dynprm + i * mjNDYN;
  const int type = m->actuator_dyntype[i];
  mjtNum act = d->act[adr];
  if (type == mjDYN_FILTEREXACT) {
    act = ExactLag(act, rate, dynprm[0], h);
  } else if (type == mjDYN_DCMOTOR) {
    const DcMotorStates states(dynprm, m->actuator_gainprm + i * mjNGAIN);
    const int state = adr - m->actuator_actadr[i];
    if (state == states.current) {
      act = ExactLag(act, rate, dynprm[0], h);
    } else if (state == states.bristle) {
      // dz/dt = -sigma0 |v| / g(v) z + v with the joint's speed v held over the step:
      // z(h) = e^(a h) z + (e^(a h) - 1) / a v, g the Stribeck curve between the Coulomb
      // and static friction (biasprm 3, 4) over the Stribeck speed (biasprm 5)
      const mjtNum* biasprm = m->actuator_biasprm + i * mjNBIAS;
      const mjtNum v = d->actuator_velocity[m->actuator_outadr[i]];
      const mjtNum ratio = v / mju_max(mjMINVAL, biasprm[5]);
      const mjtNum g = biasprm[3] + (biasprm[4] - biasprm[3]) * mju_exp(-ratio * ratio);
      const mjtNum a = -dynprm[5] * mju_abs(v) / mju_max(mjMINVAL, g);
      const mjtNum decay = mju_exp(a * h);
      act = decay * act + (mju_abs(a) > mjMINVAL ? (decay - 1) / a : h) * v;
    } else {
      act += rate * h;  // slew, integral, temperature
      if (state == states.integral && dynprm[8] > 0) act = mju_clip(act, -dynprm[8], dynprm[8]);
    }
    return act;
  } else {
    act += rate * h;
  }
  if (m->actuator_actlimited[i]) act = mju_clip(act, m->actuator_actrange[2 * i], m->actuator_actrange[2 * i + 1]);
  return act;
}

// The period of actuator i's setpoint when it is a rotational servo (fixed gain kp, affine
// bias -kp length, no dynamics or an integrator) on a site with a refsite and a purely
// rotational gear (2 pi |gear[3:6]|) or on a ball joint (2 pi |gear[0:3]|); 0 otherwise.
mjtNum ServoSetpointPeriod(const mjModel* m, int i) {
  const int dyn = m->actuator_dyntype[i];
  if (m->actuator_gaintype[i] != mjGAIN_FIXED || m->actuator_biastype[i] != mjBIAS_AFFINE ||
      m->actuator_gainprm[i * mjNGAIN] != -m->actuator_biasprm[i * mjNBIAS + 1] ||
      (dyn != mjDYN_NONE && dyn != mjDYN_INTEGRATOR)) {
    return 0;
  }
  const mjtNum* gear = m->actuator_gear + 6 * m->actuator_outadr[i];
  const int trn = m->actuator_trntype[i], target = m->actuator_trnid[2 * i];
  if (trn == mjTRN_SITE && m->actuator_trnid[2 * i + 1] >= 0 && gear[0] == 0 && gear[1] == 0 && gear[2] == 0) {
    return 2 * mjPI * mju_norm3(gear + 3);
  }
  if ((trn == mjTRN_JOINT || trn == mjTRN_JOINTINPARENT) && m->jnt_type[target] == mjJNT_BALL) {
    return 2 * mjPI * mju_norm3(gear);
  }
  return 0;
}

// An integrated rotational setpoint moved to an equivalent one, as MuJoCo 3.14's
// mj_advance does after the activations (a projection, like the actrange clamp): a
// per-axis servo's to the one nearest its length (whole periods apart), an SO(3) servo's
// rotation vector to an angle within [-pi, pi] (mju_round: halves away from zero).
void WrapRotationalSetpoint(const mjModel* m, mjData* d, int i) {
  if (m->actuator_dyntype[i] != mjDYN_INTEGRATOR) return;
  const int first = m->actuator_actadr[i];
  if (const mjtNum period = ServoSetpointPeriod(m, i); period > 0) {
    mjtNum& setpoint = d->act[first + m->actuator_actnum[i] - 1];
    setpoint -= period * mju_round((setpoint - d->actuator_length[m->actuator_outadr[i]]) / period);
  } else if (m->actuator_gaintype[i] == mjGAIN_SO3) {
    const mjtNum angle = mju_norm3(d->act + first);
    if (angle > mjPI) mju_scl3(d->act + first, d->act + first, (angle - 2 * mjPI * mju_round(angle / (2 * mjPI))) / angle);
  }
}

}  // namespace

// MuJoCo's (internal) mj_advance: activations, velocities, positions, time, plugin
// advance, warm start. Sleep and sensor/actuator history are not supported (refused at
// load, in the constructor).
void Simulation::Advance(const mjtNum* act_dot, const mjtNum* qacc, const mjtNum* qvel) {
  const mjtNum h = m_->opt.timestep;
  const int nactuator = static_cast<int>(m_->nactuator);
  // with actuation disabled MuJoCo leaves the activations (act_dot was not computed)
  if (m_->na && !(m_->opt.disableflags & mjDSBL_ACTUATION)) {
    for (int i = 0; i < nactuator; ++i) {
      const int adr = m_->actuator_actadr[i];
      if (adr < 0) continue;
      const bool disabled = ActuatorGroupDisabled(m_, i);
      for (int j = adr; j < adr + m_->actuator_actnum[i]; ++j) d_->act[j] = NextActivation(m_, d_, i, j, disabled ? 0 : act_dot[j]);
      WrapRotationalSetpoint(m_, d_, i);  // from its own activations and length only
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
