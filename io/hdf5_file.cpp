#include "io/hdf5_file.hpp"

#include <hdf5_hl.h>

#include <algorithm>
#include <numeric>

namespace meridian::io {

unsigned long long DatasetBox::local_values() const {
  unsigned long long n = complex ? 2 : 1;
  for (auto c : count) n *= c;
  return n;
}

namespace {

void check(herr_t status, const std::string& what, const std::string& path) {
  if (status < 0) throw FileError(path + ": HDF5 failed to " + what);
}

hid_t checked(hid_t id, const std::string& what, const std::string& path) {
  if (id < 0) throw FileError(path + ": HDF5 failed to " + what);
  return id;
}

// Closes an HDF5 handle at scope exit whatever its kind.
class Handle {
 public:
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() {
    if (id_ < 0) return;
    switch (H5Iget_type(id_)) {
      case H5I_DATASPACE: H5Sclose(id_); break;
      case H5I_GENPROP_LST: H5Pclose(id_); break;
      case H5I_DATATYPE: H5Tclose(id_); break;
      case H5I_ATTR: H5Aclose(id_); break;
      default: H5Oclose(id_); break;
    }
  }
  Handle(const Handle&) = delete;
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
};

hid_t access_list(MPI_Comm comm) {
  // HDF5's automatic error stack printing is replaced by exceptions that name the file.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  return fapl;
}

std::vector<hsize_t> file_extents(const DatasetBox& box) {
  std::vector<hsize_t> dims(box.global.begin(), box.global.end());
  if (box.complex) dims.push_back(2);
  return dims;
}

// Selects this rank's hyperslab (or nothing) in the file space; returns the matching memory space.
hid_t select_box(hid_t filespace, const DatasetBox& box) {
  std::vector<hsize_t> offset(box.offset.begin(), box.offset.end()), count(box.count.begin(), box.count.end());
  if (box.complex) offset.push_back(0), count.push_back(2);
  const hid_t memspace = H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr);
  if (box.local_values() == 0) {
    H5Sselect_none(filespace);
    H5Sselect_none(memspace);
  } else {
    H5Sselect_hyperslab(filespace, H5S_SELECT_SET, offset.data(), nullptr, count.data(), nullptr);
  }
  return memspace;
}

// An unlimited first dimension needs a chunked layout: one record of a field per chunk (split along its
// slowest axes while a chunk exceeds 64 MiB; HDF5 caps a chunk at 4 GiB), a series in chunks of 4096 values.
hid_t creation_list(const DatasetBox& box, const std::vector<hsize_t>& dims) {
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (box.fill_value) H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &*box.fill_value);
  // Every value is written right after creation. Parallel HDF5 would first write the fill value over the whole
  // dataset (a collective write and a barrier at creation), doubling what a field's output writes.
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  if (!box.unlimited) return dcpl;
  std::vector<hsize_t> chunk(dims);
  for (auto& c : chunk) c = std::max<hsize_t>(c, 1);
  chunk[0] = dims.size() > 1 ? 1 : std::min<hsize_t>(chunk[0], 4096);
  const auto bytes = [&chunk] { return std::accumulate(chunk.begin(), chunk.end(), hsize_t{8}, std::multiplies<>()); };
  for (std::size_t axis = 1; axis < chunk.size() && bytes() > (hsize_t{64} << 20); ++axis)
    while (chunk[axis] > 1 && bytes() > (hsize_t{64} << 20)) chunk[axis] = (chunk[axis] + 1) / 2;
  H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
  return dcpl;
}

hid_t transfer_list(H5FD_mpio_xfer_t mode) {
  const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, mode);
  return dxpl;
}

void write_attribute(hid_t file, const std::string& object, const std::string& name, hid_t type, const void* value,
                     const std::string& path) {
  Handle target(checked(H5Oopen(file, object.c_str(), H5P_DEFAULT), "open " + object, path));
  if (H5Aexists(target, name.c_str()) > 0) H5Adelete(target, name.c_str());
  Handle space(H5Screate(H5S_SCALAR));
  Handle attribute(checked(H5Acreate2(target, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                           "create attribute " + name, path));
  check(H5Awrite(attribute, type, value), "write attribute " + name, path);
}

}  // namespace

