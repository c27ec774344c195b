#pragma once
// XDMF sidecar describing a time series of HDF5 field files, so ParaView and VisIt open them.
#include <string>
#include <vector>

#include "io/dataset.hpp"

namespace meridian::io {

struct XdmfStep {
  std::string file;  // relative to the XDMF file
  double time = 0;
};

// Writes (serially, one rank) a temporal collection of uniform grids; every step holds the same fields.
void write_xdmf(const std::string& path, const std::vector<XdmfStep>& steps, const std::vector<DatasetBox>& fields);

}  // namespace meridian::io
