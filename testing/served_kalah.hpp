// testing/served_kalah.hpp — `kalah serve` run from a test: started on a free port, its
// first line (where it listens) read, stopped with a signal and its exit status returned.
#pragma once

#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace kalah::test {

inline std::string read_line(FILE* f) {
  std::string line;
  for (int c = std::fgetc(f); c != EOF && c != '\n'; c = std::fgetc(f)) line += static_cast<char>(c);
  return line;
}

class ServedKalah {
 public:
  // Runs `kalah serve --port 0 <args>` (stderr merged into what is read).
  explicit ServedKalah(const std::string& args) {
    // The shell prints its pid and becomes kalah (exec), so the pid is the server's.
    const std::string cmd = std::string("sh -c 'echo $$; exec ") + KALAH_BINARY + " serve --port 0 " + args + " 2>&1'";
    f_ = ::popen(cmd.c_str(), "r");
    if (!f_) throw std::runtime_error("popen failed");
    pid_ = static_cast<pid_t>(std::stol(read_line(f_)));
    listening_ = read_line(f_);
    const std::string prefix = "kalah serve: listening on http://127.0.0.1:";
    if (listening_.rfind(prefix, 0) == 0) port_ = std::stoi(listening_.substr(prefix.size()));
  }
  ~ServedKalah() {
    if (f_) stop(SIGTERM);
  }
  ServedKalah(const ServedKalah&) = delete;
  ServedKalah& operator=(const ServedKalah&) = delete;

  const std::string& listening() const { return listening_; }  // its first line
  int port() const { return port_; }                           // 0: it did not say it listens
  // Sends `signal`; returns the line it printed next and sets *exit_code (-1: killed).
  std::string stop(int signal = SIGINT, int* exit_code = nullptr) {
    ::kill(pid_, signal);
    const std::string line = read_line(f_);
    const int status = ::pclose(f_);
    f_ = nullptr;
    if (exit_code) *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return line;
  }

 private:
  FILE* f_ = nullptr;
  pid_t pid_ = 0;
  int port_ = 0;
  std::string listening_;
};

}  // namespace kalah::test
