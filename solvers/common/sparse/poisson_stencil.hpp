#pragma once
// PoissonOperator's product cell by cell, with no matrix: it reads a one-component field whose halos hold the
// neighbouring ranks' values and the periodic images (mesh::HaloExchange). For checking a solver that needs no
// matrix, the direct solver: assembling one only to measure its residual held 1.8 GB and took 25 s of a 256^3
// cavity's start-up on the host, and twice the memory of the pressure itself on a GPU.
#include <Kokkos_Core.hpp>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "solvers/common/sparse/poisson_operator.hpp"

namespace meridian::sparse {

class PoissonStencil {
 public:
  PoissonStencil(const mesh::Decomposition& decomp, const PoissonProblem& problem);

  // (A p) at the owned cell (k, j, i), indexed as the field is (halo included). Summed in the assembled row's
  // column order (-z, -y, -x, the cell, +x, +y, +z): a host build gives PoissonOperator::apply's bits. The
  // loops over axes have a constant count, so that a GPU unrolls them and keeps every array in registers.
  KOKKOS_INLINE_FUNCTION double apply(const mesh::Field& p, int k, int j, int i) const {
    const double* cell = &p(0, k, j, i);
    const int x[3] = {i, j, k};
    const long stride[3] = {1, static_cast<long>(p.stride(2)), static_cast<long>(p.stride(1))};
    bool below[3], above[3];
    double diagonal = 0;
    for (int a = 0; a < 3; ++a) {
      below[a] = a < dims_ && !(x[a] == first_[a] && face_[a][0] != neighbour);
      above[a] = a < dims_ && !(x[a] == last_[a] && face_[a][1] != neighbour);
      if (a < dims_) {
        diagonal += face_term(below[a], face_[a][0], weight_[a]);
        diagonal += face_term(above[a], face_[a][1], weight_[a]);
      }
    }
    double sum = 0;
    for (int a = 2; a >= 0; --a)
      if (below[a]) sum += -weight_[a] * cell[-stride[a]];
    sum += diagonal * cell[0];
    for (int a = 0; a < 3; ++a)
      if (above[a]) sum += -weight_[a] * cell[stride[a]];
    return sum;
  }

  // No face holds p fixed: the constants are the null space.
  bool singular() const { return singular_; }

 private:
  static constexpr int neighbour = -1;  // a face_ whose other side is a cell (on this rank, another, or an image)

  // A face's share of the diagonal: 1/h^2 across to a neighbour, 2/h^2 to the mirrored ghost -p of a face
  // holding p = 0, none across a zero-gradient face.
  KOKKOS_INLINE_FUNCTION static double face_term(bool to_neighbour, int face, double weight) {
    if (to_neighbour) return weight;
    return face == static_cast<int>(FaceCondition::zero_value) ? 2 * weight : 0.0;
  }

  int dims_;
  int first_[3], last_[3];  // this rank's first and last owned index per axis, halo included
  int face_[3][2];          // per axis and side: the domain face's FaceCondition where this rank holds it, else neighbour
  double weight_[3];        // 1 / h^2
  bool singular_;
};

}  // namespace meridian::sparse
