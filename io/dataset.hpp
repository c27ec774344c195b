#pragma once
// What a solver hands to io/: named global datasets, each rank holding one box of it.
// io/ knows nothing else about a solver's state.
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace meridian::io {

// Uniform grid geometry of a field dataset, for XDMF (axis order x, y, z).
struct Geometry {
  int dimensions = 2;
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};
};

struct DatasetBox {
  std::string name;
  std::vector<unsigned long long> global;  // global extents, slowest index first (C order)
  std::vector<unsigned long long> offset;  // this rank's first index
  std::vector<unsigned long long> count;   // this rank's extents (may be zero)
  bool complex = false;                    // stored with a trailing dimension of 2 (real, imaginary)
  std::string units;
  std::optional<Geometry> geometry;        // set for cell-centred fields on a uniform grid
  unsigned long long local_values() const;
};

struct HostDataset {
  DatasetBox box;
  std::vector<double> values;  // C order over `count` (times 2 when complex)
};

}  // namespace meridian::io
