#include "solver/search/table_share.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>

namespace kalah::search {

TableShare::TableShare(std::unique_ptr<TranspositionTable> table, int pits, int max_seeds, const Rules& rules)
    : table_(std::move(table)), pits_(pits), max_seeds_(max_seeds), rules_(rules.value_rules()) {
  set_growth_point();
}

int TableShare::join(std::atomic<bool>* stop, int threads, int pits, int max_seeds, const Rules& rules) {
  if (pits != pits_ || max_seeds != max_seeds_ || !rules.same_values_as(rules_))
    throw std::invalid_argument("a shared table keys boards of " + std::to_string(pits_) + " pits, at most " +
                                std::to_string(max_seeds_) + " seeds, under '" + rules_.describe() +
                                "': it cannot serve a solver for " + std::to_string(pits) + " pits, " +
                                std::to_string(max_seeds) + " seeds, '" + rules.value_rules().describe() + "'");
  const std::lock_guard lock(mutex_);
  stops_.push_back(stop);
  threads_ += threads;
  set_growth_point();  // the batch depends on the threads
  const int first = next_mark_;
  next_mark_ = (next_mark_ + threads) % BusyTable::kMarks;
  return first;
}

void TableShare::quit(std::atomic<bool>* stop, int threads) {
  const std::lock_guard lock(mutex_);
  std::erase(stops_, stop);
  threads_ -= threads;
  set_growth_point();
}

void TableShare::enter() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !growth_asked_; });
  ++inside_;
}

bool TableShare::leave() {
  std::unique_lock lock(mutex_);
  --inside_;
  if (!growth_asked_) return false;
  if (inside_ == 0) {
    // The last one out grows the table (nobody can enter until growth_asked_ is cleared).
    table_->grow(std::clamp(threads_, 1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))));
    doublings_.fetch_add(1, std::memory_order_relaxed);
    set_growth_point();
    for (std::atomic<bool>* s : stops_) s->store(false);
    growth_asked_ = false;
    ++generation_;
    changed_.notify_all();
  } else {
    const std::uint64_t g = generation_;
    changed_.wait(lock, [&] { return generation_ != g; });
  }
  return true;
}

void TableShare::add_fills(std::uint64_t n) {
  const std::uint64_t total = fills_.fetch_add(n, std::memory_order_relaxed) + n;
  if (total < grow_at_.load(std::memory_order_relaxed)) return;
  const std::lock_guard lock(mutex_);
  if (!growth_asked_ && total >= grow_at_.load(std::memory_order_relaxed)) ask_growth();
}

void TableShare::ask_growth() {
  growth_asked_ = true;
  for (std::atomic<bool>* s : stops_) s->store(true);
}

// The table doubles when an eighth of its entries are in use: Kalah(5,6) with a 26-seed
// database searched 762 M nodes growing at a half, 262 M at a quarter, 248 M at an eighth
// (as many as a table of the final size from the start): a fuller table evicts cheap
// entries from full buckets, and their subtrees are searched again. Searchers add up their
// counts in batches of a sixteenth of that a thread.
void TableShare::set_growth_point() {
  constexpr std::uint64_t kGrowAtOneIn = 8;
  const std::uint64_t at = table_->capacity() / kGrowAtOneIn;
  grow_at_.store(table_->can_grow() ? at : UINT64_MAX, std::memory_order_relaxed);
  fill_batch_.store(std::clamp<std::uint64_t>(at / (16 * static_cast<std::uint64_t>(std::max(threads_, 1))), 1, 1024),
                    std::memory_order_relaxed);
}

}  // namespace kalah::search
