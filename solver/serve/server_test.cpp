// The explorer over HTTP (solver/serve): a server on a free port of 127.0.0.1 answers with
// the reference solver's values for every value rule set (with and without a database),
// holds bounds past its budget, refuses bad input with 400 and a one-line reason, unknown
// paths with 404, other methods with 405, never serves a file, and answers concurrent
// requests exactly, also past its connection wait list and while a rule set's sessions
// are made.
#include "testing/catch.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "engine/game.hpp"
#include "solver/db/store.hpp"
#include "solver/reference/reference_solver.hpp"
#include "solver/serve/explorer.hpp"
#include "solver/serve/server.hpp"
#include "testing/database_files.hpp"
#include "testing/positions.hpp"
#include "testing/rule_sets.hpp"
#include "testing/scratch_dir.hpp"

using namespace kalah;
using Json = nlohmann::json;

namespace {

// A server of `explorer` on a free port, stopped at the end of the scope.
class Running {
 public:
  explicit Running(serve::Explorer& explorer, int threads = 8, int queue = 64) : server_(explorer, threads, queue) {
    port_ = server_.bind("127.0.0.1", 0);
    thread_ = std::thread([this] { server_.run(); });
  }
  ~Running() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  const serve::HttpServer& http() const { return server_; }

 private:
  serve::HttpServer server_;
  int port_ = 0;
  std::thread thread_;
};

struct Reply {
  int status = 0;
  Json body;
  std::string text;
  std::string content_type;
};

Reply get(int port, const std::string& target) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(60, 0);
  const auto res = client.Get(target.c_str());
  REQUIRE(res);
  Reply r;
  r.status = res->status;
  r.text = res->body;
  r.content_type = res->get_header_value("Content-Type");
  if (r.content_type.rfind("application/json", 0) == 0) r.body = Json::parse(res->body);
  return r;
}

std::string rules_query(const Rules& r) {
  std::string q = "&sowing=" + std::string(to_string(r.sowing)) + "&end=" + std::string(to_string(r.end));
  if (r.sowing == Sowing::Kalah) q += "&capture=" + std::string(to_string(r.capture));
  return q;
}

std::string escaped(const std::string& position) {
  std::string out;
  for (char c : position) out += c == '/' ? std::string("%2F") : c == ',' ? std::string("%2C") : std::string(1, c);
  return out;
}

// Checks a solve answer against the reference solver.
void check_answer(const Json& j, const Position& p, const Rules& rules) {
  ReferenceSolver ref(p.pits, rules.value_rules());
  const Game game(p, rules.value_rules());
  REQUIRE(j["position"] == p.to_text());
  CHECK(j["interrupted"] == false);
  CHECK(j["game_over"] == game.over());
  if (game.over()) {
    CHECK(j["value"] == game.margin());
    CHECK(j["moves"].empty());
    return;
  }
  CHECK(j["moves"].size() == game.legal_pits().size());
  int best = j["moves"][0]["value"].get<int>();
  for (const Json& m : j["moves"]) {
    const int pit = m["pit"].get<int>() - 1;
    const int v = ref.value_after(p.board(), pit);
    CHECK(m["value"] == p.margin() + (p.to_move == Side::South ? v : -v));
    Game after = game;
    after.sow(pit);
    CHECK(m["position"] == after.position().to_text());
    best = p.to_move == Side::South ? std::max(best, m["value"].get<int>()) : std::min(best, m["value"].get<int>());
  }
  CHECK(j["value"] == best);
  CHECK(j["moves"][0]["value"] == best);
}

serve::ExplorerConfig small_config() {
  serve::ExplorerConfig c;
  c.workers = 2;
  c.table_bytes = std::uint64_t(16) << 20;
  c.max_seconds = 30;
  return c;
}

}  // namespace

