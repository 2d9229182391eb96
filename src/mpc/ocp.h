// Copyright Nereid authors.
// The optimal control problem behind Nereid's MPC (seed 002 eq. 4.5), on CasADi:
//
//   min  sum_{k=0}^{N-1} (x_k - r_k)' Q (x_k - r_k) + u_k' R u_k + (x_N - r_N)' Q_N (x_N - r_N)
//   s.t. x_0 = x(t),  x_{k+1} = F(x_k, u_k)  (one implicit RK4 step of f over dt),
//        x_lo <= x_k <= x_hi (k = 1..N),  u_lo <= u_k <= u_hi,
//
// with Q = diag(q), R = diag(r), Q_N = 2 Q. Multiple shooting: the states and inputs are
// all decision variables. The seed's terminal input term u_N' R_N u_N is left out: u_N
// acts on nothing, so its optimum is u_N = 0 and the term adds 0. Solved by CasADi's
// sqpmethod with a bounded number of SQP iterations, each one QP, with a Gauss-Newton
// (default) or regularised exact Hessian and a backtracking line search.
#ifndef NEREID_MPC_OCP_H_
#define NEREID_MPC_OCP_H_

#include <string>

#include <Eigen/Core>
#include <casadi/casadi.hpp>

namespace nereid::mpc {

struct OcpSpec {
  casadi::Function dynamics;  // continuous time: (x[nx], u[nu]) -> x_dot[nx]
  int horizon = 15;           // N
  double dt = 0.5;            // s, one RK4 step per stage
  Eigen::VectorXd q, r;       // diagonal weights (nx, nu)
  double terminal_factor = 2; // Q_N = terminal_factor Q
  Eigen::VectorXd x_lo, x_hi; // state bounds for x_1..x_N (+-inf where none)
  Eigen::VectorXd u_lo, u_hi;
  std::string qp_solver = "qrqp";
  int max_sqp_iterations = 4;
  int max_qp_iterations = 100;  // qrqp's active-set iterations per QP
  bool gauss_newton = true;   // the SQP's Hessian: Gauss-Newton (true) or exact, regularised
  int max_line_search = 10;   // backtracking steps per SQP iteration
  // true: 2-stage Gauss-Legendre (implicit RK4, A-stable; its stage derivatives become
  // decision variables); false: explicit RK4
  bool implicit = true;
};

struct OcpSolution {
  bool ok = false;        // finite, and the SQP did not stop on a failure
  std::string status;     // CasADi's return_status
  int iterations = 0;       // over both attempts where retried
  bool retried = false;     // the warm-started solve failed and was redone from a rollout
  double solve_time_s = 0;
  double cost = 0;
  Eigen::MatrixXd X;      // nx x (N + 1)
  Eigen::MatrixXd U;      // nu x N
};

class Ocp {
 public:
  explicit Ocp(const OcpSpec& spec);
  // Solves from x0 towards refs (nx x (N + 1), column k for x_k). Warm-started from the
  // previous solution shifted by one stage; the first solve, and a second try after a
  // failed warm-started one, start from the model's rollout from x0 at zero thrust.
  OcpSolution Solve(const Eigen::VectorXd& x0, const Eigen::MatrixXd& refs);
  // One step of the integrator over dt: x_next = F(x, u).
  Eigen::VectorXd Discrete(const Eigen::VectorXd& x, const Eigen::VectorXd& u) const;
  int nx() const { return nx_; }
  int nu() const { return nu_; }
  int horizon() const { return spec_.horizon; }

 private:
  OcpSolution SolveFrom(const Eigen::VectorXd& x0, const Eigen::MatrixXd& refs, bool warm);
  OcpSpec spec_;
  int nx_ = 0, nu_ = 0;
  casadi::Function step_, solver_;
  std::vector<double> lbx_, ubx_, lbg_, ubg_;
  std::vector<double> w_;  // last solution (warm start)
  int nk_ = 0;
  bool have_solution_ = false;
};

// Eigen <-> CasADi
casadi::DM ToDM(const Eigen::MatrixXd& a);
Eigen::MatrixXd ToEigen(const casadi::DM& a);

}  // namespace nereid::mpc

#endif  // NEREID_MPC_OCP_H_
