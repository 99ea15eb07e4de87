#include "solver/sqlite/sqlite.hpp"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits>

namespace kalah::sqlite {

namespace {

// The device and inode of the file at `path`; false if there is none.
bool file_identity(const std::string& path, std::uint64_t& device, std::uint64_t& inode) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  device = static_cast<std::uint64_t>(st.st_dev);
  inode = static_cast<std::uint64_t>(st.st_ino);
  return true;
}

}  // namespace

Connection::Connection(const std::string& file, Mode mode) : file_(file) {
  int flags = SQLITE_OPEN_NOMUTEX;
  if (mode == Mode::read_only) flags |= SQLITE_OPEN_READONLY;
  if (mode == Mode::read_write) flags |= SQLITE_OPEN_READWRITE;
  if (mode == Mode::create) flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE;
  const int rc = sqlite3_open_v2(file.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(file + ": cannot be opened: " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, 5000);  // a reader (job status) waits out a writer's commit
  identity_known_ = file_identity(file_, device_, inode_);
}

void Connection::require_same_file() {
  if (!replaced_.empty()) throw StoreError(replaced_);
  std::uint64_t device = 0, inode = 0;
  const bool present = file_identity(file_, device, inode);
  if (!identity_known_) {  // not on disk yet when opened
    identity_known_ = present;
    device_ = device;
    inode_ = inode;
    return;
  }
  if (present && device == device_ && inode == inode_) return;
  replaced_ = file_ + (present ? ": replaced" : ": removed") +
              " while this process held it (git checkout or stash, a copy or a move?); nothing more is written to it";
  // A name no file has: an orphan of an earlier process with the same pid stays as it is.
  const std::string base = file_ + ".orphan-" + std::to_string(::getpid());
  std::string orphan = base;
  struct stat taken {};
  for (int k = 2; ::lstat(orphan.c_str(), &taken) == 0; ++k) orphan = base + "-" + std::to_string(k);
  sqlite3_stmt* save = nullptr;
  int rc = sqlite3_prepare_v2(db_, "VACUUM INTO ?1", -1, &save, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_bind_text(save, 1, orphan.c_str(), -1, SQLITE_TRANSIENT);
  if (rc == SQLITE_OK) rc = sqlite3_step(save);
  const std::string error = sqlite3_errmsg(db_);
  sqlite3_finalize(save);
  // The -wal beside the path is still this connection's: a reader of the new file would take
  // its frames for its own. Checkpointed into the unlinked file and truncated, it is empty.
  sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  if (rc == SQLITE_DONE)
    replaced_ +=
        "; what this process held is saved in " + orphan + ": move it over the file once nothing else uses that";
  else
    replaced_ += "; saving what this process held as " + orphan + " failed: " + error;
  throw StoreError(replaced_);
}

Connection::~Connection() { sqlite3_close(db_); }

void Connection::fail(const std::string& what) const {
  throw StoreError(file_ + ": " + what + ": " + (db_ ? sqlite3_errmsg(db_) : "no connection"));
}

void Connection::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw StoreError(file_ + ": " + msg);
  }
}

Statement Connection::prepare(const std::string& sql) { return Statement(*this, sql); }

std::int64_t Connection::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

Statement::Statement(Connection& c, const std::string& sql) : c_(&c) {
  if (sqlite3_prepare_v2(c.db_, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK) c.fail("cannot prepare \"" + sql + "\"");
}

Statement::~Statement() { sqlite3_finalize(s_); }

Statement& Statement::bind(int i, std::int64_t v) {
  if (sqlite3_bind_int64(s_, i, v) != SQLITE_OK) c_->fail("cannot bind a value");
  return *this;
}

Statement& Statement::bind(int i, double v) {
  if (sqlite3_bind_double(s_, i, v) != SQLITE_OK) c_->fail("cannot bind a value");
  return *this;
}

Statement& Statement::bind(int i, const std::string& v) {
  if (sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    c_->fail("cannot bind a value");
  return *this;
}

Statement& Statement::bind_blob(int i, std::span<const std::uint8_t> v) {
  if (sqlite3_bind_blob(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    c_->fail("cannot bind a value");
  return *this;
}

Statement& Statement::bind_null(int i) {
  if (sqlite3_bind_null(s_, i) != SQLITE_OK) c_->fail("cannot bind a value");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(s_);
  c_->fail("a statement failed");
}

void Statement::reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
}

bool Statement::is_null(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
std::int64_t Statement::int64(int col) const { return sqlite3_column_int64(s_, col); }

int Statement::integer(int col) const {
  const std::int64_t v = sqlite3_column_int64(s_, col);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw StoreError(c_->file() + ": a stored integer is out of range (" + std::to_string(v) + ")");
  return static_cast<int>(v);
}

double Statement::real(int col) const { return sqlite3_column_double(s_, col); }

std::string Statement::text(int col) const {
  const unsigned char* t = sqlite3_column_text(s_, col);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(s_, col)))
           : std::string();
}

std::vector<std::uint8_t> Statement::blob(int col) const {
  const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(s_, col));
  const int n = sqlite3_column_bytes(s_, col);
  return p ? std::vector<std::uint8_t>(p, p + n) : std::vector<std::uint8_t>();
}

}  // namespace kalah::sqlite
