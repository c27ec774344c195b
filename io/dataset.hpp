#pragma once
// What a solver hands to io/: named global datasets, each rank holding one box of it.
// io/ knows nothing else about a solver's state.
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace meridian::io {

// Uniform grid geometry of a field dataset, for XDMF and the netCDF/CF coordinates (axis order x, y, z).
struct Geometry {
  int dimensions = 2;
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};
  std::array<std::string, 3> axis_names{"x", "y", "z"};  // the coordinate variables' names
  std::string length_units = "1";                        // the coordinates' units
  int vertical_axis = -1;  // the axis that points up (CF axis Z, positive up), or none
};

// CF's default fill value for doubles (netCDF's NC_FILL_DOUBLE), for cells where a field is undefined.
inline constexpr double cf_fill_value = 9.9692099683868690e+36;

struct DatasetBox {
  std::string name;
  std::vector<unsigned long long> global;  // global extents, slowest index first (C order)
  std::vector<unsigned long long> offset;  // this rank's first index
  std::vector<unsigned long long> count;   // this rank's extents (may be zero)
  bool complex = false;                    // stored with a trailing dimension of 2 (real, imaginary)
  std::string units;
  std::optional<Geometry> geometry;        // set for cell-centred fields on a uniform grid
  std::string long_name, standard_name;    // CF attributes, written where not empty
  std::optional<double> fill_value;        // CF _FillValue, where a value can be undefined
  bool unlimited = false;                  // the first dimension may grow (netCDF's unlimited; chunked)
  unsigned long long local_values() const;
};

// What a solver's time is: CF time (`seconds since` an epoch, a calendar CDO and xarray decode), or a
// quantity with units and a long_name of its own (Monte Carlo: the fraction of the paths done).
struct TimeAxis {
  std::string units = "seconds since 2000-01-01 00:00:00";
  std::string long_name = "time";
  bool calendar = true;  // CF time: standard_name time, calendar standard
};

struct HostDataset {
  DatasetBox box;
  std::vector<double> values;  // C order over `count` (times 2 when complex)
};

}  // namespace meridian::io