H5File H5File::create(const std::string& path, MPI_Comm comm) {
  Handle fapl(access_list(comm));
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (file < 0) throw FileError(path + ": cannot create the file (does the folder exist and is it writable?)");
  return H5File(file, path, comm);
}

H5File H5File::open_read(const std::string& path, MPI_Comm comm) {
  Handle fapl(access_list(comm));
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
  if (file < 0) throw FileError(path + ": cannot open as HDF5 (missing, truncated or not an HDF5 file)");
  return H5File(file, path, comm);
}

H5File::H5File(H5File&& other) noexcept : file_(other.file_), path_(std::move(other.path_)), comm_(other.comm_) {
  other.file_ = -1;
}

H5File::~H5File() {
  if (file_ >= 0 && std::uncaught_exceptions() <= exceptions_at_open_) H5Fclose(file_);
}

int H5File::rank_() const {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  return rank;
}

void H5File::write(const DatasetBox& box, const std::vector<double>& values) {
  write_values(box, values, H5FD_MPIO_COLLECTIVE);
}

void H5File::write_values(const DatasetBox& box, const std::vector<double>& values, H5FD_mpio_xfer_t mode) {
  if (values.size() != box.local_values())
    throw std::logic_error("dataset " + box.name + ": values do not match the box");
  const auto dims = file_extents(box);
  std::vector<hsize_t> limits(dims);
  if (box.unlimited) limits[0] = H5S_UNLIMITED;
  Handle filespace(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), limits.data()));
  // Names like "fields/q" create their groups on the way.
  Handle links(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(links, 1);
  Handle dcpl(creation_list(box, dims));
  Handle set(checked(H5Dcreate2(file_, box.name.c_str(), H5T_IEEE_F64LE, filespace, links, dcpl, H5P_DEFAULT),
                     "create dataset " + box.name, path_));
  Handle memspace(select_box(filespace, box));
  Handle dxpl(transfer_list(mode));
  if (mode == H5FD_MPIO_COLLECTIVE || box.local_values() > 0)
    check(H5Dwrite(set, H5T_NATIVE_DOUBLE, memspace, filespace, dxpl, values.data()), "write " + box.name,
          path_);
  if (!box.units.empty()) set_attribute("units", box.units, box.name);
  if (!box.long_name.empty()) set_attribute("long_name", box.long_name, box.name);
  if (!box.standard_name.empty()) set_attribute("standard_name", box.standard_name, box.name);
  if (box.fill_value) set_attribute("_FillValue", *box.fill_value, box.name);
}

void H5File::link(const std::string& name, const std::string& target) {
  Handle links(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(links, 1);
  check(H5Lcreate_soft(target.c_str(), file_, name.c_str(), links, H5P_DEFAULT), "link " + name + " to " + target,
        path_);
}

void H5File::make_dimension(const std::string& dataset, const std::string& dimension) {
  Handle set(checked(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), "open " + dataset, path_));
  check(H5DSset_scale(set, dimension.c_str()), "make " + dataset + " a dimension scale", path_);
}

void H5File::attach_dimension(const std::string& dataset, const std::string& scale, unsigned index) {
  Handle set(checked(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), "open " + dataset, path_));
  Handle dimension(checked(H5Dopen2(file_, scale.c_str(), H5P_DEFAULT), "open " + scale, path_));
  check(H5DSattach_scale(set, dimension, index), "attach " + scale + " to " + dataset, path_);
}

bool H5File::has_dataset(const std::string& name) const {
  return H5Lexists(file_, name.c_str(), H5P_DEFAULT) > 0;
}

std::vector<unsigned long long> H5File::extents(const std::string& name) const {
  if (!has_dataset(name)) throw FileError(path_ + ": has no dataset '" + name + "'");
  Handle set(checked(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), "open " + name, path_));
  Handle space(H5Dget_space(set));
  std::vector<hsize_t> dims(H5Sget_simple_extent_ndims(space));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  return {dims.begin(), dims.end()};
}

