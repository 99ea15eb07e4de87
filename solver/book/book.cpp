#include "solver/book/book.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>

#include "engine/text.hpp"
#include "solver/db/crc32c.hpp"

namespace kalah::book {

namespace fs = std::filesystem;
using sqlite::Connection;
using sqlite::Statement;
using sqlite::StoreError;
using sqlite::Transaction;

namespace {

constexpr const char* kKind = "kalah opening book";
constexpr int kEntriesPerTransaction = 4096;

constexpr const char* kSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE board (board TEXT PRIMARY KEY, ply INTEGER NOT NULL, value INTEGER NOT NULL,
                    sowings TEXT NOT NULL, crc INTEGER NOT NULL) WITHOUT ROWID;
)sql";

std::string sowings_text(const api::KnownBoard& k, int pits) {
  std::string s;
  for (int pit = 0; pit < pits; ++pit) {
    if (pit) s += ',';
    if (k.is_legal(pit)) s += std::to_string(k.sowing[pit]);
  }
  return s;
}

std::uint32_t entry_crc(const std::string& board, int value, const std::string& sowings) {
  const std::string text = board + "|" + std::to_string(value) + "|" + sowings;
  return crc32c(text.data(), text.size());
}

bool parse_int(std::string_view s, int& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// Fills k.sowing and k.legal from the sowings text; false when it does not parse.
bool parse_sowings(const std::string& text, int pits, api::KnownBoard& k) {
  k.legal = 0;
  std::size_t start = 0;
  for (int pit = 0; pit < pits; ++pit) {
    const std::size_t comma = pit + 1 < pits ? text.find(',', start) : text.size();
    if (comma == std::string::npos) return false;
    const std::string_view field(text.data() + start, comma - start);
    if (!field.empty()) {
      if (!parse_int(field, k.sowing[pit])) return false;
      k.legal |= static_cast<std::uint8_t>(1u << pit);
    }
    start = comma + 1;
  }
  return start == text.size() + 1;
}

std::int64_t pragma(Connection& c, const std::string& name) {
  Statement s = c.prepare("PRAGMA " + name);
  if (!s.step()) c.fail("PRAGMA " + name + " gave nothing");
  return s.int64(0);
}

std::uint32_t meta_crc(const std::string& pits, const std::string& seeds, const Rules& rules) {
  const std::string text = std::string(kKind) + "|" + pits + "|" + seeds + "|" + std::string(to_string(rules.sowing)) +
                           "|" + std::string(to_string(rules.capture)) + "|" + std::string(to_string(rules.end));
  return crc32c(text.data(), text.size());
}

long long meta_number(const std::string& text, const char* key) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(std::string(key) + " is not a number");
  return v;
}

// Reads and checks the meta table of an open book.
BookInfo read_info(Connection& c, const std::string& file) {
  std::int64_t app = 0;
  try {
    app = pragma(c, "application_id");
  } catch (const StoreError& e) {
    throw BookError(file + ": not a kalah book (" + e.what() + ")");
  }
  if (app != kApplicationId)
    throw BookError(file + ": not a kalah book (SQLite application id " + std::to_string(app) + ")");
  const std::int64_t format = pragma(c, "user_version");
  if (format != kFormat)
    throw BookError(file + ": book format " + std::to_string(format) + ", this kalah reads format " +
                    std::to_string(kFormat));
  std::map<std::string, std::string> meta;
  for (Statement s = c.prepare("SELECT key, value FROM meta"); s.step();) meta[s.text(0)] = s.text(1);
  auto need = [&](const char* k) -> const std::string& {
    const auto it = meta.find(k);
    if (it == meta.end()) throw BookError(file + ": damaged (no '" + k + "' in its meta table)");
    return it->second;
  };
  BookInfo info;
  info.format = static_cast<int>(format);
  try {
    if (need("kind") != kKind) throw std::invalid_argument("kind is not '" + std::string(kKind) + "'");
    info.pits = static_cast<int>(meta_number(need("pits"), "pits"));
    info.seeds = static_cast<int>(meta_number(need("seeds"), "seeds"));
    info.plies = static_cast<int>(meta_number(need("plies"), "plies"));
    info.rules.sowing = parse_sowing(need("sowing"));
    info.rules.capture = parse_capture(need("capture"));
    info.rules.end = parse_end_rule(need("end"));
    if (meta_number(need("crc"), "crc") != meta_crc(need("pits"), need("seeds"), info.rules))
      throw std::invalid_argument("the game it describes fails its checksum");
    if (info.pits < 1 || info.pits > kMaxPits) throw std::invalid_argument("pits out of range");
    if (info.seeds < 1 || info.plies < -1 || info.plies > kMaxPlies)
      throw std::invalid_argument("seeds or plies out of range");
  } catch (const BookError&) {
    throw;
  } catch (const std::exception& e) {
    throw BookError(file + ": damaged (its meta table cannot be read: " + one_line(e.what(), 200) + ")");
  }
  return info;
}

// An entry's columns to a known board: its checksum checked, then that it holds a value for
// exactly the board's non-empty pits and that the board's value is the best of them.
api::KnownBoard read_entry(const std::string& file, int pits, const Board& b, const std::string& board, int value,
                           const std::string& sowings, std::int64_t crc) {
  const auto damaged = [&](const char* what) {
    return BookError(file + ": damaged (the entry of board " + quoted(board, 80) + " " + what + ")");
  };
  if (static_cast<std::int64_t>(entry_crc(board, value, sowings)) != crc) throw damaged("fails its checksum");
  api::KnownBoard k;
  k.value = value;
  if (!parse_sowings(sowings, pits, k)) throw damaged("has sowings that do not parse");
  int best = std::numeric_limits<int>::min();
  for (int pit = 0; pit < pits; ++pit) {
    if (k.is_legal(pit) != (b.cells[pit] != 0)) throw damaged("does not match the board's non-empty pits");
    if (k.is_legal(pit)) best = std::max(best, k.sowing[pit]);
  }
  if (best != value) throw damaged("has a value that is not its best sowing's");
  return k;
}

}  // namespace

