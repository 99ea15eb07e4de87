// solver/db/level.hpp — one database level in memory: the values of all boards with exactly
// k seeds in the pits, one signed byte per board, at the board's index (solver/base/board_index.hpp).
//
// A value is the board's remainder value (engine/board.hpp), in [-k, k]. While a level is
// being built, kUnknown (-128) marks entries not computed yet. The memory is 2 MiB aligned
// and asked for as transparent huge pages (random probes then miss the TLB far less).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace kalah {

class LevelArray {
 public:
  static constexpr std::int8_t kUnknown = -128;

  LevelArray() = default;
  // `size` entries, uninitialised. Throws std::bad_alloc.
  explicit LevelArray(std::uint64_t size);

  std::uint64_t size() const { return size_; }
  std::int8_t* data() { return data_.get(); }
  const std::int8_t* data() const { return data_.get(); }
  std::int8_t operator[](std::uint64_t i) const { return data_[i]; }
  std::int8_t& operator[](std::uint64_t i) { return data_[i]; }

 private:
  struct Free {
    void operator()(std::int8_t* p) const;
  };
  std::uint64_t size_ = 0;
  std::unique_ptr<std::int8_t[], Free> data_;
};

}  // namespace kalah
