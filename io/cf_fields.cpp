#include "io/cf_fields.hpp"

#include <stdexcept>

namespace meridian::io {

namespace {

bool gridded(const DatasetBox& box) { return box.geometry && !box.complex; }

std::string basename(const std::string& name) { return name.substr(name.rfind('/') + 1); }

void set_cf_time_attributes(H5File& file, const std::string& name, const TimeAxis& axis) {
  file.set_attribute("units", axis.units, name);
  file.set_attribute("long_name", axis.long_name, name);
  file.set_attribute("axis", std::string("T"), name);
  if (axis.calendar) {
    file.set_attribute("standard_name", std::string("time"), name);
    file.set_attribute("calendar", std::string("standard"), name);
  }
}

// The cell centres along `axis` of the grid of `box` (dimension `axis` counts from the fastest, x).
void write_coordinate(H5File& file, const DatasetBox& box, int axis) {
  const Geometry& g = *box.geometry;
  const std::string& name = g.axis_names[static_cast<std::size_t>(axis)];
  const auto cells = box.global[box.global.size() - 1 - static_cast<std::size_t>(axis)];
  std::vector<double> centres(cells);
  for (unsigned long long i = 0; i < cells; ++i)
    centres[i] = g.origin[static_cast<std::size_t>(axis)] + (static_cast<double>(i) + 0.5) * g.spacing[static_cast<std::size_t>(axis)];
  file.write_series(name, centres);
  file.set_attribute("units", g.length_units, name);
  const bool up = axis == g.vertical_axis;
  const char* cf_axis = up ? "Z" : axis == 0 ? "X" : axis == 1 ? "Y" : "Z";
  file.set_attribute("axis", std::string(cf_axis), name);
  file.set_attribute("long_name", (up ? "height of the cell centres" : name + " of the cell centres"), name);
  if (up) file.set_attribute("positive", std::string("up"), name);
  file.make_dimension(name, name);
}

// A gridded field as a root variable over (time, [z,] y, x), its grid attributes, dimensions and link.
void write_variable(H5File& file, const HostDataset& field) {
  DatasetBox box = field.box;
  box.name = basename(field.box.name);
  box.global.insert(box.global.begin(), 1);
  box.offset.insert(box.offset.begin(), 0);
  box.count.insert(box.count.begin(), 1);
  box.unlimited = true;
  file.write(box, field.values);
  const Geometry& g = *box.geometry;
  for (int axis = 0; axis < g.dimensions; ++axis) {
    const std::string axis_name(1, "xyz"[axis]);
    file.set_attribute("origin_" + axis_name, g.origin[static_cast<std::size_t>(axis)], box.name);
    file.set_attribute("spacing_" + axis_name, g.spacing[static_cast<std::size_t>(axis)], box.name);
  }
  file.attach_dimension(box.name, "time", 0);
  for (int axis = 0; axis < g.dimensions; ++axis)
    file.attach_dimension(box.name, g.axis_names[static_cast<std::size_t>(axis)], static_cast<unsigned>(g.dimensions - axis));
  if (field.box.name != box.name) file.link(field.box.name, "/" + box.name);
}

}  // namespace

void write_cf_time(H5File& file, const TimeAxis& axis, double time) {
  file.set_attribute("Conventions", std::string("CF-1.10"));
  file.write_series("time", {time}, true);
  set_cf_time_attributes(file, "time", axis);
  file.make_dimension("time", "time");
}

void write_cf_fields(H5File& file, const std::vector<HostDataset>& fields) {
  const DatasetBox* grid = nullptr;
  for (const auto& f : fields) {
    if (!gridded(f.box)) {
      file.write(f);
      continue;
    }
    if (!grid) {
      grid = &f.box;
      for (int axis = 0; axis < grid->geometry->dimensions; ++axis) write_coordinate(file, *grid, axis);
    } else if (f.box.global != grid->global) {
      throw std::logic_error("write_cf_fields: " + f.box.name + " lies on another grid than " + grid->name);
    }
    write_variable(file, f);
  }
}

void attach_series_to_time(H5File& file, const std::string& group, const std::vector<std::string>& names,
                           const TimeAxis& axis) {
  const std::string time = group + "/time";
  if (!file.has_dataset(time)) return;
  set_cf_time_attributes(file, time, axis);
  file.make_dimension(time, "time");
  for (const auto& name : names)
    if (name != "time") file.attach_dimension(group + "/" + name, time, 0);
}

}  // namespace meridian::io
