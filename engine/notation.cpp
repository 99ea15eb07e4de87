#include "engine/notation.hpp"

#include <cctype>

#include "engine/text.hpp"

namespace kalah {

Notation parse_notation(std::string_view name) {
  if (name == "finnish") return Notation::Finnish;
  if (name == "irving") return Notation::Irving;
  throw std::invalid_argument("unknown notation " + quoted(name) + " (expected finnish or irving)");
}

std::string_view to_string(Notation n) { return n == Notation::Finnish ? "finnish" : "irving"; }

// ---------------------------------------------------------------------------------------
// Writing

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

std::vector<SowingRecord> Replay::sowings() const {
  std::vector<SowingRecord> all;
  for (const auto& t : turns) all.insert(all.end(), t.sowings.begin(), t.sowings.end());
  return all;
}

std::string format_irving(const Replay& game) {
  std::string out;
  for (const auto& t : game.turns) {
    if (!out.empty()) out += '-';
    if (t.swap) out += "swap";
    for (const auto& s : t.sowings) out += static_cast<char>('0' + s.pit);
  }
  return out;
}

std::string format_finnish(const Replay& game) {
  std::string out;
  bool open_item = false;  // the last item has its South part and no North part yet
  for (const auto& t : game.turns) {
    std::string body = t.swap ? "swap" : "";
    for (const auto& s : t.sowings) {
      body += static_cast<char>('1' + s.pit);
      if (s.outcome.capture) body += '*';
    }
    if (t.side == Side::North && open_item) {
      out += body;  // completes "S-" to "S-N"
      open_item = false;
      continue;
    }
    if (!out.empty()) out += ", ";
    if (t.side == Side::South) {
      out += body + "-";
      open_item = true;
    } else {
      out += "-" + body;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Reading

namespace {

// One sowing as written: the pit (0-based) and whether it carries a capture mark.
struct WrittenSowing {
  int pit = 0;
  bool marked = false;
};

// One turn as written. Finnish turns know their side from their place in the item.
struct WrittenTurn {
  int number = 0;
  std::string text;
  bool has_side = false;
  Side side = Side::South;
  bool swap = false;
  std::vector<WrittenSowing> sowings;
};

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

std::string label(int number, const std::string& text) {
  return "turn " + std::to_string(number) + " (" + quoted(text, 48, '"') + ")";
}

[[noreturn]] void fail(const WrittenTurn& t, const std::string& reason) {
  throw RecordError(label(t.number, t.text) + ": " + reason);
}

bool is_swap(const std::string& text) {
  if (text.size() != 4) return false;
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "swap";
}

// Parse a turn's text (spaces removed, not empty) into sowings or a swap.
void parse_turn_body(WrittenTurn& t, Notation notation) {
  if (is_swap(t.text)) {
    t.swap = true;
    return;
  }
  for (std::size_t i = 0; i < t.text.size(); ++i) {
    const char c = t.text[i];
    if (c == '*') {
      if (notation == Notation::Irving) fail(t, "'*' is not part of the Irving notation");
      if (t.sowings.empty() || t.sowings.back().marked) fail(t, "'*' must follow a pit number");
      t.sowings.back().marked = true;
      continue;
    }
    if (c < '0' || c > '9') {
      const std::size_t length = utf8_length(t.text, i);  // the whole UTF-8 character, not a byte of it
      fail(t, "unexpected character " + quoted(std::string_view(t.text).substr(i, length == 0 ? 1 : length)) +
                  " (expected " + (notation == Notation::Finnish ? "pit numbers 1..9, '*'" : "hole numbers 0..9") +
                  " or 'swap')");
    }
    if (notation == Notation::Finnish && c == '0') fail(t, "pit 0 does not exist (Finnish pits are numbered from 1)");
    t.sowings.push_back({notation == Notation::Finnish ? c - '1' : c - '0', false});
  }
}

std::vector<WrittenTurn> parse_irving(std::string_view record) {
  std::vector<WrittenTurn> turns;
  if (without_spaces(record).empty()) return turns;
  for (std::string_view piece : split(record, '-')) {
    WrittenTurn t;
    t.number = static_cast<int>(turns.size()) + 1;
    t.text = without_spaces(piece);
    if (t.text.empty()) fail(t, "empty turn (two '-' in a row, or a '-' at either end)");
    parse_turn_body(t, Notation::Irving);
    turns.push_back(std::move(t));
  }
  return turns;
}

std::vector<WrittenTurn> parse_finnish(std::string_view record) {
  std::vector<WrittenTurn> turns;
  if (without_spaces(record).empty()) return turns;
  int item_number = 0;
  for (std::string_view piece : split(record, ',')) {
    ++item_number;
    const std::string item = without_spaces(piece);
    const std::string where = "item " + std::to_string(item_number) + " (" + quoted(item, 48, '"') + ")";
    const auto parts = split(item, '-');
    if (item.empty()) throw RecordError(where + ": empty item (two ',' in a row, or a ',' at either end)");
    if (parts.size() != 2)
      throw RecordError(where + ": expected \"South's sowings-North's sowings\" with exactly one '-'");
    if (parts[0].empty() && parts[1].empty()) throw RecordError(where + ": no sowings on either side");
    for (int s = 0; s < 2; ++s) {
      if (parts[s].empty()) continue;  // a side may stand empty when a turn is split over items
      WrittenTurn t;
      t.number = static_cast<int>(turns.size()) + 1;
      t.text = std::string(parts[s]);
      t.has_side = true;
      t.side = static_cast<Side>(s);
      parse_turn_body(t, Notation::Finnish);
      turns.push_back(std::move(t));
    }
  }
  return turns;
}

// The pit as the record's notation names it.
std::string pit_name(Side side, int pit, Notation notation) {
  return std::string(side_name(side)) +
         (notation == Notation::Finnish ? " pit " + std::to_string(pit + 1) : " hole " + std::to_string(pit));
}

std::string pit_range(int m, Notation notation) {
  return notation == Notation::Finnish ? "pits 1.." + std::to_string(m) : "holes 0.." + std::to_string(m - 1);
}

}  // namespace

Replay replay(const Position& start, const Rules& rules, Notation notation, std::string_view record) {
  const std::vector<WrittenTurn> written = notation == Notation::Finnish ? parse_finnish(record) : parse_irving(record);
  Game game(start, rules);
  Replay out;
  out.start = start;
  const int m = start.pits;

  for (const WrittenTurn& w : written) {
    const Side mover = game.to_move();
    if (game.over())
      fail(w, game.ended_early() ? "the game is already over (early end: a store holds more than half of the seeds)"
                                 : "the game is already over");
    if (w.has_side && w.side != mover)
      fail(w, std::string("it is ") + side_name(mover) + "'s turn, not " + side_name(w.side) + "'s");

    ReplayedTurn turn;
    turn.number = w.number;
    turn.side = mover;
    turn.text = w.text;

    if (w.swap) {
      if (!rules.pie) fail(w, "a swap needs the pie rule (--pie)");
      if (!game.can_swap()) fail(w, "only North may swap, and only right after South's first turn");
      game.swap();
      turn.swap = true;
    }
    for (std::size_t k = 0; k < w.sowings.size(); ++k) {
      const WrittenSowing& s = w.sowings[k];
      const std::string name = pit_name(mover, s.pit, notation);
      if (k > 0) {
        const SowingRecord& prev = turn.sowings.back();
        const std::string prev_name = pit_name(mover, prev.pit, notation);
        if (prev.game_over)
          fail(w, "the game ended with the sowing of " + prev_name + ", so " + name + " cannot follow");
        if (!prev.outcome.extra_turn)
          fail(w, name + " cannot follow " + prev_name + ": that sowing did not end in the store (no extra turn)");
      }
      if (s.pit < 0 || s.pit >= m) fail(w, name + " does not exist (" + pit_range(m, notation) + ")");
      if (!game.is_legal(s.pit)) fail(w, name + " is empty");
      const SowingRecord rec = game.sow(s.pit);
      // The Irving notation never marks captures, so only Finnish records are checked.
      if (notation == Notation::Finnish && rec.outcome.capture && !s.marked)
        turn.warnings.push_back(label(w.number, w.text) + ": the sowing of " + name +
                                " captures but is not marked '*'");
      if (!rec.outcome.capture && s.marked)
        turn.warnings.push_back(label(w.number, w.text) + ": the sowing of " + name +
                                " is marked '*' but captures nothing");
      turn.sowings.push_back(rec);
    }
    if (!turn.sowings.empty()) {
      const SowingRecord& last = turn.sowings.back();
      if (last.outcome.extra_turn && !last.game_over)
        fail(w, "the turn stops after " + pit_name(mover, last.pit, notation) +
                    ", which ended in the store: " + side_name(mover) + " must sow again (extra turn)");
    }
    turn.after = game.position();
    out.warnings.insert(out.warnings.end(), turn.warnings.begin(), turn.warnings.end());
    out.turns.push_back(std::move(turn));
  }
  out.final_position = game.position();
  out.over = game.over();
  out.ended_early = game.ended_early();
  out.swapped = game.swapped();
  return out;
}

}  // namespace kalah
