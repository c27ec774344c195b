#pragma once
// A run owns its output folder: rank 0 holds a lock on FOLDER/.meridian.lock for the run's life, with
// its host and PID in the file, so a second run started on the same folder stops at once instead of
// mixing its files with the first one's. The lock is an flock, which the kernel drops when a run dies,
// so a stale lock file is simply taken over; where the file system has no working flock (some Lustre
// mounts) an exclusively created lock file serves, taken over when its owner's PID on this host is gone.
#include <stdexcept>
#include <string>

namespace meridian::io {

// The folder is locked by another live run (or cannot be locked): names the folder and the owner.
class LockError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunLock {
 public:
  RunLock() = default;
  explicit RunLock(const std::string& folder);  // throws LockError
  ~RunLock();
  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
  bool exclusive_file_ = false;  // the no-flock fallback: the file is removed on release
};

}  // namespace meridian::io
