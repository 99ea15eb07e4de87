#include "engine/notation.hpp"

namespace kalah {

Notation parse_notation(std::string_view name) {
  if (name == "finnish") return Notation::Finnish;
  if (name == "irving") return Notation::Irving;
  throw std::invalid_argument("unknown notation '" + std::string(name) + "' (expected finnish or irving)");
}

std::string format_irving(const std::vector<SowingRecord>& sowings) {
  std::string out;
  for (std::size_t i = 0; i < sowings.size(); ++i) {
    if (i > 0 && sowings[i].side != sowings[i - 1].side) out += '-';
    out += static_cast<char>('0' + sowings[i].pit);
  }
  return out;
}

std::string format_finnish(const std::vector<SowingRecord>& sowings, Side first) {
  std::string out;
  bool open_item = false;  // an item has its South part written and awaits North's
  if (first == Side::North && !sowings.empty()) {
    out += "-";
  }
  for (std::size_t i = 0; i < sowings.size(); ++i) {
    const SowingRecord& s = sowings[i];
    const bool new_turn = i == 0 || s.side != sowings[i - 1].side;
    if (new_turn && i > 0) {
      if (s.side == Side::North) {
        out += '-';
        open_item = false;
      } else {
        out += ", ";
      }
    }
    if (new_turn && s.side == Side::South) open_item = true;
    out += static_cast<char>('1' + s.pit);
    if (s.outcome.capture) out += '*';
  }
  if (open_item) out += '-';
  return out;
}

Replay replay(const Position&, const Rules&, Notation, std::string_view) {
  throw RecordError("replay is not implemented yet");
}

}  // namespace kalah
