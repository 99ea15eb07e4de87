// kalah label: exact values of every legal sowing for many positions, one a line in, one
// JSON object a line out (docs/json.md). Reads and writes the lines, resumes an output file
// that a stopped run left, shows progress; api::label_batch does the work on worker threads.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <thread>

#include "engine/text.hpp"
#include "solver/api/label.hpp"
#include "solver/api/report_json.hpp"
#include "solver/cli/commands.hpp"
#include "solver/cli/common.hpp"
#include "solver/cli/interrupt.hpp"
#include "solver/cli/session_options.hpp"

namespace kalah::cli {

namespace {

using Clock = std::chrono::steady_clock;
using api::Json;

// A failure while working (exit 1), named on one line.
struct LabelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string trimmed(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
}

// A line that holds no position: blank, or a comment starting with '#'.
bool skipped(const std::string& text) { return text.empty() || text[0] == '#'; }

// The position a line names: position text, or a JSON object with a "position" string.
// Throws std::invalid_argument (PositionError included) naming what is wrong.
Position parse_line(const std::string& text, int pits) {
  std::string position = text;
  if (text[0] == '{') {
    Json j;
    try {
      j = Json::parse(text);
    } catch (const Json::exception&) {
      throw std::invalid_argument("not a JSON object: " + kalah::quoted(text));
    }
    if (!j.is_object() || !j.contains("position") || !j["position"].is_string())
      throw std::invalid_argument("no \"position\" string in the JSON object " + kalah::quoted(text));
    position = j["position"].get<std::string>();
  }
  return Position::parse(position, pits);
}

// The output file, locked against a second run, its torn last line (a run killed while
// writing) cut off. `last` receives its last line's JSON (null when it holds none).
class OutputFile {
 public:
  explicit OutputFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw LabelError("cannot open " + kalah::quoted(path) + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0)
      throw LabelError(kalah::quoted(path) + " is being written by another kalah label run");
  }
  ~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Cut a torn last line and return the last complete line's JSON (null: the file is empty).
  Json recover() {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw LabelError("cannot read " + kalah::quoted(path_) + ": " + std::strerror(errno));
    std::string data(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < data.size()) {
      const ssize_t n = ::pread(fd_, data.data() + got, data.size() - got, static_cast<off_t>(got));
      if (n <= 0) throw LabelError("cannot read " + kalah::quoted(path_) + ": " + std::strerror(n < 0 ? errno : EIO));
      got += static_cast<std::size_t>(n);
    }
    const std::size_t end = data.rfind('\n') == std::string::npos ? 0 : data.rfind('\n') + 1;
    if (end < data.size()) {
      if (::ftruncate(fd_, static_cast<off_t>(end)) != 0)
        throw LabelError("cannot cut the torn last line of " + kalah::quoted(path_) + ": " + std::strerror(errno));
      torn_ = true;
    }
    if (end == 0) return nullptr;
    const std::string body = data.substr(0, end - 1);  // without the last newline
    const std::size_t newline = body.rfind('\n');
    const std::string last = body.substr(newline == std::string::npos ? 0 : newline + 1);
    try {
      Json j = Json::parse(last);
      if (j.is_object() && j.contains("line") && j["line"].is_number_unsigned()) return j;
    } catch (const Json::exception&) {
    }
    throw LabelError(kalah::quoted(path_) + " does not end with a kalah label line (" + kalah::quoted(last) +
                     "): refusing to append to it");
  }
  bool torn() const { return torn_; }

