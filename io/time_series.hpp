#pragma once
// Diagnostics over a run: named columns of scalars, one row per record, held whole on every rank.
#include <string>
#include <vector>

#include "io/hdf5_file.hpp"

namespace meridian::io {

class TimeSeries {
 public:
  // The first record fixes the column names; later records must carry the same ones. Units, when
  // given, are stored as each dataset's `units` attribute (a series read back takes them from the
  // next record).
  void append(const std::vector<std::string>& names, const std::vector<double>& values,
              const std::vector<std::string>& units = {});
  bool empty() const { return names_.empty() || columns_.front().empty(); }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<double>& column(const std::string& name) const;

  // Stored as one 1-D dataset per column under `group`, with the column names as an attribute.
  void write(H5File& file, const std::string& group) const;
  static TimeSeries read(H5File& file, const std::string& group);

 private:
  std::vector<std::string> names_, units_;
  std::vector<std::vector<double>> columns_;
};

}  // namespace meridian::io
