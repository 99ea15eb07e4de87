#include "engine/position.hpp"

#include <charconv>
#include <vector>

#include "engine/text.hpp"

namespace kalah {

void check_size(int pits, int seeds_per_pit) {
  if (pits < 1 || pits > kMaxPits)
    throw PositionError("unsupported number of pits " + std::to_string(pits) + " (must be 1.." +
                        std::to_string(kMaxPits) + ")");
  if (seeds_per_pit < 0) throw PositionError("negative seeds per pit: " + std::to_string(seeds_per_pit));
  if (2L * pits * seeds_per_pit > kMaxSeeds)
    throw PositionError("Kalah(" + std::to_string(pits) + "," + std::to_string(seeds_per_pit) + ") has " +
                        std::to_string(2L * pits * seeds_per_pit) + " seeds, more than the supported " +
                        std::to_string(kMaxSeeds));
}

Position Position::start(int pits, int seeds_per_pit) {
  check_size(pits, seeds_per_pit);
  Position p;
  p.pits = pits;
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < pits; ++i) p.side[s][i] = static_cast<std::uint8_t>(seeds_per_pit);
  return p;
}

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

int parse_count(std::string_view field, const std::string& what) {
  field = trim(field);
  if (field.empty()) throw PositionError("empty " + what);
  if (field.front() == '-') throw PositionError("negative " + what + ": " + quoted(field));
  int value = 0;
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && value > kMaxSeeds))
    throw PositionError(what + " too large: " + quoted(field));
  if (ec != std::errc() || ptr != field.data() + field.size())
    throw PositionError("non-numeric " + what + ": " + quoted(field));
  return value;
}

}  // namespace

Position Position::parse(std::string_view text, int expected_pits) {
  const std::string_view whole = trim(text);
  const std::string shown = quoted(whole);
  auto fields = split(whole, '/');
  if (fields.size() != 5)
    throw PositionError("position " + shown + " has " + std::to_string(fields.size()) +
                        " '/'-separated fields, expected 5: S1,..,Sm/N1,..,Nm/storeS/storeN/X");
  auto south = split(fields[0], ',');
  auto north = split(fields[1], ',');
  if (south.size() != north.size())
    throw PositionError("position " + shown + ": South has " + std::to_string(south.size()) + " pits but North has " +
                        std::to_string(north.size()));
  const int m = static_cast<int>(south.size());
  if (m > kMaxPits)
    throw PositionError("position " + shown + ": " + std::to_string(m) + " pits a side, at most " +
                        std::to_string(kMaxPits) + " supported");
  if (expected_pits > 0 && m != expected_pits)
    throw PositionError("position " + shown + " has " + std::to_string(m) + " pits a side but " +
                        std::to_string(expected_pits) + " were asked for");
  Position p;
  p.pits = m;
  long total = 0;
  for (int i = 0; i < m; ++i) {
    int s = parse_count(south[i], "seed count of South pit " + std::to_string(i + 1));
    int n = parse_count(north[i], "seed count of North pit " + std::to_string(i + 1));
    p.side[0][i] = static_cast<std::uint8_t>(s);
    p.side[1][i] = static_cast<std::uint8_t>(n);
    total += s + n;
  }
  p.store[0] = parse_count(fields[2], "South store");
  p.store[1] = parse_count(fields[3], "North store");
  total += p.store[0] + p.store[1];
  if (total > kMaxSeeds)
    throw PositionError("position " + shown + " holds " + std::to_string(total) + " seeds, more than the supported " +
                        std::to_string(kMaxSeeds));
  const std::string_view mover = trim(fields[4]);
  if (mover == "S" || mover == "s")
    p.to_move = Side::South;
  else if (mover == "N" || mover == "n")
    p.to_move = Side::North;
  else
    throw PositionError("position " + shown + ": side to move " + quoted(mover) + " is not S or N");
  return p;
}

std::string Position::to_text() const {
  std::string s;
  for (int side_index = 0; side_index < 2; ++side_index) {
    for (int i = 0; i < pits; ++i) {
      if (i) s += ',';
      s += std::to_string(side[side_index][i]);
    }
    s += '/';
  }
  s += std::to_string(store[0]) + '/' + std::to_string(store[1]) + '/' + side_letter(to_move);
  return s;
}

bool Position::is_start() const {
  if (to_move != Side::South || store[0] != 0 || store[1] != 0) return false;
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < pits; ++i)
      if (side[s][i] != side[0][0]) return false;
  return true;
}

int Position::pit_seeds(Side s) const {
  int total = 0;
  for (int i = 0; i < pits; ++i) total += side[static_cast<int>(s)][i];
  return total;
}

Board Position::board() const {
  Board b;
  const int me = static_cast<int>(to_move);
  for (int i = 0; i < pits; ++i) {
    b.cells[i] = side[me][i];
    b.cells[pits + i] = side[1 - me][i];
  }
  return b;
}

void Position::set_board(const Board& b) {
  const int me = static_cast<int>(to_move);
  for (int i = 0; i < pits; ++i) {
    side[me][i] = b.cells[i];
    side[1 - me][i] = b.cells[pits + i];
  }
}

}  // namespace kalah
