// testing/run_cli.hpp — run the built `kalah` binary from a test and capture its
// stdout, stderr and exit code (for CLI and bad-input tests).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kalah::test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Run `<prefix> kalah <args>` through the shell (prefix e.g. "timeout -s INT 1"); args is
// pasted as is (quote it yourself).
inline CliResult run_kalah_after(const std::string& prefix, const std::string& args) {
  static int counter = 0;
  const std::string base = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/kalah_cli_" +
                           std::to_string(::getpid()) + "_" + std::to_string(counter++);
  const std::string cmd = prefix + " " + KALAH_BINARY + " " + args + " >" + base + ".out 2>" + base + ".err";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// Run `kalah <args>` through the shell; args is pasted as is (quote it yourself).
inline CliResult run_kalah(const std::string& args) { return run_kalah_after("", args); }

// The integer after `"key":` in a one-line JSON object (enough for flat integer keys; the
// first occurrence counts). Throws std::invalid_argument when the key is absent.
inline int json_int(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  if (at == std::string::npos) throw std::invalid_argument("no key " + key + " in " + json);
  return std::stoi(json.substr(at + key.size() + 3));
}

}  // namespace kalah::test
