// testing/packed_level_access.hpp — tampering with a packed level's image in tests: a
// consistent checksum over inconsistent content (PackedLevel befriends this struct).
#pragma once

#include <cstdint>
#include <vector>

#include "solver/db/packed_level.hpp"

namespace kalah {

struct PackedLevelAccess {
  static std::uint64_t* lines(PackedLevel& p) { return reinterpret_cast<std::uint64_t*>(p.lines_mem_.data()); }
  static std::vector<std::uint64_t>& group_first(PackedLevel& p) { return p.group_first_; }
  static LevelArray& exceptions(PackedLevel& p) { return p.exceptions_; }
};

}  // namespace kalah