TEST_CASE("serve: answers equal the reference solver's for every value rule set", "[serve]") {
  serve::Explorer explorer(small_config());
  Running server(explorer);
  for (const Rules& rules : test::all_value_rules()) {
    for (const auto& [pits, seeds] : {std::pair{3, 3}, std::pair{4, 2}}) {
      for (const Position& p : test::random_positions(pits, seeds, rules, 6, 3 * pits + seeds, 2 * pits * seeds + 1)) {
        INFO(rules.describe() << " " << p.to_text());
        const Reply r = get(server.port(), "/api/v1/solve?position=" + escaped(p.to_text()) + rules_query(rules));
        REQUIRE(r.status == 200);
        CHECK(r.content_type == "application/json; charset=utf-8");
        CHECK(r.body["api_version"] == 1);
        check_answer(r.body, p, rules);
      }
    }
  }
  // Presets and the start position by seeds.
  const Reply bga = get(server.port(), "/api/v1/solve?pits=3&seeds=2&rules=bga");
  REQUIRE(bga.status == 200);
  CHECK(bga.body["rules"]["preset"] == "bga");
  check_answer(bga.body, Position::start(3, 2), Rules::preset("bga"));
}

TEST_CASE("serve: positions within the database are answered from it, exactly", "[serve]") {
  test::ScratchDir dir("serve-db");
  Rules rules;
  rules.capture = Capture::Empty;
  test::build_db(dir.path, 4, 6, rules, dbfile::kVersion);
  serve::ExplorerConfig c = small_config();
  c.database_dir = dir.path.string();
  serve::Explorer explorer(c);
  Running server(explorer);
  const Reply info = get(server.port(), "/api/v1");
  REQUIRE(info.status == 200);
  CHECK(info.body["database"]["pits"] == 4);
  int from_database = 0;
  for (const Position& p : test::random_positions(4, 2, rules, 12, 5, 17)) {
    INFO(p.to_text());
    const Reply r = get(server.port(), "/api/v1/solve?rules=empty-capture&position=" + escaped(p.to_text()));
    REQUIRE(r.status == 200);
    CHECK(r.body["db_max_seeds"] == 6);
    check_answer(r.body, p, rules);
    for (const Json& m : r.body["moves"]) from_database += m["source"] == "database";
  }
  CHECK(from_database > 0);
  // Another rule set on the same server: searched without the database.
  const Reply other = get(server.port(), "/api/v1/solve?pits=4&seeds=2");
  REQUIRE(other.status == 200);
  CHECK(other.body["db_max_seeds"] == -1);
  check_answer(other.body, Position::start(4, 2), Rules{});
}

TEST_CASE("serve: the searches' near tables (none, two entries) leave the answers exact", "[serve]") {
  // Positions 6 seeds above a 6-seed database: below the shared table (bypass 12 seeds above
  // it), so every board searched goes through the near table (two entries: constant collisions).
  test::ScratchDir dir("serve-near");
  test::build_db(dir.path, 4, 6, Rules{}, dbfile::kVersion);
  for (const std::uint64_t near_bytes : {std::uint64_t(0), std::uint64_t(32)}) {
    INFO("near table of " << near_bytes << " bytes");
    serve::ExplorerConfig c = small_config();
    c.database_dir = dir.path.string();
    c.near_table_bytes = near_bytes;
    serve::Explorer explorer(c);
    Running server(explorer);
    for (const Position& p : test::random_positions(4, 2, Rules{}, 12, 4, 23)) {
      INFO(p.to_text());
      const Reply r = get(server.port(), "/api/v1/solve?position=" + escaped(p.to_text()));
      REQUIRE(r.status == 200);
      check_answer(r.body, p, Rules{});
    }
  }
}

TEST_CASE("serve: the memory budget holds the other rule sets' tables beside the database", "[serve]") {
  test::ScratchDir dir("serve-memory");
  test::build_db(dir.path, 4, 6, Rules{}, dbfile::kVersion);  // a few KiB
  serve::ExplorerConfig c = small_config();                   // tables of 16 MiB
  c.database_dir = dir.path.string();
  c.max_pools = 4;
  c.memory_bytes = std::uint64_t(40) << 20;  // the database and its table would fit, not 3 more tables
  CHECK_THROWS_WITH(serve::Explorer(c), Catch::Contains("cannot hold 3 other rule sets' tables of 16.0 MiB") &&
                                            Catch::Contains("--max-rule-sets"));
  c.max_pools = 2;  // 16 MiB for the other table, 24 for the database and its own
  serve::Explorer explorer(c);
  const serve::Answer a = explorer.solve({{"pits", "4"}, {"seeds", "1"}});
  REQUIRE(a.status == 200);
  CHECK(Json::parse(a.body)["db_max_seeds"] == 6);
}

