// engine/rules.hpp — the rule set a Kalah game is played under.
//
// Every difference between the source documents (shared/RULES.md) is an option here:
//   sowing   kalah (extra turn in own store, own-side empty-pit capture) or relay
//            (the Russian book's game: relays from non-empty own pits, 2/3 captures)
//   capture  nonempty | empty   (kalah sowing only: may the last seed capture when the
//            opposite pit is empty?)
//   end      either | mover     (does the game end when either side is empty after a
//            sowing, or only when the player to move has no seeds?)
//   early    the game stops once a store holds more than half of all seeds
//   pie      after South's complete first turn North may swap sides
// Presets name common combinations; any option can then be overridden.
// Early end never changes the winner, only the margin: solvers compute the margin to the
// natural end and say so (see docs/rules.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kalah {

enum class Sowing : std::uint8_t { Kalah, Relay };
enum class Capture : std::uint8_t { NonEmpty, Empty };
enum class EndRule : std::uint8_t { Either, Mover };

struct Rules {
  Sowing sowing = Sowing::Kalah;
  Capture capture = Capture::NonEmpty;
  EndRule end = EndRule::Either;
  bool early_end = false;
  bool pie = false;

  // Presets: "standard", "empty-capture", "bga", "relay". Throws std::invalid_argument.
  static Rules preset(std::string_view name);
  static const std::vector<std::string>& preset_names();

  // Canonical full description, e.g. "sowing=kalah capture=nonempty end=either early-end=off pie=off".
  std::string describe() const;
  // The preset name this rule set equals, or "custom".
  std::string preset_name() const;

  // Rules that change what the remainder of a game is worth (everything but early end,
  // which only shortens games, and the pie rule, which acts only at the start).
  bool same_values_as(const Rules& other) const {
    return sowing == other.sowing && end == other.end && (sowing == Sowing::Relay || capture == other.capture);
  }
  // The rules a board's remainder value is computed under: these, with early end and the
  // pie rule off (solvers compute margins to the natural end; the pie rule acts at the start
  // only and is applied by the caller).
  Rules value_rules() const {
    Rules r = *this;
    r.early_end = false;
    r.pie = false;
    return r;
  }
  bool operator==(const Rules&) const = default;
};

std::string_view to_string(Sowing);
std::string_view to_string(Capture);
std::string_view to_string(EndRule);
// Parse one option's value; throw std::invalid_argument naming the option and the value.
Sowing parse_sowing(std::string_view);
Capture parse_capture(std::string_view);
EndRule parse_end_rule(std::string_view);

}  // namespace kalah
