#pragma once
// The direct solver's last step: one tridiagonal system per mode down the last axis, for the operator's rows
// along it, -p_{k-1} / h^2 + (2 / h^2 + lambda_m + shift) p_k - p_{k+1} / h^2, the first and last rows with the
// face terms of the axis' kind (lambda_m: the mode's eigenvalue from the transformed axes; shift: the Helmholtz
// operator's, 0 for the Poisson one).
//
// The singular mode (lambda = 0 between two zero-gradient faces, where no face holds p = 0), which no pivot-free
// elimination survives: a constant right-hand side reaches no other mode (the other transform modes sum to zero
// over the transformed axes), so removing this column's mean removes the right-hand side's; its last row then
// becomes p = 0, and removing its solution's mean leaves the whole solution's mean zero.
//
// Two solvers, the same systems:
// - thomas: a Kokkos kernel (every backend; the default): a GPU thread per mode, its loads issued rows ahead, a
//   host thread per block of modes;
// - cusparse: cuSPARSE's gtsvInterleavedBatch (Kokkos CUDA builds), whose interleaved layout is this one. It
//   reads three diagonals, which a kernel writes before each solve (its interface may overwrite them), where the
//   kernel forms each row from lambda_m and two numbers: more passes over memory, so the kernel is the default
//   until a GPU run says otherwise (the device check times both).
#include <Kokkos_Core.hpp>
#include <memory>

#include "solvers/common/direct_poisson/axis_transform.hpp"

namespace meridian::direct_poisson {

enum class TridiagonalSolver { thomas, cusparse };

// Whether this build can run `solver` (cusparse: a Kokkos CUDA build with the CUDA toolkit's cuSPARSE).
bool available(TridiagonalSolver solver);

namespace cuda {
class CusparseTridiagonal;
}

class ModeSystems {
 public:
  // n rows x `modes` systems, interleaved (row k of mode m at k * modes + m); h and kind: the axis' spacing and
  // kind (not periodic); eigenvalues: one per mode, on the device; pinned: the singular mode's index, or -1 (a
  // solve with a positive shift has none); one_column_per_thread: the Thomas kernel's GPU layout, which the
  // tests also run on the host (where its blocks of columns are faster). Throws std::invalid_argument where the
  // build cannot run `solver`.
  ModeSystems(long n, long modes, double h, AxisKind kind, const Kokkos::View<double*>& eigenvalues, long pinned,
              TridiagonalSolver solver, bool one_column_per_thread = !parallel::device_memory_is_host,
              Workspace workspace = {});
  ~ModeSystems();
  ModeSystems(ModeSystems&&) noexcept;
  ModeSystems& operator=(ModeSystems&&) noexcept;
  // values (n x modes) become the solutions for right-hand sides `scale` times them (the transforms'
  // normalisation).
  void solve(const Kokkos::View<double*>& values, double shift, double scale) const;

 private:
  long n_, modes_, pinned_;
  double h_;
  AxisKind kind_;
  TridiagonalSolver solver_;
  bool one_column_per_thread_;
  Kokkos::View<double*> eigenvalues_, work_;  // work_: Thomas' c; cuSPARSE's three diagonals
  std::unique_ptr<cuda::CusparseTridiagonal> cusparse_;
};

}  // namespace meridian::direct_poisson