TEST_CASE("serve: a request's smaller budget leaves bounds that hold the exact values", "[serve]") {
  serve::ExplorerConfig c = small_config();
  c.max_seconds = 600;  // the exact answer must not run out of budget on a slow machine (a sanitizer build)
  serve::Explorer explorer(c);
  Running server(explorer);
  const std::string target = "/api/v1/solve?pits=5&seeds=3";
  const Reply hurried = get(server.port(), target + "&max_seconds=0.001");  // first: nothing in the table yet
  REQUIRE(hurried.status == 200);
  CHECK(hurried.body["max_seconds"] == 0.001);
  const Reply exact = get(server.port(), target);
  REQUIRE(exact.status == 200);
  REQUIRE(exact.body["interrupted"] == false);
  const int value = exact.body["value"].get<int>();
  CHECK(hurried.body["lower"].get<int>() <= value);
  CHECK(value <= hurried.body["upper"].get<int>());
  for (const Json& m : hurried.body["moves"]) {
    INFO("pit " << m["pit"]);
    Json e;
    for (const Json& x : exact.body["moves"])
      if (x["pit"] == m["pit"]) e = x;
    REQUIRE(!e.is_null());
    CHECK(m["lower"].get<int>() <= e["value"].get<int>());
    CHECK(e["value"].get<int>() <= m["upper"].get<int>());
    if (!m["value"].is_null()) CHECK(m["value"] == e["value"]);
  }
}

TEST_CASE("serve: eight pits, relay under a preset's capture, and rule sets past the pool limit", "[serve]") {
  serve::ExplorerConfig c = small_config();
  c.max_pools = 1;
  c.max_seconds = 2;
  serve::Explorer explorer(c);
  Running server(explorer);
  // Eight pits: the seeds a session takes are capped so that exact keys fit its table.
  const Position eight = Position::parse("1,0,2,0,1,0,0,1/0,1,0,0,2,0,1,0/20/30/S");
  const Reply r8 = get(server.port(), "/api/v1/solve?position=" + escaped(eight.to_text()));
  REQUIRE(r8.status == 200);
  check_answer(r8.body, eight, Rules{});
  const Reply too_many = get(server.port(), "/api/v1/solve?pits=8&seeds=12");
  CHECK(too_many.status == 400);
  CHECK(too_many.body["error"].get<std::string>().find("seeds in the pits") != std::string::npos);
  // Relay has its own capture: a preset's capture does not make another rule set.
  Rules relay = Rules::preset("relay");
  const Reply r = get(server.port(), "/api/v1/solve?pits=3&seeds=2&rules=empty-capture&sowing=relay&end=mover");
  REQUIRE(r.status == 200);
  CHECK(r.body["rules"]["capture"] == "nonempty");
  relay.early_end = false;
  check_answer(r.body, Position::start(3, 2), relay);
  // One pool at most: a rule set whose pool is busy cannot open another (503); once idle,
  // the pool gives way.
  std::thread busy([&] { (void)get(server.port(), "/api/v1/solve?pits=6&seeds=6"); });  // 2 s of search
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const Reply refused = get(server.port(), "/api/v1/solve?pits=3&seeds=3");
  busy.join();
  CHECK(refused.status == 503);
  const Reply after = get(server.port(), "/api/v1/solve?pits=3&seeds=3");
  REQUIRE(after.status == 200);
  check_answer(after.body, Position::start(3, 3), Rules{});
}

