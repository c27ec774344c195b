#include "io/time_series.hpp"

#include <algorithm>
#include <sstream>

namespace meridian::io {

void TimeSeries::append(const std::vector<std::string>& names, const std::vector<double>& values,
                        const std::vector<std::string>& units) {
  if (names_.empty()) {
    names_ = names;
    columns_.assign(names.size(), {});
  }
  if (names != names_ || values.size() != names.size())
    throw std::logic_error("TimeSeries: a record with other columns than the first");
  if (units_.empty() && units.size() == names.size()) units_ = units;
  for (std::size_t i = 0; i < values.size(); ++i) columns_[i].push_back(values[i]);
}

const std::vector<double>& TimeSeries::column(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) throw std::out_of_range("TimeSeries: no column " + name);
  return columns_[it - names_.begin()];
}

void TimeSeries::write(H5File& file, const std::string& group) const {
  std::string joined;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    file.write_series(group + "/" + names_[i], columns_[i], true);
    if (i < units_.size() && !units_[i].empty()) file.set_attribute("units", units_[i], group + "/" + names_[i]);
    joined += (i ? "," : "") + names_[i];
  }
  if (!names_.empty()) file.set_attribute("columns", joined, group);
}

TimeSeries TimeSeries::read(H5File& file, const std::string& group) {
  TimeSeries series;
  if (!file.has_dataset(group)) return series;
  std::istringstream joined(file.string_attribute("columns", group));
  std::string name;
  while (std::getline(joined, name, ',')) {
    series.names_.push_back(name);
    series.columns_.push_back(file.read_series(group + "/" + name));
  }
  return series;
}

}  // namespace meridian::io
