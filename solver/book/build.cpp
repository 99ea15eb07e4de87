#include "solver/book/build.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <unordered_set>

#include "engine/game.hpp"
#include "engine/text.hpp"
#include "solver/book/book.hpp"

namespace kalah::book {

namespace {

using Clock = std::chrono::steady_clock;

// The entries a build holds so far, for its searches to look up (find from many threads).
class GrowingBook final : public api::KnownBoards {
 public:
  GrowingBook(int pits, const Rules& rules, std::string name) : pits_(pits), rules_(rules), name_(std::move(name)) {}
  int pits() const override { return pits_; }
  Rules value_rules() const override { return rules_; }
  std::string name() const override { return name_; }
  bool find(const Board& b, api::KnownBoard& out) const override {
    std::shared_lock lock(mutex_);
    const auto it = entries_.find(b);
    if (it == entries_.end()) return false;
    out = it->second;
    return true;
  }
  void add(const Board& b, const api::KnownBoard& k) {
    std::unique_lock lock(mutex_);
    entries_.emplace(b, k);
  }
  bool contains(const Board& b) const {
    std::shared_lock lock(mutex_);
    return entries_.count(b) != 0;
  }
  std::uint64_t size() const {
    std::shared_lock lock(mutex_);
    return entries_.size();
  }

