#pragma once
// Parallel HDF5 files of global datasets: every call here is collective over the communicator.
// Each rank writes or reads its own hyperslab, so a file written on N ranks reads back on M.
#include <hdf5.h>
#include <mpi.h>

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/dataset.hpp"

namespace meridian::io {

class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class H5File {
 public:
  static H5File create(const std::string& path, MPI_Comm comm);
  static H5File open_read(const std::string& path, MPI_Comm comm);
  ~H5File();
  H5File(H5File&& other) noexcept;
  H5File& operator=(H5File&&) = delete;
  H5File(const H5File&) = delete;

  void write(const HostDataset& dataset) { write(dataset.box, dataset.values); }
  // The same, for values held apart from their box (no copy of them).
  void write(const DatasetBox& box, const std::vector<double>& values);
  // Reads the box of `into.box` from the dataset of that name; the global extents must match.
  void read(HostDataset& into);
  bool has_dataset(const std::string& name) const;
  std::vector<unsigned long long> extents(const std::string& name) const;

  // A soft link `name` (its groups created on the way) to the object at the absolute path `target`.
  void link(const std::string& name, const std::string& target);
  // Makes a dataset a netCDF-4 dimension (an HDF5 dimension scale named `dimension`), and attaches such a scale
  // to dimension `index` of a dataset (H5DS; collective in parallel HDF5, as every call here).
  void make_dimension(const std::string& dataset, const std::string& dimension);
  void attach_dimension(const std::string& dataset, const std::string& scale, unsigned index);

  // A 1-D series held whole on every rank (diagnostics); only rank 0's copy is written.
  void write_series(const std::string& name, const std::vector<double>& values, bool unlimited = false);
  std::vector<double> read_series(const std::string& name);

  // Attributes on the file's root group (object "/") or on a dataset.
  void set_attribute(const std::string& name, double value, const std::string& object = "/");
  void set_attribute(const std::string& name, long value, const std::string& object = "/");
  void set_attribute(const std::string& name, const std::string& value, const std::string& object = "/");
  bool has_attribute(const std::string& name, const std::string& object = "/") const;
  double real_attribute(const std::string& name, const std::string& object = "/") const;
  long integer_attribute(const std::string& name, const std::string& object = "/") const;
  std::string string_attribute(const std::string& name, const std::string& object = "/") const;

  void flush();
  void close();
  const std::string& path() const { return path_; }

 private:
  H5File(hid_t file, std::string path, MPI_Comm comm) : file_(file), path_(std::move(path)), comm_(comm) {}
  hid_t file_ = -1;
  // Exceptions in flight when the file was opened: a destructor that sees more is unwinding from a
  // failure that the other ranks may not share, and leaves the collective close undone (the job is
  // aborted next) rather than wait forever in it.
  int exceptions_at_open_ = std::uncaught_exceptions();
  std::string path_;
  MPI_Comm comm_;
  int rank_() const;
  // Creates the dataset (collective) and writes the values, every rank together or (independent) each rank
  // that holds some alone.
  void write_values(const DatasetBox& box, const std::vector<double>& values, H5FD_mpio_xfer_t mode);
};

}  // namespace meridian::io
