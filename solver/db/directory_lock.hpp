// solver/db/directory_lock.hpp — one writer a directory: an exclusive flock on DIR/.lock.
//
// A database build and a proof job each hold their directory's lock from start to end, so a
// second writer is refused before it touches anything. The kernel drops the lock when the
// process ends, however it ends (kill -9 included): a stale lock file is harmless and is never
// deleted. The holder's pid and activity ("PID ACTIVITY") are written into the file, only for
// the refusal message and kalah job status.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace kalah {

// The directory is locked by another process (`holder_pid`: its pid as it wrote it, or empty).
struct DirectoryBusy : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class DirectoryLock {
 public:
  // Locks DIR/.lock without waiting. `activity` names the work for the refusal, e.g.
  // "kalah db build"; the refusal reads "DIR: another <activity> is running in this directory
  // (pid P holds its lock DIR/.lock); run this <activity> again when it has finished", or
  // names the holder's activity instead of "another <activity>" when it is another.
  // Throws DirectoryBusy when another process holds the lock, std::runtime_error when the lock
  // file cannot be opened or locked.
  // wait_seconds: retry that long before refusing (a reader that probes the lock, like
  // kalah job status, holds it for an instant).
  DirectoryLock(const std::filesystem::path& dir, const std::string& activity, double wait_seconds = 0);
  // Whether another process holds DIR/.lock now. Takes it for an instant and writes nothing
  // (false when there is no lock file).
  static bool held_elsewhere(const std::filesystem::path& dir);
  // The activity the last holder of DIR/.lock wrote (empty: none, or none written).
  static std::string holder_activity(const std::filesystem::path& dir);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace kalah