  void write(const std::string& line) {
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw LabelError("cannot write " + kalah::quoted(path_) + ": " + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
    if (Clock::now() - synced_ > std::chrono::seconds(1)) sync();
  }
  void sync() {
    if (::fdatasync(fd_) != 0) throw LabelError("cannot write " + kalah::quoted(path_) + ": " + std::strerror(errno));
    synced_ = Clock::now();
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool torn_ = false;
  Clock::time_point synced_ = Clock::now();
};

// Lines with a position in a regular file (for the progress's total), or -1.
long long count_positions(const std::string& path) {
  struct stat st {};
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  std::ifstream in(path);
  long long n = 0;
  for (std::string line; std::getline(in, line);) n += skipped(trimmed(line)) ? 0 : 1;
  return n;
}

// Progress on stderr: a line rewritten in place on a terminal, a plain line every 10 s in a log.
class Progress {
 public:
  Progress(long long total, long long done_before)
      : total_(total), before_(done_before), tty_(::isatty(STDERR_FILENO) != 0) {}
  void update(long long done) {
    const auto now = Clock::now();
    if (now - shown_ < (tty_ ? std::chrono::milliseconds(200) : std::chrono::milliseconds(10000))) return;
    shown_ = now;
    const double seconds = std::chrono::duration<double>(now - t0_).count();
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    std::string text = "label: " + std::to_string(before_ + done) +
                       (total_ >= 0 ? " of " + std::to_string(total_) : "") + " positions, " +
                       std::to_string(static_cast<long long>(rate * 3600)) + " an hour";
    if (total_ >= 0 && rate > 0) {
      const double left = static_cast<double>(total_ - before_ - done) / rate;
      text += ", about " + std::to_string(static_cast<long long>(left / 60)) + " min " +
              std::to_string(static_cast<long long>(left) % 60) + " s left";
    }
    if (tty_)
      std::cerr << "\r" << text << "\033[K" << std::flush;
    else
      std::cerr << text << "\n";
    dirty_ = tty_;
  }
  void end() {
    if (dirty_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  long long total_, before_;
  bool tty_;
  bool dirty_ = false;
  Clock::time_point t0_ = Clock::now(), shown_ = Clock::now();
};

}  // namespace

int run_label(const Args& args) {
  po::options_description options("Label options");
  // clang-format off
  options.add_options()
      ("pits,m", po::value<int>()->default_value(6), "pits a side of the positions")
      ("seeds,n", po::value<int>()->default_value(4),
       "seeds a pit of the game they come from: a position may hold at most 2 * pits * seeds seeds in its pits")
      ("in", po::value<std::string>()->default_value("-"), "positions, one a line (position text or a JSON object "
       "with \"position\"; blank lines and lines starting with # are skipped); - reads standard input")
      ("out", po::value<std::string>()->default_value("-"), "JSON lines out; a file a stopped run left is "
       "continued after its last line; - writes standard output")
      ("own-tables", "give each worker (one a thread) a table of its own (--tt-memory split between them) instead of one shared");
  // clang-format on
  options.add(rule_options()).add(search_options()).add(book_options());
  po::variables_map vm;
  if (!parse_command("label",
                     "[--pits M --seeds N] [rule options] [--db DIR] [--book FILE] [--threads T] [--tt-memory SIZE] "
                     "[--own-tables] [--in FILE|-] [--out FILE|-]",
                     options, args, vm))
    return 0;
  const Rules rules = rules_from(vm);
  const int pits = vm["pits"].as<int>(), seeds = vm["seeds"].as<int>();
  if (seeds < 1) throw UsageError("--seeds must be at least 1");
  try {
    check_size(pits, seeds);
  } catch (const PositionError& e) {
    throw UsageError(e.what());
  }
  api::SessionConfig config = session_config(vm, pits, rules, 2 * pits * seeds);
  config.book = book_from(vm);
  config.progress = nullptr;
  const api::BatchWorkers workers{
      config.threads > 0 ? config.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())),
      !vm.count("own-tables")};
  const std::string in_path = vm["in"].as<std::string>(), out_path = vm["out"].as<std::string>();

  std::ifstream in_file;
  if (in_path != "-") {
    in_file.open(in_path);
    if (!in_file) throw LabelError("cannot open " + kalah::quoted(in_path) + ": " + std::strerror(errno));
  }
  std::istream& in = in_path == "-" ? std::cin : in_file;

  // Resume: skip the input lines a previous run's output already covers.
  std::unique_ptr<OutputFile> out;
  long long resume_after = 0, done_before = 0;
  Json last = nullptr;
  if (out_path != "-") {
    out = std::make_unique<OutputFile>(out_path);
    last = out->recover();
    if (out->torn())
      std::cerr << "note: cut the torn last line of " << kalah::quoted(out_path)
                << " (a run stopped while writing it)\n";
    if (!last.is_null()) resume_after = last["line"].get<long long>();
  }
  long long line_number = 0;
  std::string line;
  while (line_number < resume_after) {
    if (!std::getline(in, line))
      throw LabelError(kalah::quoted(out_path) + " goes to input line " + std::to_string(resume_after) +
                       ", the input has " + std::to_string(line_number) + " lines: it was written from another input");
    ++line_number;
    const std::string text = trimmed(line);
    if (!skipped(text)) ++done_before;
    if (line_number == resume_after && last.contains("position")) {
      std::string given;
      try {
        given = parse_line(text, pits).to_text();
      } catch (const std::invalid_argument&) {
      }
      if (given != last["position"].get<std::string>())
        throw LabelError(kalah::quoted(out_path) + " was written from another input: its line for input line " +
                         std::to_string(line_number) + " holds " + kalah::quoted(last["position"].get<std::string>()) +
                         ", the input has " + kalah::quoted(text));
    }
  }
  if (resume_after > 0)
    std::cerr << "note: " << kalah::quoted(out_path) << " holds input lines 1.." << resume_after
              << ": going on from line " << resume_after + 1 << "\n";

  const long long total = count_positions(in_path);
  Progress progress(total, done_before);
  long long labelled = 0, errors = 0;
  const auto t0 = Clock::now();
  auto next = [&](api::BatchInput& item) {
    for (;;) {
      if (!std::getline(in, line)) return false;
      ++line_number;
      const std::string text = trimmed(line);
      if (skipped(text)) continue;
      item.tag = line_number;
      try {
        item.position = parse_line(text, pits);
      } catch (const std::invalid_argument& e) {
        item.error = e.what();
      }
      return true;
    }
  };
  auto done = [&](const api::BatchInput& item, const api::BatchResult& result) {
    Json j;
    if (result.report) {
      j = api::to_json(*result.report);
      ++labelled;
    } else {
      j["error"] = one_line(result.error, 400);
      if (item.position) j["position"] = item.position->to_text();
      ++errors;
    }
    Json ordered;
    ordered["line"] = item.tag;
    ordered.update(j);
    const std::string text = ordered.dump() + "\n";
    if (out)
      out->write(text);
    else
      std::cout << text << std::flush;
    progress.update(labelled + errors);
  };
  catch_interrupts();
  const bool complete = api::label_batch(config, workers, next, done);
  if (out) out->sync();
  progress.end();
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.1f", seconds);
  std::cerr << "label: " << labelled << " positions labelled, " << errors << " errors, in " << elapsed << " s ("
            << (seconds > 0 ? static_cast<long long>(static_cast<double>(labelled + errors) / seconds * 3600) : 0)
            << " an hour, " << workers.count << " workers)";
  if (!complete) {
    std::cerr << "; interrupted: run the same command again to go on"
              << (out ? std::string(" after the last line of ") + kalah::quoted(out_path)
                      : std::string(" (with --out FILE to resume)"))
              << "\n";
    return interrupt_exit_code();
  }
  std::cerr << "\n";
  return 0;
}

}  // namespace kalah::cli
