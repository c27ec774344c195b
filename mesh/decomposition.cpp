#include "mesh/decomposition.hpp"

#include <algorithm>

#include <sstream>

namespace meridian::mesh {

long block_size(long n, int parts, int index) { return n / parts + (index < n % parts ? 1 : 0); }

long block_offset(long n, int parts, int index) {
  const long base = n / parts, extra = n % parts;
  return index * base + (index < extra ? index : extra);
}

namespace {
const char* axis_name(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }
const char* cells_key(int axis) { return axis == 0 ? "nx" : axis == 1 ? "ny" : "nz"; }

void check_spec(const GridSpec& spec, int ranks) {
  if (spec.dimensions != 2 && spec.dimensions != 3)
    throw DecompositionError("grid dimensions must be 2 or 3", "dimensions");
  if (spec.dimensions == 2 && spec.cells[2] != 1) throw DecompositionError("a 2-D grid has one cell along z", "nz");
  if (spec.dimensions == 2 && spec.process_grid[2] != 0 && spec.process_grid[2] != 1)
    throw DecompositionError("a 2-D grid has one process along z (the z entry must be 0 or 1)");
  int fixed = 1;
  bool all_fixed = true;
  for (int axis = 0; axis < 3; ++axis) {
    all_fixed = all_fixed && spec.process_grid[axis] > 0;
    if (spec.cells[axis] < 1)
      throw DecompositionError(std::string("cells along ") + axis_name(axis) + " must be >= 1", cells_key(axis));
    if (spec.process_grid[axis] < 0) throw DecompositionError("process grid entries must be >= 0");
    if (spec.process_grid[axis] > 0) fixed *= spec.process_grid[axis];
  }
  if (ranks % fixed != 0 || (all_fixed && fixed != ranks)) {
    std::ostringstream msg;
    msg << "the process grid fixed in the deck (" << spec.process_grid[0] << " x " << spec.process_grid[1] << " x "
        << spec.process_grid[2] << ") " << (all_fixed ? "does not multiply to" : "does not divide") << " the "
        << ranks << " ranks of this run (0 entries let MPI choose)";
    throw DecompositionError(msg.str());
  }
}
}  // namespace

Decomposition::Decomposition(MPI_Comm parent, const GridSpec& spec) : spec_(spec) {
  int ranks = 1;
  MPI_Comm_size(parent, &ranks);
  check_spec(spec_, ranks);
  dims_ = spec_.process_grid;
  if (spec_.dimensions == 2) dims_[2] = 1;
  // MPI_Dims_create gives its first entry the most ranks. Handed the axes slowest first (z, y, x),
  // it cuts the slowest axis most: the halo slabs across such cuts are whole planes or rows of
  // contiguous memory, and the fast axis stays whole, so its halos are copies within the field
  // (128^3 on 2 ranks: cut in z instead of x; halo 23% -> 14% of the step). Where that leaves an
  // axis too thin for the halo, MPI's own order (x cut most) is taken.
  std::array<int, 3> slowest_first{dims_[2], dims_[1], dims_[0]};
  MPI_Dims_create(ranks, 3, slowest_first.data());
  const std::array<int, 3> preferred{slowest_first[2], slowest_first[1], slowest_first[0]};
  bool fits = true;
  for (int axis = 0; axis < 3; ++axis) fits = fits && spec_.cells[axis] / preferred[axis] >= std::max(1, halo(axis));
  if (fits)
    dims_ = preferred;
  else
    MPI_Dims_create(ranks, 3, dims_.data());
  for (int axis = 0; axis < 3; ++axis) {
    const int halo_here = halo(axis);
    const long smallest = spec_.cells[axis] / dims_[axis];
    if (smallest < 1 || smallest < halo_here) {
      std::ostringstream msg;
      msg << "the grid cannot be decomposed: " << spec_.cells[axis] << " cells along " << axis_name(axis) << " over "
          << dims_[axis] << " ranks leaves " << smallest << " cells on some rank, fewer than the halo width "
          << halo_here << " (use fewer ranks, a larger grid, or fix mesh.process_grid)";
      throw DecompositionError(msg.str(), cells_key(axis));
    }
  }
  std::array<int, 3> periods{};
  for (int axis = 0; axis < 3; ++axis) periods[axis] = periodic(axis) ? 1 : 0;
  // Rank order is kept (reorder = 0) so that output is independent of the MPI implementation's placement.
  MPI_Cart_create(parent, 3, dims_.data(), periods.data(), 0, &cart_);
  MPI_Comm_rank(cart_, &rank_);
  MPI_Comm_size(cart_, &size_);
  MPI_Cart_coords(cart_, rank_, 3, coords_.data());
  for (int axis = 0; axis < 3; ++axis) {
    MPI_Cart_shift(cart_, axis, 1, &lower_[axis], &upper_[axis]);
    local_cells_[axis] = block_size(spec_.cells[axis], dims_[axis], coords_[axis]);
    offset_[axis] = block_offset(spec_.cells[axis], dims_[axis], coords_[axis]);
  }
}

Decomposition::~Decomposition() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (cart_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&cart_);
}

}  // namespace meridian::mesh
