#include "engine/ascii.hpp"

#include <cstdio>

namespace kalah {

namespace {

// "[ 12]": every count fits in three digits (at most 255 seeds in a game).
std::string box(int seeds) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "[%3d]", seeds);
  return buf;
}

std::string label(char side, int pit) { return std::string("  ") + side + std::to_string(pit) + " "; }

void trim_right(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

}  // namespace

std::string ascii_board(const Position& p, bool game_over) {
  const int m = p.pits;
  const std::string indent(7, ' ');  // the width of the left store column " N [..]"
  const auto marker = [&](Side s) { return !game_over && p.to_move == s ? "  <- to move" : ""; };
  std::string out;

  out += indent;
  for (int i = m - 1; i >= 0; --i) out += label('N', i + 1);
  trim_right(out);
  out += "\n" + indent;
  for (int i = m - 1; i >= 0; --i) out += box(p.side[1][i]);
  out += std::string("      North") + marker(Side::North) + "\n";

  out += " N" + box(p.store[1]) + std::string(static_cast<std::size_t>(5 * m), ' ') + box(p.store[0]) + " S\n";

  out += indent;
  for (int i = 0; i < m; ++i) out += box(p.side[0][i]);
  out += std::string("      South") + marker(Side::South) + "\n" + indent;
  for (int i = 0; i < m; ++i) out += label('S', i + 1);
  trim_right(out);
  out += "\n";
  if (game_over) out += indent + "game over\n";
  return out;
}

}  // namespace kalah
