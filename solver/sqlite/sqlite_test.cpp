// The SQLite layer's guard against a store replaced or removed under an open connection (as
// git checkout or stash does to a committed job store): writes refused with a one-line error,
// and what the connection held saved beside the file.
#include "testing/catch.hpp"

#include <filesystem>
#include <string>

#include "solver/sqlite/sqlite.hpp"
#include "testing/scratch_dir.hpp"

namespace fs = std::filesystem;
using kalah::sqlite::Connection;
using kalah::sqlite::Statement;
using kalah::sqlite::StoreError;
using kalah::sqlite::Transaction;
using kalah::test::ScratchDir;

namespace {

// A WAL store with one table and `rows` rows.
void make_store(const std::string& file, int rows) {
  Connection c(file, Connection::Mode::create);
  c.exec("PRAGMA journal_mode=WAL");
  Transaction t(c);
  c.exec("CREATE TABLE t(x INTEGER)");
  for (int i = 0; i < rows; ++i) c.prepare("INSERT INTO t(x) VALUES (?)").bind(1, i).run();
  t.commit();
}

int count_rows(Connection& c) {
  Statement s = c.prepare("SELECT count(*) FROM t");
  REQUIRE(s.step());
  return s.integer(0);
}

void insert_row(Connection& c, int x) {
  Transaction t(c);
  c.prepare("INSERT INTO t(x) VALUES (?)").bind(1, x).run();
  t.commit();
}

}  // namespace

TEST_CASE("a store replaced under its connection: writes refused, what it held saved", "[sqlite]") {
  ScratchDir dir("sqlite_replaced");
  const std::string file = (dir.path / "store.sqlite").string();
  make_store(file, 2);
  // What git checkout does: the committed copy written beside, then renamed over the file.
  const std::string committed = (dir.path / "committed.sqlite").string();
  make_store(committed, 1);

  Connection c(file, Connection::Mode::read_write);
  c.exec("PRAGMA journal_mode=WAL");
  insert_row(c, 10);  // the file is the one it opened: written
  REQUIRE(count_rows(c) == 3);
  fs::rename(committed, file);

  const std::string orphan = file + ".orphan-" + std::to_string(::getpid());
  std::string message;
  try {
    insert_row(c, 11);
  } catch (const StoreError& e) {
    message = e.what();
  }
  CHECK(message.find(file + ": replaced while this process held it") == 0);
  CHECK(message.find("saved in " + orphan) != std::string::npos);
  CHECK(message.find('\n') == std::string::npos);
  // Refused again without a second copy; the row was never written anywhere.
  REQUIRE_THROWS_AS(insert_row(c, 12), StoreError);
  REQUIRE(count_rows(c) == 3);

  // The orphan holds the three rows, the replacement its own one.
  Connection saved(orphan, Connection::Mode::read_only);
  CHECK(count_rows(saved) == 3);
  Connection replacement(file, Connection::Mode::read_only);
  CHECK(count_rows(replacement) == 1);
}

TEST_CASE("a store removed under its connection: writes refused", "[sqlite]") {
  ScratchDir dir("sqlite_removed");
  const std::string file = (dir.path / "store.sqlite").string();
  make_store(file, 1);
  // An orphan of an earlier process with this pid is kept: the new one takes the next name.
  const std::string earlier = file + ".orphan-" + std::to_string(::getpid());
  make_store(earlier, 7);
  Connection c(file, Connection::Mode::read_write);
  insert_row(c, 5);
  fs::remove(file);
  try {
    insert_row(c, 6);
    FAIL("a write to a removed store went through");
  } catch (const StoreError& e) {
    CHECK(std::string(e.what()).find(file + ": removed while this process held it") == 0);
    CHECK(std::string(e.what()).find("saved in " + earlier + "-2:") != std::string::npos);
  }
  Connection saved(earlier + "-2", Connection::Mode::read_only);
  CHECK(count_rows(saved) == 2);
  Connection kept(earlier, Connection::Mode::read_only);
  CHECK(count_rows(kept) == 7);
}

TEST_CASE("a store made under a temporary name and renamed is written after reopening", "[sqlite]") {
  // The job store's and the book's creation: the connection on the temporary name is closed
  // before the rename, and a new one opens the published file.
  ScratchDir dir("sqlite_published");
  const std::string tmp = (dir.path / "store.sqlite.new").string(), file = (dir.path / "store.sqlite").string();
  make_store(tmp, 1);
  fs::rename(tmp, file);
  Connection c(file, Connection::Mode::read_write);
  insert_row(c, 2);
  CHECK(count_rows(c) == 2);
}
