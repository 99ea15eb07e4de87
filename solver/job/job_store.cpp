#include "solver/job/job_store.hpp"

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "solver/api/report_json.hpp"
#include "solver/base/program_version.hpp"
#include "solver/base/value_bounds.hpp"

namespace kalah::job {

namespace fs = std::filesystem;

namespace {

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

const char* kSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE node(id INTEGER PRIMARY KEY, board BLOB NOT NULL UNIQUE, seeds INTEGER NOT NULL,
                  lower INTEGER NOT NULL, upper INTEGER NOT NULL, guess INTEGER,
                  expanded INTEGER NOT NULL DEFAULT 0);
CREATE TABLE edge(parent INTEGER NOT NULL, pit INTEGER NOT NULL, child INTEGER NOT NULL,
                  stored INTEGER NOT NULL, extra_turn INTEGER NOT NULL, PRIMARY KEY(parent, pit)) WITHOUT ROWID;
CREATE TABLE run(id INTEGER PRIMARY KEY, started REAL NOT NULL, ended REAL, workers INTEGER NOT NULL,
                 threads INTEGER NOT NULL, database TEXT, host TEXT, outcome TEXT,
                 in_flight INTEGER NOT NULL DEFAULT 0, program TEXT);
CREATE TABLE unit(id INTEGER PRIMARY KEY, run INTEGER NOT NULL, node INTEGER NOT NULL, question TEXT NOT NULL,
                  gamma INTEGER, lower INTEGER NOT NULL, upper INTEGER NOT NULL, complete INTEGER NOT NULL,
                  nodes INTEGER NOT NULL, seconds REAL NOT NULL, worker TEXT, finished REAL NOT NULL);
)sql";

// Version 3 (program: version 4); IF NOT EXISTS: the same statement upgrades an older store.
const char* kUnitCheckTable = R"sql(
CREATE TABLE IF NOT EXISTS unit_check(id INTEGER PRIMARY KEY, unit INTEGER NOT NULL,
                        claimed_lower INTEGER NOT NULL, claimed_upper INTEGER NOT NULL,
                        found_lower INTEGER NOT NULL, found_upper INTEGER NOT NULL, verdict TEXT NOT NULL,
                        budget REAL NOT NULL, nodes INTEGER NOT NULL, seconds REAL NOT NULL,
                        threads INTEGER NOT NULL, database TEXT, host TEXT, finished REAL NOT NULL,
                        program TEXT);
)sql";

std::vector<std::uint8_t> board_blob(const Board& b, int m) {
  return std::vector<std::uint8_t>(b.cells.begin(), b.cells.begin() + 2 * m);
}

void set_pragmas(Connection& c, bool writable) {
  if (writable) {
    c.exec("PRAGMA journal_mode=WAL");
    c.exec("PRAGMA synchronous=FULL");
  }
  c.exec("PRAGMA foreign_keys=OFF");
}

}  // namespace

void JobStore::create(const fs::path& dir, const JobSpec& spec) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw StoreError(dir.string() + ": not a directory");
  fs::create_directories(dir, ec);
  if (ec) throw StoreError(dir.string() + ": cannot create the directory: " + ec.message());
  const fs::path file = dir / kStoreFile;
  if (fs::exists(file, ec))
    throw StoreError(file.string() + ": a job store is already there (kalah job run " + dir.string() +
                     " works on it; remove the directory to start over)");
  // Built under a temporary name and renamed: a half-made store is never found.
  const fs::path tmp = dir / (std::string(kStoreFile) + ".new");
  fs::remove(tmp, ec);
  {
    Connection c(tmp.string(), Connection::Mode::create);
    c.exec("PRAGMA application_id=" + std::to_string(kApplicationId));
    c.exec("PRAGMA user_version=" + std::to_string(kStoreVersion));
    // WAL from the start (the mode is kept in the file): a run that switched the mode itself
    // and was killed during the switch left a hot rollback journal, which a read-only open
    // cannot roll back.
    c.exec("PRAGMA journal_mode=WAL");
    Transaction t(c);
    c.exec(kSchema);
    c.exec(kUnitCheckTable);
    Statement put = c.prepare("INSERT INTO meta(key, value) VALUES (?, ?)");
    auto meta = [&](const std::string& k, const std::string& v) { put.bind(1, k).bind(2, v).run(); };
    meta("kind", "kalah proof job");
    meta("pits", std::to_string(spec.pits));
    meta("rules", api::rules_json(spec.rules).dump());
    meta("position", spec.position.to_text());
    meta("openings", spec.openings ? "1" : "0");
    meta("created", std::to_string(unix_now()));
    TopTree tree(spec.pits, spec.rules);
    const int root = tree.add(spec.position.board());
    const TopNode& n = tree.node(root);
    c.prepare("INSERT INTO node(id, board, seeds, lower, upper, expanded) VALUES (0, ?, ?, ?, ?, 0)")
        .bind_blob(1, board_blob(n.board, spec.pits))
        .bind(2, n.seeds)
        .bind(3, n.lower)
        .bind(4, n.upper)
        .run();
    t.commit();
  }
  fs::rename(tmp, file, ec);
  if (ec) throw StoreError(file.string() + ": cannot be created: " + ec.message());
}