TEST_CASE("serve: past its budget an answer holds bounds instead of a value", "[serve]") {
  serve::ExplorerConfig c = small_config();
  c.max_seconds = 0.05;
  serve::Explorer explorer(c);
  Running server(explorer);
  const auto t0 = std::chrono::steady_clock::now();
  const Reply r = get(server.port(), "/api/v1/solve?pits=6&seeds=6");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(r.status == 200);
  CHECK(r.body["interrupted"] == true);
  CHECK(r.body["value"].is_null());
  CHECK(r.body["lower"].get<int>() < r.body["upper"].get<int>());
  CHECK(r.body["max_seconds"] == 0.05);
  for (const Json& m : r.body["moves"]) CHECK(m["lower"].get<int>() <= m["upper"].get<int>());
  CHECK(seconds < 20);  // every sowing's search stops at the budget (generous: a slow sanitized build)
}

TEST_CASE("serve: bad input gets 400 and a one-line reason; no file is ever served", "[serve]") {
  serve::Explorer explorer(small_config());
  Running server(explorer);
  const int port = server.port();
  const std::pair<const char*, const char*> bad[] = {
      {"/api/v1/solve?pits=4&seeds=2&colour=red", "unknown parameter 'colour'"},
      {"/api/v1/solve?pits=99&seeds=2", "pits must be a whole number from 1 to 8, not '99'"},
      {"/api/v1/solve?pits=4", "give position"},
      {"/api/v1/solve?position=1%2C2%2F3%2F0%2F0%2FS", "position: "},
      {"/api/v1/solve?position=banana", "position: "},
      {"/api/v1/solve?pits=4&seeds=2&seeds=3", "seeds is given twice"},
      {"/api/v1/solve?pits=4&seeds=2&rules=chess", "chess"},
      {"/api/v1/solve?pits=4&seeds=2&early_end=maybe", "early_end must be true or false, not 'maybe'"},
      {"/api/v1/solve?pits=4&seeds=2&max_seconds=-1", "max_seconds must be a number above 0"},
      {"/api/v1/solve?pits=6&seeds=13", "seeds in the pits"},
      {"/api/v1/solve?pits=3&seeds=2&sowing=relay&capture=empty", "relay"},
  };
  for (const auto& [target, reason] : bad) {
    INFO(target);
    const Reply r = get(port, target);
    CHECK(r.status == 400);
    const std::string error = r.body["error"].get<std::string>();
    CHECK(error.find(reason) != std::string::npos);
    CHECK(error.find('\n') == std::string::npos);
  }
  // Oversized input: a long parameter is refused and not echoed whole.
  const Reply long_position = get(port, "/api/v1/solve?position=" + std::string(1000, '7'));
  CHECK(long_position.status == 400);
  CHECK(long_position.body["error"].get<std::string>().size() < 320);
  CHECK(get(port, "/api/v1/solve?position=" + std::string(20000, '7')).status == 414);
  // Unknown paths and traversal attempts: 404 with a JSON reason, never a file's content.
  for (const char* target : {"/nothing", "/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/api/v1/../../etc/passwd",
                             "/api/v2/solve", "/api/v1/solve/../../../etc/hostname", "/index.html"}) {
    INFO(target);
    const Reply r = get(port, target);
    CHECK(r.status == 404);
    CHECK(r.body["error"] == "no such path");
    CHECK(r.text.find("root:") == std::string::npos);
  }
  httplib::Client client("127.0.0.1", port);
  const auto post = client.Post("/api/v1/solve", "pits=4", "application/x-www-form-urlencoded");
  REQUIRE(post);
  CHECK(post->status == 405);
  CHECK(post->get_header_value("Allow") == "GET");
  // The page.
  const Reply page = get(port, "/");
  CHECK(page.status == 200);
  CHECK(page.content_type == "text/html; charset=utf-8");
  CHECK(page.text.find("kalah explorer") != std::string::npos);
  CHECK(page.text.find("/api/v1/solve") != std::string::npos);
}

namespace {

// `clients` connections at once, client t asking positions t, t + clients, ... (standard
// rules): every answer 200 and exact.
void check_concurrent_answers(int port, const std::vector<Position>& positions, int clients) {
  const Rules rules;
  std::vector<Json> answers(positions.size());
  std::vector<int> status(positions.size(), 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client client("127.0.0.1", port);
      client.set_connection_timeout(60, 0);
      client.set_read_timeout(60, 0);
      for (std::size_t i = static_cast<std::size_t>(t); i < positions.size(); i += static_cast<std::size_t>(clients)) {
        const auto res = client.Get(("/api/v1/solve?position=" + escaped(positions[i].to_text())).c_str());
        if (!res) continue;
        status[i] = res->status;
        answers[i] = Json::parse(res->body);
      }
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < positions.size(); ++i) {
    INFO(positions[i].to_text());
    REQUIRE(status[i] == 200);
    check_answer(answers[i], positions[i], rules);
  }
}

}  // namespace

