#include "solver/db/directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <system_error>
#include <thread>
#include <utility>

namespace kalah {

namespace {

// The holder's pid and activity as it wrote them ("PID ACTIVITY\n"); empty where unknown.
std::pair<std::string, std::string> read_holder(int fd) {
  char buf[256] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid, activity;
  ssize_t i = 0;
  for (; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) pid += buf[i];
  if (i < n && buf[i] == ' ')
    for (++i; i < n && buf[i] >= ' ' && buf[i] <= '~'; ++i) activity += buf[i];
  return {pid, activity};
}

}  // namespace

std::string DirectoryLock::holder_activity(const std::filesystem::path& dir) {
  const int fd = ::open((dir / ".lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string activity = read_holder(fd).second;
  ::close(fd);
  return activity;
}

bool DirectoryLock::held_elsewhere(const std::filesystem::path& dir) {
  const int fd = ::open((dir / ".lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases the lock if it was taken
  return held;
}

DirectoryLock::DirectoryLock(const std::filesystem::path& dir, const std::string& activity, double wait_seconds) {
  const std::filesystem::path file = dir / ".lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error(file.string() + ": cannot be opened: " + std::generic_category().message(errno));
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_seconds);
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const auto [holder, holder_activity] = read_holder(fd_);
    ::close(fd_);
    if (err == EWOULDBLOCK)
      throw DirectoryBusy(
          dir.string() + ": " +
          (holder_activity.empty() || holder_activity == activity ? "another " + activity : holder_activity) +
          " is running in this directory (" + (holder.empty() ? std::string() : "pid " + holder + " ") +
          "holds its lock " + file.string() + "); run this " + activity + " again when it has finished");
    throw std::runtime_error(file.string() + ": cannot be locked: " + std::generic_category().message(err));
  }
  const std::string pid = std::to_string(::getpid()) + " " + activity + "\n";
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
