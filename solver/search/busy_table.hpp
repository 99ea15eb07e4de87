// solver/search/busy_table.hpp — which boards other threads are searching right now, so
// a parallel search can put them off (ABDADA, "simplified" as in Kerrigan's and
// Stockfish's breadcrumbs).
//
// A small hash array of 64-bit words: a word holds (board hash << 16) | (id + 1) while the
// searcher with that id searches the board: 48 bits of hash, 16 of id (the searchers of one
// table, every Solver sharing it counted, get ids 0..65534 and wrap after that). It is only a
// hint: two boards can share a word, a mark can be overwritten and two searchers can share an
// id, which at worst makes a searcher search a board another is already searching (lost work,
// never a wrong value). The searcher that marks a board removes its own mark when it leaves.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace kalah::search {

class BusyTable {
 public:
  static constexpr int kBits = 16;
  static constexpr int kIdBits = 16;
  static constexpr std::uint64_t kIdMask = (std::uint64_t(1) << kIdBits) - 1;
  static constexpr int kMarks = static_cast<int>(kIdMask);  // searcher ids 0..65534 (a mark keeps id + 1)
  static_assert(kBits <= 64 - kIdBits, "the slot comes from the hash's low bits");

  BusyTable() : words_(new std::atomic<std::uint64_t>[std::size_t(1) << kBits]) {
    for (std::size_t i = 0; i < (std::size_t(1) << kBits); ++i) words_[i].store(0, std::memory_order_relaxed);
  }

  // A board's hash from its table key: 48 well-mixed bits of it.
  static std::uint64_t hash(std::uint64_t index, std::uint64_t tag) {
    return (index ^ (tag * 0x9E3779B97F4A7C15ULL)) & ((std::uint64_t(1) << (64 - kIdBits)) - 1);
  }

  // Is a thread other than `thread` searching the board with this hash?
  bool busy_elsewhere(std::uint64_t h, int thread) const {
    const std::uint64_t w = slot(h).load(std::memory_order_relaxed);
    return w != 0 && (w >> kIdBits) == h && (w & kIdMask) != static_cast<std::uint64_t>(thread + 1);
  }
  // Thread `thread` enters / leaves the board with this hash.
  void enter(std::uint64_t h, int thread) { slot(h).store(mark(h, thread), std::memory_order_relaxed); }
  void leave(std::uint64_t h, int thread) {
    std::uint64_t mine = mark(h, thread);
    slot(h).compare_exchange_strong(mine, 0, std::memory_order_relaxed);
  }

 private:
  static std::uint64_t mark(std::uint64_t h, int thread) {
    return (h << kIdBits) | static_cast<std::uint64_t>(thread + 1);
  }
  std::atomic<std::uint64_t>& slot(std::uint64_t h) const { return words_[h & ((std::uint64_t(1) << kBits) - 1)]; }

  std::unique_ptr<std::atomic<std::uint64_t>[]> words_;
};

}  // namespace kalah::search
