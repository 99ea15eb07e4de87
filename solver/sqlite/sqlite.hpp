// solver/sqlite/sqlite.hpp — a thin RAII layer over SQLite (Debian's libsqlite3): a connection
// and its prepared statements, every failure thrown as StoreError naming the file and what
// SQLite said. Nothing here knows what a job or a book is.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace kalah::sqlite {

// A store that cannot be opened, read or written; the message is one line naming the file.
struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Statement;

class Connection {
 public:
  enum class Mode { read_only, read_write, create };
  // Opens `file` (create: the file must not exist). Throws StoreError.
  Connection(const std::string& file, Mode mode);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void exec(const std::string& sql);  // statements without results
  Statement prepare(const std::string& sql);
  std::int64_t last_insert_id() const;
  const std::string& file() const { return file_; }
  // Throws StoreError: "<file>: <what>: <SQLite's message>".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  friend class Statement;
  friend class Transaction;
  // Throws StoreError if the file at this connection's path is no longer the one it opened:
  // replaced (git checkout or stash, a copy or a move over it) or removed while this process
  // holds it. SQLite cannot see that: it would go on writing to the unlinked file, lost when
  // the process exits. What the connection holds is first saved as "<file>.orphan-<pid>"
  // (or "-<pid>-2", ... if taken; VACUUM INTO), so nothing written is lost; from then on
  // every write is refused. Every Transaction checks before it begins (one stat), so every
  // write goes through a Transaction.
  void require_same_file();

  sqlite3* db_ = nullptr;
  std::string file_;
  bool identity_known_ = false;  // the file's device and inode when opened
  std::uint64_t device_ = 0, inode_ = 0;
  std::string replaced_;  // once replaced: the error every later write gets
};

// A prepared statement. Bind parameters 1-based, step() through rows, read columns 0-based.
class Statement {
 public:
  Statement(Connection& c, const std::string& sql);
  ~Statement();
  Statement(Statement&& o) noexcept : c_(o.c_), s_(o.s_) { o.s_ = nullptr; }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, std::int64_t v);
  Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, double v);
  Statement& bind(int i, const std::string& v);
  Statement& bind_blob(int i, std::span<const std::uint8_t> v);
  Statement& bind_null(int i);
  bool step();  // true: a row is ready; false: done
  void run() {  // steps to the end and resets
    while (step()) {
    }
    reset();
  }
  void reset();  // ready to run again, bindings cleared

  bool is_null(int col) const;
  std::int64_t int64(int col) const;
  int integer(int col) const;
  double real(int col) const;
  std::string text(int col) const;  // empty for NULL
  std::vector<std::uint8_t> blob(int col) const;

 private:
  Connection* c_;
  sqlite3_stmt* s_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT; rolled back if destroyed before commit(). Refused (StoreError)
// when the file was replaced under the connection (Connection::require_same_file).
class Transaction {
 public:
  explicit Transaction(Connection& c) : c_(c) {
    c_.require_same_file();
    c_.exec("BEGIN IMMEDIATE");
  }
  ~Transaction() {
    if (!done_) try {
        c_.exec("ROLLBACK");
      } catch (...) {
      }
  }
  void commit() {
    c_.exec("COMMIT");
    done_ = true;
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

 private:
  Connection& c_;
  bool done_ = false;
};

}  // namespace kalah::sqlite