JobStore::JobStore(const fs::path& dir, bool writable) : file_(dir / kStoreFile) {
  std::error_code ec;
  if (!fs::exists(file_, ec))
    throw StoreError(file_.string() + ": missing (kalah job init " + dir.string() + " ... creates a job)");
  // A hot rollback journal (a store made in rollback mode by an older kalah, whose run was
  // killed while switching it to WAL) is rolled back on the first read, which needs write
  // access: then even a reader opens the store read-write (SQLite's locks keep it safe).
  const bool hot_journal = fs::exists(fs::path(file_.string() + "-journal"), ec);
  db_ = std::make_unique<Connection>(
      file_.string(), writable || hot_journal ? Connection::Mode::read_write : Connection::Mode::read_only);
  auto pragma = [&](const std::string& name) {
    Statement s = db_->prepare("PRAGMA " + name);
    if (!s.step()) throw StoreError(file_.string() + ": PRAGMA " + name + " gave nothing");
    return s.int64(0);
  };
  std::int64_t app = 0;
  try {
    app = pragma("application_id");
  } catch (const StoreError& e) {
    throw StoreError(file_.string() + ": not a kalah job store (" + e.what() + ")");
  }
  if (app != kApplicationId)
    throw StoreError(file_.string() + ": not a kalah job store (SQLite application id " + std::to_string(app) + ")");
  const std::int64_t version = pragma("user_version");
  if (version > kStoreVersion)
    throw StoreError(file_.string() + ": store version " + std::to_string(version) +
                     " is newer than this kalah reads (" + std::to_string(kStoreVersion) + ")");
  if (version < 1) throw StoreError(file_.string() + ": unknown store version " + std::to_string(version));
  {
    Statement check = db_->prepare("PRAGMA quick_check");
    std::string verdict;
    while (check.step()) verdict += (verdict.empty() ? "" : "; ") + check.text(0);
    if (verdict != "ok")
      throw StoreError(file_.string() + ": damaged (SQLite quick_check: " + verdict.substr(0, 200) + ")");
  }
  set_pragmas(*db_, writable);
  writable_ = writable;
  // Version 1 lacked run.in_flight (read as 0), version 2 the unit_check table (read as
  // empty), version 3 the program columns (read as not recorded): added when the store is
  // opened to be written.
  has_in_flight_ = version >= 2;
  has_checks_ = version >= 3;
  has_program_ = version >= 4;
  if (version < kStoreVersion && writable) {
    Transaction t(*db_);
    if (!has_in_flight_) db_->exec("ALTER TABLE run ADD COLUMN in_flight INTEGER NOT NULL DEFAULT 0");
    if (!has_program_) db_->exec("ALTER TABLE run ADD COLUMN program TEXT");
    if (!has_checks_)
      db_->exec(kUnitCheckTable);  // with its program column
    else if (!has_program_)
      db_->exec("ALTER TABLE unit_check ADD COLUMN program TEXT");
    db_->exec("PRAGMA user_version=" + std::to_string(kStoreVersion));
    t.commit();
    has_in_flight_ = has_checks_ = has_program_ = true;
  }
  // The job's description.
  std::map<std::string, std::string> meta;
  for (Statement s = db_->prepare("SELECT key, value FROM meta"); s.step();) meta[s.text(0)] = s.text(1);
  auto need = [&](const char* k) -> const std::string& {
    const auto it = meta.find(k);
    if (it == meta.end()) throw StoreError(file_.string() + ": damaged (no '" + k + "' in meta)");
    return it->second;
  };
  try {
    if (need("kind") != "kalah proof job") throw std::invalid_argument("kind");
    spec_.pits = std::stoi(need("pits"));
    const nlohmann::json r = nlohmann::json::parse(need("rules"));
    spec_.rules.sowing = parse_sowing(r.at("sowing").get<std::string>());
    spec_.rules.capture = parse_capture(r.at("capture").get<std::string>());
    spec_.rules.end = parse_end_rule(r.at("end").get<std::string>());
    spec_.rules.early_end = r.at("early_end").get<bool>();
    spec_.rules.pie = r.at("pie").get<bool>();
    spec_.position = Position::parse(need("position"), spec_.pits);
    const std::string& openings = need("openings");
    if (openings != "0" && openings != "1") throw std::invalid_argument("openings is neither 0 nor 1");
    spec_.openings = openings == "1";
  } catch (const StoreError&) {
    throw;
  } catch (const std::exception& e) {
    throw StoreError(file_.string() + ": damaged (the job's description cannot be read: " + e.what() + ")");
  }
}

