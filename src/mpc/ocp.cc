// Copyright Nereid authors.
#include "mpc/ocp.h"

#include <chrono>
#include <cmath>
#include <limits>

#include "nereid/error.h"

namespace nereid::mpc {

using casadi::DM;
using casadi::Dict;
using casadi::Function;
using casadi::SX;

DM ToDM(const Eigen::MatrixXd& a) {
  DM out = DM::zeros(a.rows(), a.cols());
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    for (Eigen::Index i = 0; i < a.rows(); ++i) out(i, j) = a(i, j);
  }
  return out;
}

Eigen::MatrixXd ToEigen(const DM& a) {
  Eigen::MatrixXd out(a.size1(), a.size2());
  const std::vector<double> values = DM::densify(a).nonzeros();  // column-major
  for (Eigen::Index j = 0; j < out.cols(); ++j) {
    for (Eigen::Index i = 0; i < out.rows(); ++i) out(i, j) = values[j * out.rows() + i];
  }
  return out;
}

namespace {

Dict QpOptions(const std::string& solver, int max_iterations) {
  // qrqp's own default is 1000 active-set iterations per QP; the shipped scenarios need
  // fewer than 30 (their plans are unchanged at 30), and 1000 let a near-singular QP take
  // 80 s for one plan: a plan's work is bounded by max_sqp_iterations x max_iterations
  if (solver == "qrqp") {
    return {{"print_iter", false}, {"print_header", false}, {"error_on_fail", false},
            {"max_iter", static_cast<casadi_int>(max_iterations)}};
  }
  if (solver == "osqp") {
    return {{"osqp", Dict{{"verbose", false}, {"eps_abs", 1e-9}, {"eps_rel", 1e-9}, {"max_iter", 20000}}},
            {"error_on_fail", false}};
  }
  if (solver == "qpoases") return {{"printLevel", "none"}, {"error_on_fail", false}};
  throw ConfigError("MPC: unknown QP solver '" + solver + "' (qrqp, osqp or qpoases)");
}

// The model's state derivative f(x, u), as a symbolic expression.
SX Derivative(const Function& dynamics, const SX& x, const SX& u) {
  return dynamics(std::vector<SX>{x, u}).at(0);
}

// The 2-stage Gauss-Legendre Runge-Kutta method's Butcher coefficients (implicit RK4, as
// seed 002 section 4.1 integrates; A-stable, which the Raybot's damping needs: its
// linearised rate at 0.5 m/s times 0.5 s is about 7, far outside explicit RK4's stability
// interval of 2.8).
struct GaussLegendre {
  double a11, a12, a21, a22;
  GaussLegendre() {
    const double s3 = std::sqrt(3.0) / 6.0;
    a11 = 0.25, a12 = 0.25 - s3, a21 = 0.25 + s3, a22 = 0.25;
  }
  // the stage equations' residuals k_i - f(x + h sum_j a_ij k_j, u)
  std::vector<SX> Residuals(const Function& dynamics, const SX& x, const SX& u, const SX& k1, const SX& k2,
                            double h) const {
    return {k1 - Derivative(dynamics, x + h * (a11 * k1 + a12 * k2), u),
            k2 - Derivative(dynamics, x + h * (a21 * k1 + a22 * k2), u)};
  }
};

// One explicit RK4 step over h: (x, u) -> (x_next, no stages).
Function ExplicitRk4Step(const Function& dynamics, const SX& x, const SX& u, double h) {
  const SX k1 = Derivative(dynamics, x, u);
  const SX k2 = Derivative(dynamics, x + 0.5 * h * k1, u);
  const SX k3 = Derivative(dynamics, x + 0.5 * h * k2, u);
  const SX k4 = Derivative(dynamics, x + h * k3, u);
  return Function("rk4_step", {x, u}, {x + (h / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4), SX::zeros(0, 1)});
}

// One Gauss-Legendre step over h, for Discrete(): Newton on the stage equations;
// (x, u) -> (x_next, stages).
Function ImplicitRk4Step(const Function& dynamics, const SX& x, const SX& u, double h, int nx) {
  const SX k12 = SX::sym("k", 2 * nx);
  const SX k1 = k12(casadi::Slice(0, nx)), k2 = k12(casadi::Slice(nx, 2 * nx));
  const SX res = SX::vertcat(GaussLegendre().Residuals(dynamics, x, u, k1, k2, h));
  const Function residual("irk_residual", {k12, x, u}, {res});
  const Function solve = casadi::rootfinder("irk_stages", "newton", residual,
                                            Dict{{"abstol", 1e-14}, {"max_iter", 50}, {"error_on_fail", false}});
  const SX stages = solve(std::vector<SX>{SX::zeros(2 * nx), x, u}).at(0);
  return Function("irk4_step", {x, u},
                  {x + 0.5 * h * (stages(casadi::Slice(0, nx)) + stages(casadi::Slice(nx, 2 * nx))), stages});
}

// The multiple-shooting NLP: w = [x_0 .. x_N, u_0 .. u_{N-1}, K_0 .. K_{N-1}], p = [x(t),
// r_0 .. r_N]; the cost J, the constraints g (x_0 pinned, then each interval's stage
// equations and continuity), in that order.
struct Transcription {
  SX w, p, J, g;
};
Transcription Transcribe(const OcpSpec& spec, const Function& explicit_step, int nx, int nu, int nk) {
  const int N = spec.horizon;
  const double h = spec.dt;
  const GaussLegendre gl;
  const SX X = SX::sym("X", nx, N + 1), U = SX::sym("U", nu, N), K = SX::sym("K", nk, N);
  const SX P = SX::sym("P", nx, N + 2);
  const SX q = ToDM(spec.q), r = ToDM(spec.r);
  SX J = 0;
  std::vector<SX> g;
  g.push_back(X(casadi::Slice(), 0) - P(casadi::Slice(), 0));
  for (int k = 0; k < N; ++k) {
    const SX xk = X(casadi::Slice(), k), uk = U(casadi::Slice(), k);
    const SX e = xk - P(casadi::Slice(), k + 1);
    J += SX::dot(q, e * e) + SX::dot(r, uk * uk);
    if (spec.implicit) {
      const SX k1 = K(casadi::Slice(0, nx), k), k2 = K(casadi::Slice(nx, 2 * nx), k);
      for (const SX& residual : gl.Residuals(spec.dynamics, xk, uk, k1, k2, h)) g.push_back(residual);
      g.push_back(X(casadi::Slice(), k + 1) - (xk + 0.5 * h * (k1 + k2)));
    } else {
      g.push_back(X(casadi::Slice(), k + 1) - explicit_step(std::vector<SX>{xk, uk}).at(0));
    }
  }
  const SX eN = X(casadi::Slice(), N) - P(casadi::Slice(), N + 1);
  J += spec.terminal_factor * SX::dot(q, eN * eN);
  return {SX::vertcat({SX::vec(X), SX::vec(U), SX::vec(K)}), SX::vec(P), J, SX::vertcat(g)};
}

// The SQP's options. Its Hessian: Gauss-Newton (the cost's own Hessian, constant and
// positive semidefinite; the constraints' curvature left out, as real-time MPC solvers such
// as the seed's ForcesPro approximate it), or the exact Hessian of the Lagrangian, made
// positive definite where it is not (qrqp needs a convex QP). Steps are accepted after a
// backtracking line search on the merit function of up to max_line_search tries.
Dict SqpOptions(const OcpSpec& spec, const Transcription& t) {
  Dict options = {{"qpsol", spec.qp_solver},
                  {"qpsol_options", QpOptions(spec.qp_solver, spec.max_qp_iterations)},
                  {"max_iter", spec.max_sqp_iterations},
                  {"print_header", false},
                  {"print_iteration", false},
                  {"print_status", false},
                  {"print_time", false},
                  {"error_on_fail", false}};
  if (spec.gauss_newton) {
    const SX lam_f = SX::sym("lam_f"), lam_g = SX::sym("lam_g", t.g.size1());
    options["hess_lag"] = Function("nlp_hess_l", {t.w, t.p, lam_f, lam_g}, {lam_f * SX::hessian(t.J, t.w)},
                                   {"x", "p", "lam_f", "lam_g"}, {"hess_gamma_x_x"});
  } else {
    options["convexify_strategy"] = "regularize";
  }
  options["max_iter_ls"] = spec.max_line_search;
  return options;
}

}  // namespace

