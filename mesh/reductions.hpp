#pragma once
// Global reductions over the ranks of a communicator.
#include <mpi.h>

namespace meridian::mesh {

double global_sum(double local, MPI_Comm comm);
double global_min(double local, MPI_Comm comm);
double global_max(double local, MPI_Comm comm);

}  // namespace meridian::mesh
