#pragma once
// Cartesian decomposition of a structured grid over MPI ranks. Axis 0 is x, 1 is y, 2 is z;
// a 2-D grid is a 3-D one with a single cell and no halo along z.
#include <mpi.h>

#include <array>
#include <stdexcept>
#include <string>

namespace meridian::mesh {

enum class Boundary { periodic, open };

struct GridSpec {
  int dimensions = 2;                      // 2 or 3
  std::array<long, 3> cells{1, 1, 1};      // global cells per axis
  std::array<Boundary, 3> boundary{Boundary::periodic, Boundary::periodic, Boundary::periodic};
  std::array<int, 3> process_grid{0, 0, 0};  // 0 lets MPI_Dims_create choose
  int halo_width = 1;
};

// Thrown when a grid cannot be split over the ranks given (a deck error, not a crash); `key` is
// the mesh key to blame ("process_grid", "nx", ...).
class DecompositionError : public std::runtime_error {
 public:
  explicit DecompositionError(const std::string& message, std::string key = "process_grid")
      : std::runtime_error(message), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

class Decomposition {
 public:
  Decomposition(MPI_Comm parent, const GridSpec& spec);
  ~Decomposition();
  Decomposition(const Decomposition&) = delete;
  Decomposition& operator=(const Decomposition&) = delete;

  MPI_Comm comm() const { return cart_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int dimensions() const { return spec_.dimensions; }

  long global_cells(int axis) const { return spec_.cells[axis]; }
  long local_cells(int axis) const { return local_cells_[axis]; }
  long offset(int axis) const { return offset_[axis]; }
  int process_grid(int axis) const { return dims_[axis]; }
  int coordinate(int axis) const { return coords_[axis]; }
  // Halo width along an axis: zero along z for a 2-D grid.
  int halo(int axis) const { return axis < spec_.dimensions ? spec_.halo_width : 0; }
  bool periodic(int axis) const { return spec_.boundary[axis] == Boundary::periodic; }
  // Neighbour ranks; MPI_PROC_NULL across an open boundary.
  int lower_neighbour(int axis) const { return lower_[axis]; }
  int upper_neighbour(int axis) const { return upper_[axis]; }
  bool at_lower_boundary(int axis) const { return coords_[axis] == 0; }
  bool at_upper_boundary(int axis) const { return coords_[axis] == dims_[axis] - 1; }
  long local_cell_count() const { return local_cells_[0] * local_cells_[1] * local_cells_[2]; }
  long global_cell_count() const { return spec_.cells[0] * spec_.cells[1] * spec_.cells[2]; }
  const GridSpec& spec() const { return spec_; }

 private:
  GridSpec spec_;
  MPI_Comm cart_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::array<int, 3> dims_{1, 1, 1}, coords_{0, 0, 0}, lower_{}, upper_{};
  std::array<long, 3> local_cells_{1, 1, 1}, offset_{0, 0, 0};
};

// Splits n cells over parts as evenly as possible: the first n % parts get one more.
long block_size(long n, int parts, int index);
long block_offset(long n, int parts, int index);

}  // namespace meridian::mesh
