#pragma once
// Global reductions over the ranks of a communicator.
#include <mpi.h>

namespace meridian::mesh {

double global_sum(double local, MPI_Comm comm);
double global_min(double local, MPI_Comm comm);
double global_max(double local, MPI_Comm comm);
// Sums `count` values over the ranks, in place, in one message.
void global_sums(double* values, int count, MPI_Comm comm);

}  // namespace meridian::mesh
