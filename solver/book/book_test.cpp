// The opening book: every entry a build stores equals the reference solver (every value rule
// set), a resumed or extended build stores the same, damaged or foreign files are refused (a
// build repairs damaged entries), and sessions with a book answer exactly what they answer
// without one.
#include "testing/catch.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <unordered_set>

#include "engine/game.hpp"
#include "solver/api/explore.hpp"
#include "solver/api/label.hpp"
#include "solver/api/reports.hpp"
#include "solver/book/book.hpp"
#include "solver/book/build.hpp"
#include "solver/db/crc32c.hpp"
#include "solver/reference/reference_solver.hpp"
#include "solver/search/solver.hpp"
#include "solver/sqlite/sqlite.hpp"
#include "testing/database_files.hpp"
#include "testing/positions.hpp"
#include "testing/rule_sets.hpp"
#include "testing/scratch_dir.hpp"
#include "testing/session_config.hpp"

namespace kalah {
namespace {

using book::Book;
using book::BookError;

// What `f` threw ("" if nothing).
template <class F>
std::string thrown(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

book::BookBuildReport build(const std::string& file, int pits, int seeds, int plies, const Rules& rules,
                            int workers = 2, const std::atomic<bool>* cancel = nullptr) {
  api::SessionConfig config = test::small_session_config(pits, seeds, rules);
  config.cancel = cancel;
  book::BookBuildOptions options;
  options.file = file;
  options.seeds = seeds;
  options.plies = plies;
  options.workers.count = workers;
  return book::build_book(config, options, {});
}

// Every board where the game goes on within `plies` sowings of the start.
std::vector<Board> reachable(int pits, int seeds, int plies, const Rules& rules) {
  std::vector<Board> out;
  std::unordered_set<Board, BoardHash> seen;
  std::vector<Position> frontier{Position::start(pits, seeds)};
  seen.insert(frontier[0].board());
  out.push_back(frontier[0].board());
  for (int ply = 0; ply < plies; ++ply) {
    std::vector<Position> next;
    for (const Position& p : frontier) {
      const Game game(p, rules.value_rules());
      for (const int pit : game.legal_pits()) {
        Game g = game;
        g.sow(pit);
        if (g.over() || !seen.insert(g.position().board()).second) continue;
        out.push_back(g.position().board());
        next.push_back(g.position());
      }
    }
    frontier = std::move(next);
  }
  return out;
}

// Every board within the plies is in the book with the reference solver's values.
void check_against_reference(const Book& b, int pits, int seeds, int plies, const Rules& rules) {
  ReferenceSolver ref(pits, rules.value_rules());
  const std::vector<Board> boards = reachable(pits, seeds, plies, rules);
  CHECK(b.boards() == boards.size());
  for (const Board& board : boards) {
    api::KnownBoard k;
    REQUIRE(b.find(board, k));
    CHECK(k.value == ref.value(board));
    for (int pit = 0; pit < pits; ++pit) {
      CHECK(k.is_legal(pit) == (board.cells[pit] != 0));
      if (board.cells[pit]) CHECK(k.sowing[pit] == ref.value_after(board, pit));
    }
  }
}

TEST_CASE("book: every entry equals the reference solver, for every value rule set", "[book]") {
  for (const Rules& rules : test::all_value_rules()) {
    CAPTURE(rules.describe());
    test::ScratchDir dir("book");
    const std::string file = (dir.path / "book.sqlite").string();
    const book::BookBuildReport r = build(file, 3, 3, 6, rules);
    CHECK_FALSE(r.interrupted);
    CHECK(r.plies == 6);
    CHECK(r.reused == 0);
    const Book b(file);
    CHECK(b.info().pits == 3);
    CHECK(b.info().seeds == 3);
    CHECK(b.info().plies == 6);
    CHECK(b.value_rules().same_values_as(rules));
    check_against_reference(b, 3, 3, 6, rules);
    CHECK(b.verify().size() == 7);
  }
}

TEST_CASE("book: an extended, a resumed and a cancelled build store the same entries", "[book]") {
  test::ScratchDir dir("book");
  const std::string file = (dir.path / "book.sqlite").string();
  const Rules rules = Rules::preset("empty-capture");
  SECTION("extended: plies 3, then 6") {
    const book::BookBuildReport first = build(file, 4, 2, 3, rules);
    const book::BookBuildReport second = build(file, 4, 2, 6, rules);
    std::uint64_t within3 = 0;
    for (std::size_t ply = 0; ply <= 3; ++ply) within3 += first.boards_by_ply[ply];
    CHECK(second.reused == within3);
    CHECK(second.solved + second.reused == Book(file).boards());
    check_against_reference(Book(file), 4, 2, 6, rules);
    const book::BookBuildReport again = build(file, 4, 2, 6, rules);
    CHECK(again.solved == 0);
  }
  SECTION("resumed: the build lost all but part of its deepest ply") {
    build(file, 4, 2, 6, rules);
    {
      sqlite::Connection c(file, sqlite::Connection::Mode::read_write);
      c.exec("DELETE FROM board WHERE ply < 6 OR value % 2 = 0");
      c.exec("UPDATE meta SET value = '-1' WHERE key = 'plies'");
    }
    const std::uint64_t kept = Book(file).boards();
    CHECK(kept > 0);
    const book::BookBuildReport r = build(file, 4, 2, 6, rules);
    CHECK(r.reused == kept);
    CHECK(r.plies == 6);
    check_against_reference(Book(file), 4, 2, 6, rules);
  }
  SECTION("cancelled before it starts, then run again") {
    std::atomic<bool> cancel{true};
    const book::BookBuildReport stopped = build(file, 4, 2, 5, rules, 2, &cancel);
    CHECK(stopped.interrupted);
    CHECK(Book(file).info().plies == -1);
    const book::BookBuildReport r = build(file, 4, 2, 5, rules);
    CHECK_FALSE(r.interrupted);
    check_against_reference(Book(file), 4, 2, 5, rules);
  }
}

TEST_CASE("book: the memory budget holds the boards and entries, the table and the database", "[book]") {
  test::ScratchDir dir("book-memory");
  const Rules rules;
  const std::filesystem::path db = dir.path / "db";
  test::build_db(db, 4, 10, rules, dbfile::kVersion);
  std::uint64_t levels = 0;
  for (const std::uint64_t b : level_memory_bytes(db, 4, 10, -1)) levels += b;
  api::SessionConfig config = test::small_session_config(4, 3, rules);
  config.database_dir = db.string();
  std::vector<std::string> notes;
  config.note = [&](const std::string& note) { notes.push_back(note); };
  book::BookBuildOptions options;
  options.seeds = 3;
  options.plies = 4;
  options.workers.count = 2;

  // Too little for the table beside the boards: refused before anything is loaded or written.
  options.file = (dir.path / "small.sqlite").string();
  config.memory_bytes = config.table_bytes;
  CHECK(thrown([&] { book::build_book(config, options, {}); }).find("cannot hold the book's") != std::string::npos);
  CHECK(Book(options.file).boards() == 0);

  // Room for the table, the two workers' near tables, the loader's 1 MiB table and every
  // level, but not for the boards as well: the database gives way (its top levels are left
  // out, said so), the values stay exact.
  options.file = (dir.path / "book.sqlite").string();
  const std::uint64_t near_tables = 2 * search::Solver::near_tables_bytes(4, 1, config.near_table_bytes);
  CHECK(near_tables == 2 * (256 << 10));
  config.memory_bytes = config.table_bytes + near_tables + (std::uint64_t(1) << 20) + levels;
  const book::BookBuildReport r = book::build_book(config, options, {});
  CHECK(r.solved > 0);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].rfind("loading database levels 0..", 0) == 0);
  CHECK(notes[0].find(" of 0..10") != std::string::npos);
  check_against_reference(Book(options.file), 4, 3, 4, rules);
}

TEST_CASE("book: damaged, foreign and busy files are refused with the file named", "[book]") {
  test::ScratchDir dir("book");
  const std::string file = (dir.path / "book.sqlite").string();
  build(file, 3, 2, 4, Rules{});
  SECTION("an entry changed behind the checksum's back") {
    {
      sqlite::Connection c(file, sqlite::Connection::Mode::read_write);
      c.exec("UPDATE board SET value = value + 1 WHERE ply = 2");
    }
    const Book b(file);
    const std::string error = thrown([&] { b.verify(); });
    CHECK(error.find("fails its checksum") != std::string::npos);
    CHECK(error.find(file) != std::string::npos);
    const std::vector<Board> boards = reachable(3, 2, 4, Rules{});
    int failed = 0;
    for (const Board& board : boards) {
      api::KnownBoard k;
      try {
        b.find(board, k);
      } catch (const BookError&) {
        ++failed;
      }
    }
    CHECK(failed > 0);
  }
  SECTION("a build repairs them: damaged entries deleted, their boards solved again") {
    int damaged = 0;
    {
      sqlite::Connection c(file, sqlite::Connection::Mode::read_write);
      sqlite::Statement count = c.prepare("SELECT count(*) FROM board WHERE ply = 2");
      REQUIRE(count.step());
      damaged = count.integer(0);
      c.exec("UPDATE board SET value = value + 1 WHERE ply = 2");
      c.exec("INSERT INTO board(board, ply, value, sowings, crc) VALUES ('1,x/0,0', 9, 0, '', 0)");  // no board
    }
    REQUIRE(damaged > 0);
    const book::BookBuildReport repair = build(file, 3, 2, 4, Rules{});
    CHECK(repair.repaired == static_cast<std::uint64_t>(damaged) + 1);
    CHECK(repair.solved == static_cast<std::uint64_t>(damaged));
    CHECK(repair.first_damage.find(file + ": damaged") == 0);
    CHECK(repair.plies == 4);
    CHECK(Book(file).verify().size() == 5);
    check_against_reference(Book(file), 3, 2, 4, Rules{});
    CHECK(build(file, 3, 2, 4, Rules{}).repaired == 0);
  }
  SECTION("an entry whose checksum was recomputed but whose value is not its best sowing's") {
    {
      sqlite::Connection c(file, sqlite::Connection::Mode::read_write);
      sqlite::Statement s = c.prepare("SELECT board, value, sowings FROM board WHERE ply = 0");
      REQUIRE(s.step());
      const std::string board = s.text(0), sowings = s.text(2);
      const int value = s.integer(1) + 2;
      const std::string text = board + "|" + std::to_string(value) + "|" + sowings;
      c.prepare("UPDATE board SET value = ?, crc = ? WHERE board = ?")
          .bind(1, value)
          .bind(2, static_cast<std::int64_t>(crc32c(text.data(), text.size())))
          .bind(3, board)
          .run();
    }
    api::KnownBoard k;
    CHECK(thrown([&] { Book(file).find(Position::start(3, 2).board(), k); }).find("not its best sowing") !=
          std::string::npos);
  }
  SECTION("the game in the meta table changed") {
    {
      sqlite::Connection c(file, sqlite::Connection::Mode::read_write);
      c.exec("UPDATE meta SET value = 'mover' WHERE key = 'end'");
    }
    CHECK(thrown([&] { Book b(file); }).find("fails its checksum") != std::string::npos);
  }
  SECTION("not a book") {
    const std::string other = (dir.path / "other").string();
    std::ofstream(other) << "not an SQLite file at all, but long enough to be read as a header........";
    CHECK_THROWS_AS(Book(other), BookError);
    CHECK_THROWS_AS(Book((dir.path / "missing").string()), BookError);
  }
  SECTION("a book of another game") {
    CHECK(thrown([&] { build(file, 3, 3, 4, Rules{}); }).find("a book of Kalah(3,2)") != std::string::npos);
    CHECK_THROWS_AS(build(file, 3, 2, 4, Rules::preset("empty-capture")), BookError);
    api::SessionConfig c = test::small_session_config(4, 2);
    c.book = std::make_shared<const Book>(file);
    CHECK_THROWS_AS(api::Session(c), api::ConfigError);
  }
  SECTION("a second writer while one is open") {
    const book::BookWriter writer(file, 3, 2, Rules{});
    CHECK(thrown([&] { book::BookWriter second(file, 3, 2, Rules{}); }).find("another kalah book build") !=
          std::string::npos);
  }
}

TEST_CASE("book: sessions with a book answer what they answer without it", "[book]") {
  for (const Rules& rules : {Rules{}, Rules::preset("empty-capture"), Rules::preset("relay")}) {
    CAPTURE(rules.describe());
    test::ScratchDir dir("book");
    const std::string file = (dir.path / "book.sqlite").string();
    build(file, 4, 3, 4, rules);
    api::SessionConfig with = test::small_session_config(4, 3, rules);
    with.book = std::make_shared<const Book>(file);
    api::Session booked(with);
    api::Session plain(test::small_session_config(4, 3, rules));
    for (const Position& p : test::random_positions(4, 3, rules, 30, 7, 6)) {
      CAPTURE(p.to_text());
      const api::SolveReport a = api::solve(booked, p);
      const api::SolveReport b = api::solve(plain, p);
      CHECK(a.value == b.value);
      CHECK(a.play.best == b.play.best);
      const api::LabelReport la = api::label(booked, p);
      const api::LabelReport lb = api::label(plain, p);
      CHECK(la.values.value == lb.values.value);
      REQUIRE(la.values.moves.size() == lb.values.moves.size());
      for (std::size_t i = 0; i < la.values.moves.size(); ++i) {
        CHECK(la.values.moves[i].pit == lb.values.moves[i].pit);
        CHECK(la.values.moves[i].value == lb.values.moves[i].value);
        CHECK(la.values.moves[i].extra_turn == lb.values.moves[i].extra_turn);
      }
      const api::ExploreReport ea = api::explore(booked, p);
      const api::ExploreReport eb = api::explore(plain, p);
      CHECK(ea.lower == eb.lower);
      REQUIRE(ea.moves.size() == eb.moves.size());
      for (std::size_t i = 0; i < ea.moves.size(); ++i) {
        CHECK(ea.moves[i].pit == eb.moves[i].pit);
        CHECK(ea.moves[i].lower == eb.moves[i].lower);
        CHECK(ea.moves[i].upper == eb.moves[i].upper);
      }
    }
    // The start position is in the book: its answers come from there, without a search.
    const Position start = Position::start(4, 3);
    const std::uint64_t hits = booked.book_hits();
    const api::LabelReport l = api::label(booked, start);
    CHECK(l.from_book);
    CHECK(l.nodes == 0);
    CHECK(booked.book_hits() == hits + 1);
    const api::ExploreReport e = api::explore(booked, start);
    for (const api::ExploreMove& m : e.moves)
      CHECK((m.source == api::ValueSource::book || m.source == api::ValueSource::end));
    // After a search that left a first guess, the book's answer reports none (not the last one).
    bool guessed = false;
    for (const Position& p : test::random_positions(4, 3, rules, 30, 8, 6)) {
      (void)api::solve(booked, p, true);
      if ((guessed = booked.solver().first_guess().has_value())) break;
    }
    REQUIRE(guessed);
    const api::SolveReport s = api::solve(booked, start, true);
    CHECK(s.stats.book_hits == 1);
    CHECK(s.stats.nodes == 0);
    CHECK(!s.stats.first_guess);
    CHECK(!booked.solver().first_guess());
    CHECK(s.stats.deepening_depth == 0);
  }
}

TEST_CASE("book: a position outside the book whose sowings lead into it is answered from it", "[book]") {
  test::ScratchDir dir("book");
  const std::string file = (dir.path / "book.sqlite").string();
  const Rules rules = Rules::preset("empty-capture");
  build(file, 4, 3, 3, rules);
  {
    sqlite::Connection c(file, sqlite::Connection::Mode::read_write);
    c.exec("DELETE FROM board WHERE ply = 0");  // the start is gone, its children stay
  }
  api::SessionConfig with = test::small_session_config(4, 3, rules);
  with.book = std::make_shared<const Book>(file);
  api::Session booked(with);
  api::Session plain(test::small_session_config(4, 3, rules));
  const Position start = Position::start(4, 3);
  const api::ExploreReport e = api::explore(booked, start);
  const api::ExploreReport f = api::explore(plain, start);
  REQUIRE(e.moves.size() == f.moves.size());
  for (std::size_t i = 0; i < e.moves.size(); ++i) {
    CHECK(e.moves[i].pit == f.moves[i].pit);
    CHECK(e.moves[i].lower == f.moves[i].lower);
    CHECK(e.moves[i].upper == f.moves[i].upper);
    CHECK((e.moves[i].source == api::ValueSource::book || e.moves[i].source == api::ValueSource::end));
  }
  const api::LabelReport l = api::label(booked, start);
  CHECK_FALSE(l.from_book);
  CHECK(l.nodes == 0);  // every sowing read from the book
  CHECK(l.values.value == api::label(plain, start).values.value);
  CHECK(api::solve(booked, start, true).value == api::solve(plain, start, true).value);
}

}  // namespace
}  // namespace kalah
