#include "mesh/reductions.hpp"

namespace meridian::mesh {
namespace {
template <class T>
T reduce(T local, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  T global{};
  MPI_Allreduce(&local, &global, 1, type, op, comm);
  return global;
}
}  // namespace

double global_sum(double local, MPI_Comm comm) { return reduce(local, MPI_DOUBLE, MPI_SUM, comm); }
double global_min(double local, MPI_Comm comm) { return reduce(local, MPI_DOUBLE, MPI_MIN, comm); }
double global_max(double local, MPI_Comm comm) { return reduce(local, MPI_DOUBLE, MPI_MAX, comm); }
void global_sums(double* values, int count, MPI_Comm comm) {
  MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm);
}

}  // namespace meridian::mesh