 private:
  int pits_;
  Rules rules_;
  std::string name_;
  mutable std::shared_mutex mutex_;
  std::unordered_map<Board, api::KnownBoard, BoardHash> entries_;
};

// The position of board b with South to move and empty stores: its values are b's
// remainder values for the mover.
Position position_of(const Board& b, int pits) {
  Position p;
  p.pits = pits;
  p.set_board(b);
  return p;
}

// Every board where the game goes on within `plies` sowings of `start`, by the ply first
// reaching it.
std::vector<std::vector<Board>> reachable_boards(const Position& start, const Rules& rules, int plies) {
  std::vector<std::vector<Board>> by_ply(plies + 1);
  std::unordered_set<Board, BoardHash> seen;
  if (Game(start, rules).over()) return by_ply;
  by_ply[0].push_back(start.board());
  seen.insert(start.board());
  for (int ply = 0; ply < plies; ++ply)
    for (const Board& b : by_ply[ply]) {
      const Game game(position_of(b, start.pits), rules);
      for (const int pit : game.legal_pits()) {
        Game next = game;
        next.sow(pit);
        if (next.over()) continue;
        const Board child = next.position().board();
        if (seen.insert(child).second) by_ply[ply + 1].push_back(child);
      }
    }
  return by_ply;
}

// What a build holds in memory beside its sessions: the boards within the plies and those to
// solve (vectors), and the book's entries once all are in (a hash map: a node with its link
// and hash, and a bucket, each).
std::uint64_t held_bytes(std::uint64_t boards, std::uint64_t to_solve, std::uint64_t entries) {
  constexpr std::uint64_t kEntry = sizeof(std::pair<const Board, api::KnownBoard>) + 3 * sizeof(void*);
  return (boards + to_solve) * sizeof(Board) + entries * kEntry;
}

}  // namespace

BookBuildReport build_book(const api::SessionConfig& config, const BookBuildOptions& options,
                           const std::function<void(const BookBuildProgress&)>& progress) {
  const auto t0 = Clock::now();
  if (options.plies < 0 || options.plies > kMaxPlies)
    throw api::ConfigError("the plies must be between 0 and " + std::to_string(kMaxPlies) + ", not " +
                           std::to_string(options.plies));
  if (options.seeds < 1) throw api::ConfigError("a book needs at least 1 seed a pit");
  const Position start = Position::start(config.pits, options.seeds);  // throws PositionError out of range
  const Rules natural = config.rules.value_rules();
  BookWriter writer(options.file, config.pits, options.seeds, natural);

  auto growing = std::make_shared<GrowingBook>(config.pits, natural, options.file);
  BookBuildReport report;
  report.repaired = writer.load_sound([&](const Board& b, int, const api::KnownBoard& k) { growing->add(b, k); },
                                      &report.first_damage);

  const std::vector<std::vector<Board>> by_ply = reachable_boards(start, natural, options.plies);
  // The boards to solve, by ply.
  std::vector<std::vector<Board>> to_solve(by_ply.size());
  BookBuildProgress p;
  for (std::size_t ply = 0; ply < by_ply.size(); ++ply) {
    report.boards_by_ply.push_back(by_ply[ply].size());
    for (const Board& b : by_ply[ply]) {
      if (growing->contains(b))
        ++report.reused;
      else
        to_solve[ply].push_back(b);
    }
    p.to_solve += to_solve[ply].size();
  }

  // The memory budget holds everything: the boards and entries above, the workers' table
  // (config.table_bytes, shared or split among them) and, in what is left, the database.
  api::SessionConfig each = config;
  each.max_seeds = start.pit_seeds(Side::South) + start.pit_seeds(Side::North);
  each.book = growing;
  const std::uint64_t budget = api::memory_budget(config.memory_bytes);
  std::uint64_t within = 0;  // boards within the plies
  for (const auto& ply : by_ply) within += ply.size();
  const std::uint64_t held = held_bytes(within, p.to_solve, growing->size() + p.to_solve);
  constexpr std::uint64_t kLoaderTable = 1 << 20;
  // With a database the workers (one thread each, api::label_batch) have near tables too.
  api::SessionConfig worker = config;
  worker.threads = 1;
  const std::uint64_t near_tables =
      api::near_tables_bytes(worker) * static_cast<std::uint64_t>(std::max(options.workers.count, 1));
  if (p.to_solve > 0 && budget > 0) {
    if (budget <= held + config.table_bytes + near_tables + kLoaderTable)
      throw api::ConfigError("a memory budget of " + byte_text(budget) + " cannot hold the book's " +
                             std::to_string(within) + " boards and their entries (" + byte_text(held) +
                             ") beside a table of " + byte_text(config.table_bytes) +
                             (near_tables ? " and near tables of " + byte_text(near_tables) : std::string()) +
                             ": give more memory (--memory), a smaller table (--tt-memory) or fewer plies");
    each.memory_bytes = budget - held;
  }
  // The database is loaded once (a session with a small table), then shared by the workers
  // of every ply.
  std::unique_ptr<api::Session> loader;
  if (p.to_solve > 0 && !config.database_dir.empty()) {
    api::SessionConfig c = each;
    c.table_bytes = kLoaderTable;
    c.near_table_bytes = 0;  // it only loads
    if (budget > 0) c.memory_bytes = budget - held - config.table_bytes - near_tables;
    c.threads = 1;
    loader = std::make_unique<api::Session>(c);
    each.database = loader->shared_database();
    each.database_dir.clear();
    each.database_seeds = -1;
    each.note = nullptr;
  }
  auto last_report = Clock::now();
  bool complete = true;
  // Deepest ply first, a ply at a time: a ply's boards start once the ply below is in the book.
  for (int ply = options.plies; ply >= 0 && complete; --ply) {
    const std::vector<Board>& boards = to_solve[static_cast<std::size_t>(ply)];
    if (boards.empty()) continue;
    std::size_t next_item = 0;
    complete = api::label_batch(
        each, options.workers,
        [&](api::BatchInput& in) {
          if (next_item == boards.size()) return false;
          in.position = position_of(boards[next_item], config.pits);
          in.tag = static_cast<long long>(next_item);
          ++next_item;
          return true;
        },
        [&](const api::BatchInput& in, const api::BatchResult& out) {
          if (!out.report) throw api::ConfigError(out.error);  // every board fits the sessions
          const Board& board = boards[static_cast<std::size_t>(in.tag)];
          api::KnownBoard k;
          k.value = out.report->values.value;
          for (const SowingValue& s : out.report->values.moves) {
            k.sowing[s.pit] = s.value;
            k.legal |= static_cast<std::uint8_t>(1u << s.pit);
          }
          growing->add(board, k);
          writer.add(board, ply, k);
          ++p.solved;
          p.ply = ply;
          p.nodes += out.report->nodes;
          if (progress && Clock::now() - last_report >= std::chrono::seconds(1)) {
            p.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
            progress(p);
            last_report = Clock::now();
          }
        });
  }
  writer.flush();
  report.solved = p.solved;
  report.nodes = p.nodes;
  report.interrupted = !complete;
  if (complete && options.plies > writer.info().plies) writer.set_plies(options.plies);
  report.plies = writer.info().plies;
  report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  p.seconds = report.seconds;
  p.done = true;
  if (progress) progress(p);
  return report;
}

}  // namespace kalah::book
