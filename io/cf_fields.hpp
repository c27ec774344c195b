#pragma once
// Field files as netCDF-4 with CF conventions (CF-1.10), so that xarray, CDO, NCO, ncview and Panoply read them
// as they are: the gridded fields are root variables over (time, [z,] y, x), with one unlimited `time` of one
// record and coordinate variables at the cell centres, all HDF5 dimension scales (netCDF-4's dimensions). The
// root holds them because netCDF tools see no coordinates across groups and CDO reads no groups at all;
// `fields/<name>` stays, a soft link to `/<name>`, for h5py paths written against the earlier layout. Datasets
// without a grid (spectra, Monte Carlo results) are written where their names say, as before.
#include <string>
#include <vector>

#include "io/dataset.hpp"
#include "io/hdf5_file.hpp"

namespace meridian::io {

// The CF root attributes (Conventions) and the `time` coordinate of one record. Collective.
void write_cf_time(H5File& file, const TimeAxis& axis, double time);
// Writes every dataset of `fields`: the gridded ones (a Geometry, not complex; all on one grid, else
// std::logic_error) as CF variables with a leading time dimension, their coordinates and the links; the rest
// as they are. Call after write_cf_time. Collective.
void write_cf_fields(H5File& file, const std::vector<HostDataset>& fields);
// Makes the series `group/time` (written unlimited, as TimeSeries::write does) the CF time of `axis` and the
// dimension of every series `group/<name>`, so that each reads as a series over time. Collective.
void attach_series_to_time(H5File& file, const std::string& group, const std::vector<std::string>& names,
                           const TimeAxis& axis);

}  // namespace meridian::io
