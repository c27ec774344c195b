#pragma once
// The attributes every Meridian HDF5 file carries, so a file says what made it and how to read it.
#include <string>

#include "io/hdf5_file.hpp"

namespace meridian::io {

// Bumped whenever the layout of output or checkpoint files changes incompatibly.
inline constexpr long format_version = 2;  // 2: Monte Carlo checkpoints hold moments, not sums

struct FileStamp {
  std::string solver;  // [solver] kind
  std::string deck;    // the resolved deck, TOML
  double time = 0;     // simulated time
  long step = 0;
};

void write_stamp(H5File& file, const FileStamp& stamp);
// Reads a stamp back; a file without one, or of another format version, is an error naming it.
FileStamp read_stamp(const H5File& file);

}  // namespace meridian::io
