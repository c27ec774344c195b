#include "io/durable_rename.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "io/hdf5_file.hpp"

namespace meridian::io {
namespace {
void sync(const std::filesystem::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) throw FileError(path.string() + ": cannot open to sync: " + std::strerror(errno));
  const int status = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  // Some file systems cannot sync a folder (EINVAL); the rename itself is still atomic there.
  if (status != 0 && error != EINVAL) throw FileError(path.string() + ": sync failed: " + std::strerror(error));
}
}  // namespace

void durable_rename(const std::filesystem::path& from, const std::filesystem::path& to) {
  sync(from, O_RDONLY);
  std::error_code error;
  std::filesystem::rename(from, to, error);
  if (error) throw FileError(from.string() + " -> " + to.string() + ": rename failed: " + error.message());
  sync(to.parent_path().empty() ? "." : to.parent_path(), O_RDONLY | O_DIRECTORY);
}

}  // namespace meridian::io
