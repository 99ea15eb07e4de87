// kalah serve from the command line: it says where it listens (a free port with --port 0),
// answers the API and the page there, refuses bad options with exit 2, and stops on Ctrl-C
// with exit 130.
#include "testing/catch.hpp"

#include <httplib.h>
#include <signal.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "testing/run_cli.hpp"

using kalah::test::run_kalah;

namespace {

std::string read_line(FILE* f) {
  std::string line;
  for (int c = std::fgetc(f); c != EOF && c != '\n'; c = std::fgetc(f)) line += static_cast<char>(c);
  return line;
}

}  // namespace

TEST_CASE("cli serve: listens where it says, answers, and stops on Ctrl-C", "[cli][serve]") {
  // The shell prints its pid and becomes kalah (exec), so the pid is the server's.
  const std::string cmd = std::string("sh -c 'echo $$; exec ") + KALAH_BINARY +
                          " serve --port 0 --threads 2 --tt-memory 16M --max-seconds 10 2>&1'";
  FILE* f = ::popen(cmd.c_str(), "r");
  REQUIRE(f);
  const pid_t pid = static_cast<pid_t>(std::stol(read_line(f)));
  const std::string listening = read_line(f);
  INFO(listening);
  const std::string prefix = "kalah serve: listening on http://127.0.0.1:";
  REQUIRE(listening.rfind(prefix, 0) == 0);
  const int port = std::stoi(listening.substr(prefix.size()));
  CHECK(listening.find("no database") != std::string::npos);
  {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(60, 0);
    const auto res = client.Get("/api/v1/solve?pits=4&seeds=3");
    REQUIRE(res);
    CHECK(res->status == 200);
    const auto j = nlohmann::json::parse(res->body);
    CHECK(j["value"] == 6);  // Kalah(4,3) standard: South wins by 6, as kalah solve says
    CHECK(j["moves"][0]["pit"] == 2);
    const auto page = client.Get("/");
    REQUIRE(page);
    CHECK(page->status == 200);
  }
  ::kill(pid, SIGINT);
  CHECK(read_line(f) == "kalah serve: stopped");
  const int status = ::pclose(f);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);

  for (const char* bad : {"serve --port 70000", "serve --max-seconds 0", "serve --threads -1", "serve --db-seeds 200",
                          "serve --tt-memory lots", "serve --bogus"}) {
    INFO(bad);
    const auto r = run_kalah(bad);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find('\n') == r.err.size() - 1);
  }
  const auto missing = run_kalah("serve --port 0 --db /nonexistent/kalah-db");
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("/nonexistent/kalah-db") != std::string::npos);
}