std::string board_text(const Board& b, int pits) {
  std::string s;
  for (int i = 0; i < 2 * pits; ++i) {
    if (i) s += i == pits ? '/' : ',';
    s += std::to_string(b.cells[i]);
  }
  return s;
}

Board parse_board(const std::string& text, int pits, const std::string& file) {
  Board b;
  std::size_t start = 0;
  for (int i = 0; i < 2 * pits; ++i) {
    const char sep = i + 1 == pits ? '/' : ',';
    const std::size_t end = i + 1 < 2 * pits ? text.find(sep, start) : text.size();
    int v = 0;
    if (end == std::string::npos || !parse_int(std::string_view(text.data() + start, end - start), v) || v < 0 ||
        v > kMaxSeeds)
      throw BookError(file + ": damaged (board " + quoted(text, 80) + " does not parse)");
    b.cells[i] = static_cast<std::uint8_t>(v);
    start = end + 1;
  }
  return b;
}

Book::Book(const std::string& file) : file_(file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw BookError(file + ": no such book (kalah book build " + file + " --pits M --seeds N --plies P makes one)");
  try {
    connection_ = std::make_unique<Connection>(file, Connection::Mode::read_only);
    info_ = read_info(*connection_, file);
    lookup_ =
        std::make_unique<Statement>(connection_->prepare("SELECT value, sowings, crc FROM board WHERE board = ?"));
  } catch (const StoreError& e) {
    throw BookError(e.what());
  }
}

bool Book::find(const Board& b, api::KnownBoard& out) const {
  const std::string key = board_text(b, info_.pits);
  std::lock_guard lock(mutex_);
  try {
    lookup_->bind(1, key);
    if (!lookup_->step()) {
      lookup_->reset();
      return false;
    }
    const int value = lookup_->integer(0);
    const std::string sowings = lookup_->text(1);
    const std::int64_t crc = lookup_->int64(2);
    lookup_->reset();
    out = read_entry(file_, info_.pits, b, key, value, sowings, crc);
    return true;
  } catch (const StoreError& e) {
    lookup_->reset();
    throw BookError(e.what());
  }
}