Ocp::Ocp(const OcpSpec& spec) : spec_(spec) {
  nx_ = static_cast<int>(spec.dynamics.size1_in(0));
  nu_ = static_cast<int>(spec.dynamics.size1_in(1));
  const int N = spec.horizon;
  if (N < 1) throw ConfigError("MPC: horizon must be >= 1");
  if (spec.q.size() != nx_ || spec.r.size() != nu_ || spec.x_lo.size() != nx_ || spec.x_hi.size() != nx_ ||
      spec.u_lo.size() != nu_ || spec.u_hi.size() != nu_) {
    throw ConfigError("MPC: weight or bound sizes do not match the model's state and input sizes");
  }
  // one step over dt: the Gauss-Legendre method (implicit RK4) or explicit RK4
  const SX x = SX::sym("x", nx_), u = SX::sym("u", nu_);
  if (!spec.implicit) step_ = ExplicitRk4Step(spec.dynamics, x, u, spec.dt);
  nk_ = spec.implicit ? 2 * nx_ : 0;  // stage derivatives per interval
  const Transcription t = Transcribe(spec, step_, nx_, nu_, nk_);
  const casadi::SXDict nlp = {{"x", t.w}, {"p", t.p}, {"f", t.J}, {"g", t.g}};
  solver_ = casadi::nlpsol("nereid_mpc", "sqpmethod", nlp, SqpOptions(spec, t));
  if (spec.implicit) step_ = ImplicitRk4Step(spec.dynamics, x, u, spec.dt, nx_);

  // bounds: x_0 is pinned by g; x_1..x_N within x_lo..x_hi; inputs within u_lo..u_hi
  const double inf = std::numeric_limits<double>::infinity();
  for (int k = 0; k <= N; ++k) {
    for (int i = 0; i < nx_; ++i) {
      lbx_.push_back(k == 0 ? -inf : spec.x_lo[i]);
      ubx_.push_back(k == 0 ? inf : spec.x_hi[i]);
    }
  }
  for (int k = 0; k < N; ++k) {
    for (int i = 0; i < nu_; ++i) {
      lbx_.push_back(spec.u_lo[i]);
      ubx_.push_back(spec.u_hi[i]);
    }
  }
  lbx_.resize(lbx_.size() + static_cast<size_t>(nk_ * N), -inf);
  ubx_.resize(ubx_.size() + static_cast<size_t>(nk_ * N), inf);
  lbg_.assign(static_cast<size_t>(nx_ * (N + 1) + nk_ * N), 0.0);
  ubg_ = lbg_;
}