void H5File::read(HostDataset& into) {
  const DatasetBox& box = into.box;
  const auto expected = file_extents(box);
  const auto found = extents(box.name);
  if (std::vector<hsize_t>(found.begin(), found.end()) != expected)
    throw FileError(path_ + ": dataset '" + box.name + "' has other extents than this run expects");
  Handle set(checked(H5Dopen2(file_, box.name.c_str(), H5P_DEFAULT), "open " + box.name, path_));
  Handle filespace(H5Dget_space(set));
  Handle memspace(select_box(filespace, box));
  Handle dxpl(transfer_list(H5FD_MPIO_COLLECTIVE));
  into.values.assign(box.local_values(), 0.0);
  check(H5Dread(set, H5T_NATIVE_DOUBLE, memspace, filespace, dxpl, into.values.data()), "read " + box.name, path_);
}

void H5File::write_series(const std::string& name, const std::vector<double>& values, bool unlimited) {
  HostDataset series{DatasetBox{name, {values.size()}, {0}, {rank_() == 0 ? values.size() : 0}}, {}};
  series.box.unlimited = unlimited;
  if (rank_() == 0) series.values = values;
  // Rank 0 writes them alone: a collective write of them would cost every rank MPI-IO's two collective file-view
  // changes and its exchange, most of a small file's write where ranks share cores.
  write_values(series.box, series.values, H5FD_MPIO_INDEPENDENT);
}

std::vector<double> H5File::read_series(const std::string& name) {
  const auto dims = extents(name);
  HostDataset series{DatasetBox{name, dims, {0}, dims}, {}};
  read(series);
  return series.values;
}

void H5File::set_attribute(const std::string& name, double value, const std::string& object) {
  write_attribute(file_, object, name, H5T_NATIVE_DOUBLE, &value, path_);
}

void H5File::set_attribute(const std::string& name, long value, const std::string& object) {
  write_attribute(file_, object, name, H5T_NATIVE_LONG, &value, path_);
}

void H5File::set_attribute(const std::string& name, const std::string& value, const std::string& object) {
  Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type, value.empty() ? 1 : value.size());
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  write_attribute(file_, object, name, type, value.empty() ? "" : value.data(), path_);
}

bool H5File::has_attribute(const std::string& name, const std::string& object) const {
  return H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
}

namespace {
Handle open_attribute(const H5File& file, hid_t id, const std::string& name, const std::string& object) {
  if (!file.has_attribute(name, object))
    throw FileError(file.path() + ": " + object + " has no attribute '" + name + "'");
  return Handle(checked(H5Aopen_by_name(id, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
                        "open attribute " + name, file.path()));
}
}  // namespace

double H5File::real_attribute(const std::string& name, const std::string& object) const {
  Handle attribute = open_attribute(*this, file_, name, object);
  double value = 0;
  check(H5Aread(attribute, H5T_NATIVE_DOUBLE, &value), "read attribute " + name, path_);
  return value;
}

long H5File::integer_attribute(const std::string& name, const std::string& object) const {
  Handle attribute = open_attribute(*this, file_, name, object);
  long value = 0;
  check(H5Aread(attribute, H5T_NATIVE_LONG, &value), "read attribute " + name, path_);
  return value;
}

std::string H5File::string_attribute(const std::string& name, const std::string& object) const {
  Handle attribute = open_attribute(*this, file_, name, object);
  Handle type(H5Aget_type(attribute));
  if (H5Tget_class(type) != H5T_STRING) throw FileError(path_ + ": attribute '" + name + "' is not a string");
  std::string value(H5Tget_size(type), '\0');
  check(H5Aread(attribute, type, value.data()), "read attribute " + name, path_);
  return value.substr(0, value.find('\0'));
}

void H5File::flush() { check(H5Fflush(file_, H5F_SCOPE_GLOBAL), "flush", path_); }

void H5File::close() {
  if (file_ >= 0) {
    const herr_t status = H5Fclose(file_);
    file_ = -1;
    check(status, "close", path_);
  }
}

}  // namespace meridian::io
