#include "solver/db/directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace kalah {

DirectoryLock::DirectoryLock(const std::filesystem::path& dir, const std::string& activity) {
  const std::filesystem::path file = dir / ".lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error(file.string() + ": cannot be opened: " + std::generic_category().message(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder;
    char buf[32] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) holder += buf[i];
    ::close(fd_);
    if (err == EWOULDBLOCK)
      throw DirectoryBusy(dir.string() + ": another " + activity + " is running in this directory (" +
                          (holder.empty() ? std::string() : "pid " + holder + " ") + "holds its lock " + file.string() +
                          "); run this " + activity + " again when it has finished");
    throw std::runtime_error(file.string() + ": cannot be locked: " + std::generic_category().message(err));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The pid is only informative: the lock holds without it.
  }
}

DirectoryLock::~DirectoryLock() {
  if (::ftruncate(fd_, 0) != 0) {
    // A stale pid is only shown in a refusal while a later holder has the lock.
  }
  ::close(fd_);
}

}  // namespace kalah