std::uint64_t Book::boards() const {
  std::lock_guard lock(mutex_);
  try {
    Statement count = connection_->prepare("SELECT count(*) FROM board");
    return count.step() ? static_cast<std::uint64_t>(count.int64(0)) : 0;
  } catch (const StoreError& e) {
    throw BookError(e.what());
  }
}

std::vector<std::uint64_t> Book::verify() const {
  std::lock_guard lock(mutex_);
  std::vector<std::uint64_t> by_ply;
  try {
    Statement check = connection_->prepare("PRAGMA integrity_check");
    std::string verdict;
    while (check.step()) verdict += (verdict.empty() ? "" : "; ") + check.text(0);
    if (verdict != "ok") throw BookError(file_ + ": damaged (SQLite integrity_check: " + one_line(verdict, 200) + ")");
    for (Statement s = connection_->prepare("SELECT board, ply, value, sowings, crc FROM board"); s.step();) {
      const std::string board = s.text(0);
      read_entry(file_, info_.pits, parse_board(board, info_.pits, file_), board, s.integer(2), s.text(3), s.int64(4));
      const int ply = s.integer(1);
      if (ply < 0 || ply > kMaxPlies)
        throw BookError(file_ + ": damaged (board " + quoted(board, 80) + " has ply " + std::to_string(ply) + ")");
      if (by_ply.size() <= static_cast<std::size_t>(ply)) by_ply.resize(ply + 1);
      ++by_ply[ply];
    }
  } catch (const StoreError& e) {
    throw BookError(e.what());
  }
  return by_ply;
}

BookWriter::BookWriter(const std::string& file, int pits, int seeds, const Rules& rules) : file_(file) {
  const Rules natural = rules.value_rules();
  std::error_code ec;
  const bool exists = fs::exists(file, ec);
  try {
    if (!exists) {
      // Made under a name of this process's, then published with link(), which never replaces
      // a file: a half-made book is never found, and of two builds creating the same book at
      // once one publishes and the other opens that one (and meets its lock).
      const std::string tmp = file + ".new-" + std::to_string(::getpid());
      for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(tmp + suffix, ec);
      {
        Connection c(tmp, Connection::Mode::create);
        c.exec("PRAGMA application_id=" + std::to_string(kApplicationId));
        c.exec("PRAGMA user_version=" + std::to_string(kFormat));
        c.exec("PRAGMA journal_mode=WAL");
        Transaction t(c);
        c.exec(kSchema);
        Statement put = c.prepare("INSERT INTO meta(key, value) VALUES (?, ?)");
        auto meta = [&](const std::string& k, const std::string& v) { put.bind(1, k).bind(2, v).run(); };
        meta("kind", kKind);
        meta("pits", std::to_string(pits));
        meta("seeds", std::to_string(seeds));
        meta("sowing", std::string(to_string(natural.sowing)));
        meta("capture", std::string(to_string(natural.capture)));
        meta("end", std::string(to_string(natural.end)));
        meta("rules", natural.describe());
        meta("crc", std::to_string(meta_crc(std::to_string(pits), std::to_string(seeds), natural)));
        meta("plies", "-1");
        t.commit();
      }
      const int linked = ::link(tmp.c_str(), file.c_str());
      const int link_errno = errno;
      fs::remove(tmp, ec);
      if (linked != 0 && link_errno != EEXIST)
        throw BookError(file + ": cannot be created: " + std::strerror(link_errno));
    }
    // One build a book: an exclusive flock on the file (independent of SQLite's own locks).
    lock_fd_ = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
    if (lock_fd_ < 0) throw BookError(file + ": cannot be opened: " + std::strerror(errno));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0)
      throw BookError(file +
                      ": another kalah book build is writing this book; run this one again when it has finished");
    connection_ = std::make_unique<Connection>(file, Connection::Mode::read_write);
    info_ = read_info(*connection_, file);
    connection_->exec("PRAGMA journal_mode=WAL");
    connection_->exec("PRAGMA synchronous=NORMAL");
  } catch (const StoreError& e) {
    if (lock_fd_ >= 0) ::close(lock_fd_);
    throw BookError(e.what());
  } catch (...) {
    if (lock_fd_ >= 0) ::close(lock_fd_);
    throw;
  }
  if (info_.pits != pits || info_.seeds != seeds || !info_.rules.same_values_as(natural)) {
    ::close(lock_fd_);
    throw BookError(file + ": a book of Kalah(" + std::to_string(info_.pits) + "," + std::to_string(info_.seeds) +
                    ") under '" + info_.rules.describe() + "', not Kalah(" + std::to_string(pits) + "," +
                    std::to_string(seeds) + ") under '" + natural.describe() + "'");
  }
  insert_ = std::make_unique<Statement>(
      connection_->prepare("INSERT OR REPLACE INTO board(board, ply, value, sowings, crc) VALUES (?, ?, ?, ?, ?)"));
}