TopTree JobStore::load_tree() {
  TopTree tree(spec_.pits, spec_.rules);
  const int m = spec_.pits;
  auto damaged = [&](const std::string& what) { return StoreError(file_.string() + ": damaged (" + what + ")"); };
  struct Row {
    int lower, upper;
    std::optional<int> guess;
    bool expanded;
  };
  std::vector<Row> rows;
  for (Statement s = db_->prepare("SELECT id, board, seeds, lower, upper, guess, expanded FROM node ORDER BY id");
       s.step();) {
    const std::int64_t id = s.int64(0);
    const std::vector<std::uint8_t> cells = s.blob(1);
    if (id != static_cast<std::int64_t>(rows.size())) throw damaged("node ids are not 0, 1, 2, ...");
    if (cells.size() != static_cast<std::size_t>(2 * m))
      throw damaged("node " + std::to_string(id) + ": a board of the wrong size");
    Board b;
    for (int i = 0; i < 2 * m; ++i) b.cells[static_cast<std::size_t>(i)] = cells[static_cast<std::size_t>(i)];
    bool created = false;
    const int got = tree.add(b, &created);
    if (!created || got != id) throw damaged("node " + std::to_string(id) + ": a board stored twice");
    const TopNode& n = tree.node(got);
    if (s.integer(2) != n.seeds) throw damaged("node " + std::to_string(id) + ": its seed count is not its board's");
    Row row{s.integer(3), s.integer(4), std::nullopt, s.integer(6) != 0};
    if (!s.is_null(5)) row.guess = s.integer(5);
    if (row.lower > row.upper || row.lower < n.lower || row.upper > n.upper)
      throw damaged("node " + std::to_string(id) + ": bounds out of range");
    // The job writes bounds of the parity of the seeds only (a value has it).
    if (((row.lower - n.seeds) & 1) || ((row.upper - n.seeds) & 1))
      throw damaged("node " + std::to_string(id) + ": bounds of the wrong parity");
    rows.push_back(row);
  }
  if (rows.empty() || !(tree.node(0).board == spec_.position.board()))
    throw damaged("node 0 is not the job's position");
  std::vector<std::vector<TopEdge>> edges(rows.size());
  for (Statement s = db_->prepare("SELECT parent, pit, child, stored, extra_turn FROM edge ORDER BY parent, pit");
       s.step();) {
    const std::int64_t p = s.int64(0), c = s.int64(2);
    if (p < 0 || p >= tree.size() || c < 0 || c >= tree.size()) throw damaged("an edge to a missing node");
    edges[static_cast<std::size_t>(p)].push_back(
        TopEdge{static_cast<int>(c), s.integer(1), s.integer(3), s.integer(4) != 0});
  }
  try {
    for (int id = 0; id < tree.size(); ++id) {
      const bool has = !edges[static_cast<std::size_t>(id)].empty();
      if (has != rows[static_cast<std::size_t>(id)].expanded)
        throw std::runtime_error("node " + std::to_string(id) + ": expanded without children, or the reverse");
      if (has) tree.restore_edges(id, edges[static_cast<std::size_t>(id)]);
    }
    for (int id = 0; id < tree.size(); ++id) {
      const Row& r = rows[static_cast<std::size_t>(id)];
      tree.tighten(id, r.lower, r.upper);
      if (r.guess) tree.set_guess(id, *r.guess);
    }
    tree.recheck();
  } catch (const std::exception& e) {
    throw damaged(e.what());
  }
  return tree;
}

