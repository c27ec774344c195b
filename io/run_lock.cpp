#include "io/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

namespace meridian::io {
namespace {

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

std::string owner_line() { return host_name() + " " + std::to_string(::getpid()) + "\n"; }

// "host PID" from a lock file, or empty.
std::string owner_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string held_by(const std::string& folder, const std::string& owner) {
  return folder + ": the output folder is in use by another run (" +
         (owner.empty() ? std::string("owner unknown") : "host and PID " + owner) +
         "); give this run another --output or wait for that one to end";
}

// The owner's note serves only the message a second run prints: the lock holds without it.
void write_owner(int fd) {
  const std::string line = owner_line();
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, line.data(), line.size(), 0);
}

// Whether the owner named in a lock file is a process of this host that no longer exists.
bool owner_is_gone(const std::string& owner) {
  std::istringstream in(owner);
  std::string host;
  long pid = 0;
  if (!(in >> host >> pid) || host != host_name() || pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

RunLock::RunLock(const std::string& folder) : path_(folder + "/.meridian.lock") {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw LockError(folder + ": cannot create the lock file " + path_ + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) {
    write_owner(fd_);
    return;
  }
  const int error = errno;
  ::close(fd_);
  fd_ = -1;
  if (error == EWOULDBLOCK) throw LockError(held_by(folder, owner_of(path_)));
  // No working flock here: the lock is the exclusive creation of a second file.
  exclusive_file_ = true;
  path_ = folder + "/.meridian.lock.exclusive";
  for (int attempt = 0; attempt < 2; ++attempt) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ >= 0) {
      write_owner(fd_);
      return;
    }
    const std::string owner = owner_of(path_);
    if (errno != EEXIST || !owner_is_gone(owner)) throw LockError(held_by(folder, owner));
    ::unlink(path_.c_str());  // a dead run's: taken over
  }
  throw LockError(held_by(folder, owner_of(path_)));
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  if (exclusive_file_) ::unlink(path_.c_str());
  ::close(fd_);  // releases the flock
}

RunLock::RunLock(RunLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), exclusive_file_(other.exclusive_file_) {}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    this->~RunLock();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    exclusive_file_ = other.exclusive_file_;
  }
  return *this;
}

}  // namespace meridian::io