Eigen::VectorXd Ocp::Discrete(const Eigen::VectorXd& x, const Eigen::VectorXd& u) const {
  return ToEigen(step_(std::vector<DM>{ToDM(x), ToDM(u)}).at(0));
}

OcpSolution Ocp::Solve(const Eigen::VectorXd& x0, const Eigen::MatrixXd& refs) {
  if (!have_solution_) return SolveFrom(x0, refs, false);
  OcpSolution s = SolveFrom(x0, refs, true);
  if (s.ok) return s;
  // a failed warm-started solve is tried once more from the model's rollout
  OcpSolution retry = SolveFrom(x0, refs, false);
  retry.solve_time_s += s.solve_time_s;
  retry.iterations += s.iterations;
  retry.retried = true;
  if (!retry.ok) retry.status = s.status + "; from a rollout: " + retry.status;
  return retry;
}

OcpSolution Ocp::SolveFrom(const Eigen::VectorXd& x0, const Eigen::MatrixXd& refs, bool warm) {
  const int N = spec_.horizon;
  const size_t nw = static_cast<size_t>(nx_ * (N + 1) + (nu_ + nk_) * N);
  const size_t nxs = static_cast<size_t>(nx_), nus = static_cast<size_t>(nu_), nks = static_cast<size_t>(nk_);
  // primal start (warm duals made the SQP stall): the last solution shifted by one stage,
  // its last stage propagated with its last input; with none, a rollout of the model from
  // x0 at zero thrust. Either satisfies the dynamics constraints, so the SQP's first
  // linearisation is taken about a consistent trajectory.
  std::vector<double> w0(nw, 0.0);
  const size_t xs = nxs * (N + 1), ks = xs + nus * N;
  auto propagate = [&](int k) {  // x_{k+1} and the stages of interval k from x_k, u_k
    const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(&w0[static_cast<size_t>(k) * nxs], nx_);
    const Eigen::VectorXd u = Eigen::Map<const Eigen::VectorXd>(&w0[xs + static_cast<size_t>(k) * nus], nu_);
    const std::vector<DM> out = step_(std::vector<DM>{ToDM(x), ToDM(u)});
    const std::vector<double> next = out.at(0).nonzeros(), stages = out.at(1).nonzeros();
    for (size_t i = 0; i < nxs; ++i) w0[static_cast<size_t>(k + 1) * nxs + i] = next[i];
    for (size_t i = 0; i < nks; ++i) w0[ks + static_cast<size_t>(k) * nks + i] = stages[i];
  };
  if (warm) {
    for (int k = 0; k < N; ++k) {
      for (size_t i = 0; i < nxs; ++i) w0[static_cast<size_t>(k) * nxs + i] = w_[static_cast<size_t>(k + 1) * nxs + i];
      const size_t from = static_cast<size_t>(std::min(k + 1, N - 1));
      for (size_t i = 0; i < nus; ++i) w0[xs + static_cast<size_t>(k) * nus + i] = w_[xs + from * nus + i];
      for (size_t i = 0; i < nks; ++i) w0[ks + static_cast<size_t>(k) * nks + i] = w_[ks + from * nks + i];
    }
    propagate(N - 1);
  } else {
    const Eigen::VectorXd u0 = Eigen::VectorXd::Zero(nu_).cwiseMax(spec_.u_lo).cwiseMin(spec_.u_hi);
    for (size_t i = 0; i < nxs; ++i) w0[i] = x0[static_cast<Eigen::Index>(i)];
    for (int k = 0; k < N; ++k) {
      for (size_t i = 0; i < nus; ++i) w0[xs + static_cast<size_t>(k) * nus + i] = u0[static_cast<Eigen::Index>(i)];
      propagate(k);
    }
  }
  // the start lies inside the variable bounds (x_0 is free here and pinned by g): the
  // SQP's steps then keep the states and inputs within them
  for (size_t i = 0; i < nxs * (N + 1) + nus * N; ++i) w0[i] = std::clamp(w0[i], lbx_[i], ubx_[i]);
  std::vector<double> p(static_cast<size_t>(nx_ * (N + 2)));
  for (size_t i = 0; i < nxs; ++i) p[i] = x0[static_cast<Eigen::Index>(i)];
  for (int k = 0; k <= N; ++k) {
    for (size_t i = 0; i < nxs; ++i) p[(k + 1) * nxs + i] = refs(static_cast<Eigen::Index>(i), k);
  }
  const auto start = std::chrono::steady_clock::now();
  casadi::DMDict result = solver_(casadi::DMDict{{"x0", w0},
                                                 {"p", p},
                                                 {"lbx", lbx_},
                                                 {"ubx", ubx_},
                                                 {"lbg", lbg_},
                                                 {"ubg", ubg_}});
  OcpSolution s;
  s.solve_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Dict stats = solver_.stats();
  s.status = stats.count("return_status") ? stats.at("return_status").to_string() : "unknown";
  s.iterations = stats.count("iter_count") ? static_cast<int>(stats.at("iter_count")) : 0;
  const std::vector<double> w = result.at("x").nonzeros();
  s.cost = static_cast<double>(result.at("f"));
  bool finite = std::isfinite(s.cost);
  for (double v : w) finite = finite && std::isfinite(v);
  // the SQP's own verdict: converged, or stopped at the iteration limit (as the seed's
  // ForcesPro setting does); anything else (a failed or infeasible QP) is a failure
  s.ok = finite && (s.status == "Solve_Succeeded" || s.status == "Maximum_Iterations_Exceeded");
  // a QP that failed inside the SQP shows as a plan outside the variable bounds
  for (size_t i = 0; i < w.size() && s.ok; ++i) {
    const double tol = 1e-6 * std::max(1.0, std::abs(w[i]));
    if (w[i] < lbx_[i] - tol || w[i] > ubx_[i] + tol) {
      s.ok = false;
      const double by = w[i] < lbx_[i] ? lbx_[i] - w[i] : w[i] - ubx_[i];
      s.status = "Bounds_Violated by " + std::to_string(by) + " (" + s.status + ")";
    }
  }
  s.X.resize(nx_, N + 1);
  s.U.resize(nu_, N);
  for (int k = 0; k <= N; ++k) {
    for (int i = 0; i < nx_; ++i) s.X(i, k) = w[k * nxs + static_cast<size_t>(i)];
  }
  for (int k = 0; k < N; ++k) {
    for (int i = 0; i < nu_; ++i) s.U(i, k) = w[nxs * (N + 1) + k * nus + static_cast<size_t>(i)];
  }
  if (s.ok) {
    w_ = w;
    have_solution_ = true;
  } else {
    have_solution_ = false;  // start the next solve afresh
  }
  return s;
}

}  // namespace nereid::mpc
