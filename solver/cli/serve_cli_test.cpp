// kalah serve from the command line: it says where it listens (a free port with --port 0),
// answers the API and the page there, refuses bad options with exit 2, and stops on Ctrl-C
// with exit 130.
#include "testing/catch.hpp"

#include <httplib.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <string>

#include "testing/run_cli.hpp"
#include "testing/served_kalah.hpp"

using kalah::test::run_kalah;

TEST_CASE("cli serve: listens where it says, answers, and stops on Ctrl-C", "[cli][serve]") {
  kalah::test::ServedKalah server("--threads 2 --tt-memory 16M --near-table 64K --max-seconds 10");
  INFO(server.listening());
  REQUIRE(server.port() > 0);
  CHECK(server.listening().find("no database") != std::string::npos);
  {
    httplib::Client client("127.0.0.1", server.port());
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
  int exit_code = 0;
  CHECK(server.stop(SIGINT, &exit_code) == "kalah serve: stopped");
  CHECK(exit_code == 130);

  for (const char* bad :
       {"serve --port 70000", "serve --max-seconds 0", "serve --threads -1", "serve --db-seeds 200", "serve --queue 0",
        "serve --tt-memory lots", "serve --near-table lots", "serve --near-table 2T", "serve --bogus"}) {
    INFO(bad);
    const auto r = run_kalah(bad);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find('\n') == r.err.size() - 1);
  }
  const auto missing = run_kalah("serve --port 0 --db /nonexistent/kalah-db");
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("/nonexistent/kalah-db") != std::string::npos);
}