TEST_CASE("serve: concurrent requests share the table and are answered exactly", "[serve]") {
  serve::ExplorerConfig c = small_config();
  c.workers = 3;
  serve::Explorer explorer(c);
  Running server(explorer);
  check_concurrent_answers(server.port(), test::random_positions(4, 3, Rules{}, 24, 17, 25), 6);
}

// A TCP connection to 127.0.0.1:port that sends nothing (a file descriptor; -1 on failure).
int idle_connection(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) return -1;
  return fd;
}

TEST_CASE("serve: with its thread held and its wait list full the server stops accepting, then serves again",
          "[serve]") {
  serve::ExplorerConfig c = small_config();
  c.workers = 1;
  serve::Explorer explorer(c);
  Running server(explorer, 1, 1);
  // Connections that send nothing: the first holds the one thread (until it closes, or its
  // 10 s read timeout), the second waits in the list, the third's hand-over blocks the listener.
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(idle_connection(server.port()));
  for (const int fd : idle) REQUIRE(fd >= 0);
  for (int i = 0; i < 8000 && server.http().blocked_accepts() < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(server.http().blocked_accepts() >= 1);  // 2 when the thread took the first after the second came
  for (const int fd : idle) ::close(fd);
  const Reply r = get(server.port(), "/api/v1");
  CHECK(r.status == 200);
}

TEST_CASE("serve: clients past the connection wait list wait and are all answered", "[serve]") {
  serve::ExplorerConfig c = small_config();
  c.workers = 1;
  serve::Explorer explorer(c);
  Running server(explorer, 1, 1);  // one connection served, one waiting, the rest in the backlog
  check_concurrent_answers(server.port(), test::random_positions(4, 3, Rules{}, 12, 23, 25), 12);
}

TEST_CASE("serve: while a rule set's sessions are made, other rule sets are answered and the same one waits",
          "[serve]") {
  serve::ExplorerConfig c = small_config();
  std::mutex m;
  std::condition_variable changed;
  bool opening = false, released = false, held_too_long = false;
  int made_five = 0;
  c.opening_sessions = [&](int pits, const Rules&) {
    if (pits != 5) return;
    std::unique_lock<std::mutex> lock(m);
    ++made_five;
    opening = true;
    changed.notify_all();
    held_too_long = !changed.wait_for(lock, std::chrono::seconds(30), [&] { return released; });
  };
  serve::Explorer explorer(c);
  Running server(explorer);
  REQUIRE(get(server.port(), "/api/v1/solve?pits=4&seeds=3").status == 200);  // a pool made at once
  Reply first, second;
  std::thread five([&] { first = get(server.port(), "/api/v1/solve?pits=5&seeds=2"); });
  {
    std::unique_lock<std::mutex> lock(m);
    changed.wait(lock, [&] { return opening; });
  }
  // Pits 5's sessions are being made (held in the hook): another rule set is answered now,
  // and a second request of pits 5 waits for the first's sessions instead of making its own.
  std::thread five_again([&] { second = get(server.port(), "/api/v1/solve?pits=5&seeds=2"); });
  const Reply four = get(server.port(), "/api/v1/solve?pits=4&seeds=3");
  {
    const std::lock_guard<std::mutex> lock(m);
    released = true;
  }
  changed.notify_all();
  five.join();
  five_again.join();
  CHECK_FALSE(held_too_long);
  REQUIRE(four.status == 200);
  check_answer(four.body, Position::start(4, 3), Rules{});
  for (const Reply* r : {&first, &second}) {
    REQUIRE(r->status == 200);
    check_answer(r->body, Position::start(5, 2), Rules{});
  }
  CHECK(made_five == 1);
}