BookWriter::~BookWriter() {
  try {
    flush();
  } catch (...) {
  }
  insert_.reset();
  transaction_.reset();
  // Back to a rollback journal: the book is one file again (the WAL checkpointed into it),
  // readable from a read-only place. A reader holding it open makes this fail: it stays WAL.
  try {
    connection_->exec("PRAGMA journal_mode=DELETE");
  } catch (...) {
  }
  connection_.reset();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::uint64_t BookWriter::load_sound(const std::function<void(const Board&, int, const api::KnownBoard&)>& f,
                                     std::string* first) {
  std::vector<std::string> damaged;
  try {
    for (Statement s = connection_->prepare("SELECT board, ply, value, sowings, crc FROM board"); s.step();) {
      const std::string board = s.text(0);
      try {
        const Board b = parse_board(board, info_.pits, file_);
        const api::KnownBoard k = read_entry(file_, info_.pits, b, board, s.integer(2), s.text(3), s.int64(4));
        f(b, s.integer(1), k);
      } catch (const BookError& e) {
        if (damaged.empty() && first) *first = e.what();
        damaged.push_back(board);
      }
    }
    if (damaged.empty()) return 0;
    flush();
    Transaction t(*connection_);
    Statement drop = connection_->prepare("DELETE FROM board WHERE board = ?");
    for (const std::string& board : damaged) drop.bind(1, board).run();
    connection_->prepare("UPDATE meta SET value = '-1' WHERE key = 'plies'").run();
    t.commit();
    info_.plies = -1;
  } catch (const StoreError& e) {
    throw BookError(e.what());
  }
  return damaged.size();
}

void BookWriter::add(const Board& b, int ply, const api::KnownBoard& k) {
  try {
    if (!transaction_) transaction_ = std::make_unique<Transaction>(*connection_);
    const std::string key = board_text(b, info_.pits);
    const std::string sowings = sowings_text(k, info_.pits);
    insert_->bind(1, key)
        .bind(2, ply)
        .bind(3, k.value)
        .bind(4, sowings)
        .bind(5, static_cast<std::int64_t>(entry_crc(key, k.value, sowings)))
        .run();
    if (++pending_ >= kEntriesPerTransaction) flush();
  } catch (const StoreError& e) {
    throw BookError(e.what());
  }
}

void BookWriter::flush() {
  if (!transaction_) return;
  try {
    transaction_->commit();
  } catch (const StoreError& e) {
    transaction_.reset();
    throw BookError(e.what());
  }
  transaction_.reset();
  pending_ = 0;
}

void BookWriter::set_plies(int plies) {
  flush();
  try {
    connection_->prepare("UPDATE meta SET value = ? WHERE key = 'plies'").bind(1, std::to_string(plies)).run();
  } catch (const StoreError& e) {
    throw BookError(e.what());
  }
  info_.plies = plies;
}

}  // namespace kalah::book
