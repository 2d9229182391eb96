// Copyright Nereid authors.
// The MPC's prediction models as CasADi functions (x, u) -> x_dot; see include/nereid/mpc.h
// for the state and the two models. SeedDynamics (mpc.h) is the same eq. 4.1 evaluated
// directly with Eigen, written separately so that the two can be compared.
#ifndef NEREID_MPC_PREDICTION_H_
#define NEREID_MPC_PREDICTION_H_

#include <casadi/casadi.hpp>

#include "nereid/mpc.h"

namespace nereid::mpc {

// Seed 002 eq. 4.1 (kSeed): 12 states, one input per thruster.
casadi::Function SeedDynamicsFunction(const VehiclePredictionModel& model);
// Nereid's full vehicle model (kFull): 12 states plus one lagged thrust per thruster that
// has a motor time constant (in thruster order).
casadi::Function FullDynamicsFunction(const VehiclePredictionModel& model);
// Number of lagged-thrust states FullDynamicsFunction adds.
int LagStates(const VehiclePredictionModel& model);

// ZYX Euler angles [phi theta psi] of a world-from-body rotation.
Vec3 EulerZyx(const Mat3& R);

}  // namespace nereid::mpc

#endif  // NEREID_MPC_PREDICTION_H_
