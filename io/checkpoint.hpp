#pragma once
// Checkpoints: one HDF5 file of global datasets per checkpoint, written to a temporary name,
// flushed, closed and only then renamed, so a crash mid-write never leaves a broken newest file.
// A checksum over the state (independent of the rank count) is checked on every read.
#include <functional>
#include <string>
#include <vector>

#include "io/file_stamp.hpp"
#include "io/hdf5_file.hpp"

namespace meridian::io {

class CheckpointStore {
 public:
  CheckpointStore(std::string directory, int keep, MPI_Comm comm);

  // Writes the state datasets and whatever else `extra` adds (run bookkeeping), then renames the
  // file into place and removes all but the newest `keep` checkpoints. Collective. Returns the path.
  std::string write(const FileStamp& stamp, const std::vector<HostDataset>& state,
                    const std::function<void(H5File&)>& extra) const;

  // "latest" (the newest checkpoint in the directory) or a path; an error when there is none.
  std::string resolve(const std::string& which) const;
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  int keep_;
  MPI_Comm comm_;
};

// Reads a checkpoint's state into the boxes given (any rank count) and verifies its checksum.
void read_checkpoint_state(H5File& file, std::vector<HostDataset>& state, MPI_Comm comm);

}  // namespace meridian::io