void JobStore::save(const TopTree& tree, std::span<const int> touched, const UnitRecord* unit, int run, int in_flight) {
  Transaction t(*db_);
  Statement put_node = db_->prepare(
      "INSERT INTO node(id, board, seeds, lower, upper, guess, expanded) VALUES (?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT(id) DO UPDATE SET lower = excluded.lower, upper = excluded.upper, guess = excluded.guess, "
      "expanded = excluded.expanded");
  Statement put_edge =
      db_->prepare("INSERT OR IGNORE INTO edge(parent, pit, child, stored, extra_turn) VALUES (?, ?, ?, ?, ?)");
  for (const int id : touched) {
    const TopNode& n = tree.node(id);
    put_node.bind(1, id)
        .bind_blob(2, board_blob(n.board, spec_.pits))
        .bind(3, n.seeds)
        .bind(4, n.lower)
        .bind(5, n.upper);
    if (n.guess)
      put_node.bind(6, *n.guess);
    else
      put_node.bind_null(6);
    put_node.bind(7, n.expanded ? 1 : 0).run();
    for (const TopEdge& e : n.edges)
      put_edge.bind(1, id).bind(2, e.pit).bind(3, e.child).bind(4, e.stored).bind(5, e.extra_turn ? 1 : 0).run();
  }
  if (unit) {
    Statement put_unit = db_->prepare(
        "INSERT INTO unit(run, node, question, gamma, lower, upper, complete, nodes, seconds, worker, finished) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    put_unit.bind(1, run).bind(2, unit->node).bind(3, std::string(unit->test ? "test" : "value"));
    if (unit->test)
      put_unit.bind(4, unit->gamma);
    else
      put_unit.bind_null(4);
    put_unit.bind(5, unit->lower)
        .bind(6, unit->upper)
        .bind(7, unit->complete ? 1 : 0)
        .bind(8, static_cast<std::int64_t>(unit->nodes))
        .bind(9, unit->seconds)
        .bind(10, unit->worker)
        .bind(11, unix_now())
        .run();
  }
  // The run's end moves with its last unit: a run killed outright keeps its length.
  if (run > 0)
    db_->prepare("UPDATE run SET ended = ?, in_flight = ? WHERE id = ?")
        .bind(1, unix_now())
        .bind(2, in_flight)
        .bind(3, run)
        .run();
  t.commit();
}

std::vector<UnitRecord> JobStore::units(int tree_size) {
  std::vector<UnitRecord> out;
  for (Statement s = db_->prepare(
           "SELECT id, node, question, gamma, lower, upper, complete, nodes, seconds, worker, run, finished FROM unit "
           "ORDER BY id");
       s.step();) {
    UnitRecord u;
    u.id = s.int64(0);
    u.node = s.integer(1);
    const std::string question = s.text(2);
    auto damaged = [&](const std::string& what) {
      return StoreError(file_.string() + ": damaged (unit " + std::to_string(u.id) + ": " + what + ")");
    };
    if (u.node < 0 || u.node >= tree_size) throw damaged("a unit on a missing node");
    if (question != "value" && question != "test") throw damaged("an unknown question");
    u.test = question == "test";
    if (u.test && s.is_null(3)) throw damaged("a test without gamma");
    u.gamma = u.test ? s.integer(3) : 0;
    u.lower = s.integer(4);
    u.upper = s.integer(5);
    if (u.lower > u.upper) throw damaged("bounds crossed");
    u.complete = s.integer(6) != 0;
    u.nodes = static_cast<std::uint64_t>(s.int64(7));
    u.seconds = s.real(8);
    if (!s.is_null(9)) u.worker = s.text(9);
    u.run = s.integer(10);
    u.finished = s.real(11);
    out.push_back(std::move(u));
  }
  return out;
}

std::vector<RunRecord> JobStore::runs() {
  std::vector<RunRecord> out;
  for (Statement s = db_->prepare("SELECT id, started, COALESCE(ended, started), workers, threads, database, host, "
                                  "outcome, " +
                                  std::string(has_program_ ? "program" : "NULL") + ", " +
                                  std::string(has_in_flight_ ? "in_flight" : "0") + " FROM run ORDER BY id");
       s.step();) {
    RunRecord r;
    r.id = s.integer(0);
    r.started = s.real(1);
    r.ended = s.real(2);
    r.workers = s.integer(3);
    r.threads = s.integer(4);
    r.database = s.text(5);  // NULL reads as empty
    r.host = s.text(6);
    r.outcome = s.text(7);
    r.program = s.text(8);
    r.in_flight = s.integer(9);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<int> JobStore::nodes_asked_value() {
  std::vector<int> out;
  for (Statement s = db_->prepare("SELECT DISTINCT node FROM unit WHERE question = 'value'"); s.step();)
    out.push_back(s.integer(0));
  return out;
}

std::vector<CheckRecord> JobStore::checks() {
  std::vector<CheckRecord> out;
  if (!has_checks_) return out;
  std::set<std::int64_t> units;
  for (Statement s = db_->prepare("SELECT id FROM unit"); s.step();) units.insert(s.int64(0));
  for (Statement s = db_->prepare(
           "SELECT id, unit, claimed_lower, claimed_upper, found_lower, found_upper, verdict, budget, nodes, seconds, "
           "threads, database, host, finished, " +
           std::string(has_program_ ? "program" : "NULL") + " FROM unit_check ORDER BY id");
       s.step();) {
    CheckRecord c;
    c.id = s.int64(0);
    c.unit = s.int64(1);
    auto damaged = [&](const std::string& what) {
      return StoreError(file_.string() + ": damaged (check " + std::to_string(c.id) + ": " + what + ")");
    };
    if (!units.count(c.unit)) throw damaged("a check of a missing unit");
    c.claimed_lower = s.integer(2);
    c.claimed_upper = s.integer(3);
    c.found_lower = s.integer(4);
    c.found_upper = s.integer(5);
    if (c.claimed_lower > c.claimed_upper || c.found_lower > c.found_upper) throw damaged("bounds crossed");
    c.verdict = s.text(6);
    if (c.verdict != "confirmed" && c.verdict != "contradicted" && c.verdict != "unchecked")
      throw damaged("an unknown verdict");
    c.budget = s.real(7);
    c.nodes = static_cast<std::uint64_t>(s.int64(8));
    c.seconds = s.real(9);
    c.threads = s.integer(10);
    c.database = s.text(11);  // NULL reads as empty
    c.host = s.text(12);
    c.finished = s.real(13);
    c.program = s.text(14);  // NULL (not recorded) reads as empty
    out.push_back(std::move(c));
  }
  return out;
}

void JobStore::save_check(const CheckRecord& c) {
  if (!writable_) throw StoreError(file_.string() + ": opened read-only, a check cannot be recorded");
  Transaction t(*db_);  // checks the file is still the one opened (sqlite::Connection)
  db_->prepare(
         "INSERT INTO unit_check(unit, claimed_lower, claimed_upper, found_lower, found_upper, verdict, budget, nodes, "
         "seconds, threads, database, host, finished, program) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, c.unit)
      .bind(2, c.claimed_lower)
      .bind(3, c.claimed_upper)
      .bind(4, c.found_lower)
      .bind(5, c.found_upper)
      .bind(6, c.verdict)
      .bind(7, c.budget)
      .bind(8, static_cast<std::int64_t>(c.nodes))
      .bind(9, c.seconds)
      .bind(10, c.threads)
      .bind(11, c.database)
      .bind(12, c.host)
      .bind(13, unix_now())
      .bind(14, std::string(program_version()))
      .run();
  t.commit();
}

int JobStore::begin_run(const RunInfo& info) {
  Transaction t(*db_);
  db_->prepare("INSERT INTO run(started, workers, threads, database, host, program) VALUES (?, ?, ?, ?, ?, ?)")
      .bind(1, unix_now())
      .bind(2, info.workers)
      .bind(3, info.threads)
      .bind(4, info.database)
      .bind(5, info.host)
      .bind(6, std::string(program_version()))
      .run();
  const int run = static_cast<int>(db_->last_insert_id());
  t.commit();
  return run;
}

void JobStore::finish_run(int run, const std::string& outcome, const std::string* report_json) {
  Transaction t(*db_);
  db_->prepare("UPDATE run SET ended = ?, outcome = ?, in_flight = 0 WHERE id = ?")
      .bind(1, unix_now())
      .bind(2, outcome)
      .bind(3, run)
      .run();
  if (report_json)
    db_->prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('report', ?)").bind(1, *report_json).run();
  t.commit();
}

std::optional<std::string> JobStore::report() {
  Statement s = db_->prepare("SELECT value FROM meta WHERE key = 'report'");
  if (!s.step()) return std::nullopt;
  return s.text(0);
}

StoreTotals JobStore::totals() {
  StoreTotals t;
  for (Statement s = db_->prepare("SELECT complete, nodes, seconds FROM unit"); s.step();) {
    ++t.units;
    if (s.integer(0)) ++t.complete_units;
    t.nodes += static_cast<std::uint64_t>(s.int64(1));
    t.unit_seconds += s.real(2);
  }
  for (const RunRecord& r : runs()) {
    ++t.runs;
    t.run_seconds += r.ended - r.started;
    t.last_workers = r.workers;
    t.last_in_flight = r.in_flight;
  }
  return t;
}

}  // namespace kalah::job
