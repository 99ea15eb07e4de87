// solver/book/book.hpp — the opening book: an SQLite file (Debian's libsqlite3) of solved
// boards, each with its exact value and every sowing's, looked up before any search.
//
// File format 1 (docs/book.md), application_id 0x4B424F4B ("KBOK"), user_version 1 (the format):
//   meta(key TEXT PRIMARY KEY, value TEXT)   kind, pits, seeds (a pit at the start), sowing,
//                                            capture, end (the value rules), rules (their
//                                            description, for people), crc (CRC32C of
//                                            "kind|pits|seeds|sowing|capture|end"), plies (every
//                                            board within that many sowings of the start is in
//                                            the book; -1: no depth complete yet)
//   board(board TEXT PRIMARY KEY,            "a,b,c/d,e,f": the mover's pits then the
//                                            opponent's, each from its owner's left (as
//                                            engine/board.hpp sees a board)
//         ply INTEGER,                       the fewest sowings from the start that reach it
//         value INTEGER,                     its remainder value for the mover
//         sowings TEXT,                      m comma-separated values, the mover's leftmost pit
//                                            first: the mover's value through that sowing (empty:
//                                            an empty pit)
//         crc INTEGER)                       CRC32C of "board|value|sowings", checked on read
// A board is keyed without stores or side, so a position's transpositions (stores or sides
// exchanged) share one entry. Only boards where the game goes on are stored. An entry read is
// checked against its checksum and against its board (a value for exactly the non-empty pits,
// the board's value the best of them).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/board.hpp"
#include "engine/rules.hpp"
#include "solver/api/known_boards.hpp"
#include "solver/sqlite/sqlite.hpp"

namespace kalah::book {

inline constexpr int kFormat = 1;
inline constexpr int kMaxPlies = 200;                       // the deepest book a build makes
inline constexpr std::int64_t kApplicationId = 0x4B424F4B;  // "KBOK"

// A file that is not a book, a damaged entry, a book of another game, or a book another
// build is writing: the message is one line naming the file.
struct BookError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a book's meta table says.
struct BookInfo {
  int format = kFormat;
  int pits = 0;
  int seeds = 0;  // a pit at the start
  Rules rules;    // value rules
  int plies = -1;
};

// The board's key text ("a,b,c/d,e,f") and back; parse_board throws BookError.
std::string board_text(const Board& b, int pits);
Board parse_board(const std::string& text, int pits, const std::string& file);

// A book opened to read: thread-safe lookups (one connection, one statement, a mutex).
class Book final : public api::KnownBoards {
 public:
  // Throws BookError when `file` is missing, not a book, or of another format.
  explicit Book(const std::string& file);

  const BookInfo& info() const { return info_; }
  std::uint64_t boards() const;  // the entries (a count over the file: not for every lookup)
  int pits() const override { return info_.pits; }
  Rules value_rules() const override { return info_.rules; }
  std::string name() const override { return file_; }
  // Throws BookError when the entry fails its checksum or does not parse.
  bool find(const Board& b, api::KnownBoard& out) const override;
  // Every entry read and its checksum checked, and SQLite's integrity check; returns the
  // number of boards by ply. Throws BookError at the first fault.
  std::vector<std::uint64_t> verify() const;

 private:
  std::string file_;
  BookInfo info_;
  mutable std::mutex mutex_;
  mutable std::unique_ptr<sqlite::Connection> connection_;
  mutable std::unique_ptr<sqlite::Statement> lookup_;
};

// A book opened to write (one build at a time: an exclusive lock on the file).
class BookWriter {
 public:
  // Opens `file` for a book of Kalah(pits, seeds) under `rules` (their value rules), creating
  // it when missing. Throws BookError for a book of another game, or one another process is
  // writing.
  BookWriter(const std::string& file, int pits, int seeds, const Rules& rules);
  ~BookWriter();
  BookWriter(const BookWriter&) = delete;
  BookWriter& operator=(const BookWriter&) = delete;

  const BookInfo& info() const { return info_; }
  // Every sound entry the file holds (a resumed build starts from them). Entries that fail
  // their checks (see Book::find) are deleted instead, so that a build solves their boards
  // again, and the book's complete depth is forgotten with them (a build sets it again);
  // returns how many, and the first one's reason in *first (when not null).
  std::uint64_t load_sound(const std::function<void(const Board&, int ply, const api::KnownBoard&)>& f,
                           std::string* first = nullptr);
  // Stores an entry; written in transactions of many entries (flush() commits the rest).
  void add(const Board& b, int ply, const api::KnownBoard& k);
  void flush();
  // Records that every board within `plies` sowings is in the book (flushes first).
  void set_plies(int plies);

 private:
  std::string file_;
  BookInfo info_;
  int lock_fd_ = -1;
  std::unique_ptr<sqlite::Connection> connection_;
  std::unique_ptr<sqlite::Statement> insert_;
  std::unique_ptr<sqlite::Transaction> transaction_;
  int pending_ = 0;
};

}  // namespace kalah::book
