// solver/db/level.hpp — one database level in memory: the values of all boards with exactly
// k seeds in the pits, one signed byte per board, at the board's index (solver/base/board_index.hpp).
//
// A value is the board's remainder value (engine/board.hpp), in [-k, k]. While a level is
// being built, kUnknown (-128) marks entries not computed yet. The memory is either anonymous,
// 2 MiB aligned and asked for as transparent huge pages (random probes then miss the TLB far
// less), or a read-only mapping of a raw cache file (solver/db/raw_cache.hpp), which a loaded
// level may be: writing through data() of such a level faults (only the builder writes
// levels, and it allocates its own).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace kalah {

namespace detail {
// How a level's memory goes away: free() it, or munmap() the mapping it lies in.
struct LevelFree {
  void* map_base = nullptr;  // null: memory from aligned_alloc
  std::size_t map_bytes = 0;
  void operator()(std::int8_t* p) const;
};
}  // namespace detail

class LevelArray {
 public:
  static constexpr std::int8_t kUnknown = -128;

  LevelArray() = default;
  // `size` entries, uninitialised, anonymous memory. Throws std::bad_alloc.
  explicit LevelArray(std::uint64_t size);
  // Take over a mapping (mmap) of `map_bytes` bytes at `map_base`, whose `size` entries start
  // `offset` bytes in; the mapping is unmapped when the level goes away.
  static LevelArray adopt_mapping(void* map_base, std::size_t map_bytes, std::size_t offset, std::uint64_t size);

  std::uint64_t size() const { return size_; }
  std::int8_t* data() { return data_.get(); }
  const std::int8_t* data() const { return data_.get(); }
  std::int8_t operator[](std::uint64_t i) const { return data_[i]; }
  std::int8_t& operator[](std::uint64_t i) { return data_[i]; }
  bool mapped() const { return data_.get_deleter().map_base != nullptr; }  // a file mapping (read-only)
  // The entries copied into anonymous memory (huge pages from 2 MiB up). Throws std::bad_alloc.
  LevelArray copy() const;
  // A mapped level becomes its copy() (the mapping goes); any other level stays as it is.
  void make_private() {
    if (mapped()) *this = copy();
  }

 private:
  std::uint64_t size_ = 0;
  std::unique_ptr<std::int8_t[], detail::LevelFree> data_;
};

}  // namespace kalah
