#pragma once
// Moves a distributed 3-D array from one block layout to another (heFFTe's "reshape"): from mesh/'s Cartesian
// blocks to pencils and between pencils, each rank's block any box of the global array, stored with any order
// of its axes. The messages are planned once from every rank's two blocks (their intersections); a call packs
// with Kokkos kernels, exchanges with one MPI_Alltoallv over buffers made once, and unpacks. A rank's own share
// is copied straight from input to output. Unlike fft::DistributedFFT's transposes (complex values, within the
// rows and columns of a pencil process grid) it moves real values between layouts that need not share a
// process grid, which the direct solver's step from mesh blocks to pencils needs.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <vector>

#include "mesh/message_buffer.hpp"
#include "solvers/common/direct_poisson/workspace.hpp"

namespace meridian::direct_poisson {

// Logical axes are (z, y, x) = (0, 1, 2).
struct Box {
  std::array<long, 3> offset{}, count{};
  long size() const { return count[0] * count[1] * count[2]; }
};

// A rank's block and how it is stored: View dimension d (0 slowest) holds logical axis order[d]; LayoutRight.
struct BlockLayout {
  Box box;
  std::array<int, 3> order{0, 1, 2};
};

// The strides of a block's logical axes (z, y, x) in its flat storage.
Kokkos::Array<long, 3> logical_strides(const BlockLayout& layout);

class PencilReshape {
 public:
  PencilReshape() = default;
  // from[r], to[r]: rank r's blocks before and after, for every rank of comm; comm must outlive this object.
  // Its message buffers are the workspace's, which every reshape of a run's solvers shares.
  PencilReshape(MPI_Comm comm, const std::vector<BlockLayout>& from, const std::vector<BlockLayout>& to,
                mesh::MessagePath path, Workspace& workspace);
  // `in` holds this rank's `from` block, `out` receives its `to` block (flat views; not the same view).
  void operator()(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out);
  // Whether every rank's values sit at the same places before and after: the reshape moves nothing, and a
  // caller may read its input where it would read the output.
  bool identity() const { return identity_; }

 private:
  struct Segment {
    int rank;
    Box box;    // the global indices moved
    long at;    // where its values start in the message buffer
  };
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool single_rank_ = true, identity_ = false;
  BlockLayout from_, to_;
  std::vector<Segment> sends_, receives_;
  Box own_;  // this rank's share of both blocks
  std::vector<int> send_counts_, send_offsets_, receive_counts_, receive_offsets_;
  long sent_ = 0, received_ = 0;
  mesh::MessageBuffer send_, receive_;
};

}  // namespace meridian::direct_poisson
