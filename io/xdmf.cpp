#include "io/xdmf.hpp"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace meridian::io {
namespace {

std::string dims_text(const std::vector<unsigned long long>& dims) {
  std::ostringstream out;
  for (std::size_t i = 0; i < dims.size(); ++i) out << (i ? " " : "") << dims[i];
  return out.str();
}

// XDMF lists geometry in the dataset's index order (z, y, x): slowest first.
std::string reversed(const std::array<double, 3>& v, int dimensions) {
  std::ostringstream out;
  out << std::setprecision(17);
  for (int axis = dimensions - 1; axis >= 0; --axis) out << v[axis] << (axis ? " " : "");
  return out.str();
}

void write_grid(std::ostream& out, const XdmfStep& step, const std::vector<DatasetBox>& fields) {
  const Geometry& g = *fields.front().geometry;
  const std::vector<unsigned long long> cells(fields.front().global.end() - g.dimensions, fields.front().global.end());
  std::vector<unsigned long long> nodes(cells);
  for (auto& n : nodes) ++n;
  const char* topology = g.dimensions == 3 ? "3DCoRectMesh" : "2DCoRectMesh";
  const char* geometry = g.dimensions == 3 ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY";
  out << "      <Grid Name=\"mesh\" GridType=\"Uniform\">\n"
      << "        <Time Value=\"" << std::setprecision(17) << step.time << "\"/>\n"
      << "        <Topology TopologyType=\"" << topology << "\" Dimensions=\"" << dims_text(nodes) << "\"/>\n"
      << "        <Geometry GeometryType=\"" << geometry << "\">\n"
      << "          <DataItem Format=\"XML\" Dimensions=\"" << g.dimensions << "\">" << reversed(g.origin, g.dimensions)
      << "</DataItem>\n"
      << "          <DataItem Format=\"XML\" Dimensions=\"" << g.dimensions << "\">"
      << reversed(g.spacing, g.dimensions) << "</DataItem>\n"
      << "        </Geometry>\n";
  for (const auto& f : fields) {
    const std::string name = f.name.substr(f.name.rfind('/') + 1);
    // The variable is the field's one record over (time, [z,] y, x) (io/cf_fields.hpp): a hyperslab of it.
    std::vector<unsigned long long> record(cells), start(cells.size() + 1, 0), stride(cells.size() + 1, 1);
    record.insert(record.begin(), 1);
    out << "        <Attribute Name=\"" << name << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
        << "          <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << dims_text(cells) << "\">\n"
        << "            <DataItem Format=\"XML\" Dimensions=\"3 " << record.size() << "\">" << dims_text(start) << " "
        << dims_text(stride) << " " << dims_text(record) << "</DataItem>\n"
        << "            <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"8\" Dimensions=\""
        << dims_text(record) << "\">" << step.file << ":/" << name << "</DataItem>\n"
        << "          </DataItem>\n"
        << "        </Attribute>\n";
  }
  out << "      </Grid>\n";
}

}  // namespace

void write_xdmf(const std::string& path, const std::vector<XdmfStep>& steps, const std::vector<DatasetBox>& fields) {
  std::vector<DatasetBox> gridded;
  for (const auto& f : fields)
    if (f.geometry && !f.complex) gridded.push_back(f);
  if (gridded.empty()) return;
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    out << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n"
        << "    <Grid Name=\"time series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    for (const auto& step : steps) write_grid(out, step, gridded);
    out << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  }
  std::rename(temporary.c_str(), path.c_str());
}

}  // namespace meridian::io
