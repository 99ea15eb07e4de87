#include "engine/rules.hpp"

#include <stdexcept>

#include "engine/text.hpp"

namespace kalah {

Rules Rules::preset(std::string_view name) {
  Rules r;
  if (name == "standard") return r;
  if (name == "empty-capture") {
    r.capture = Capture::Empty;
    return r;
  }
  if (name == "bga") {
    r.end = EndRule::Mover;
    r.early_end = true;
    return r;
  }
  if (name == "relay") {
    r.sowing = Sowing::Relay;
    r.end = EndRule::Mover;
    r.early_end = true;
    return r;
  }
  throw std::invalid_argument("unknown rule preset " + quoted(name) +
                              " (expected standard, empty-capture, bga or relay)");
}

const std::vector<std::string>& Rules::preset_names() {
  static const std::vector<std::string> names{"standard", "empty-capture", "bga", "relay"};
  return names;
}

std::string Rules::describe() const {
  std::string s = "sowing=" + std::string(to_string(sowing));
  if (sowing == Sowing::Kalah) s += " capture=" + std::string(to_string(capture));
  s += " end=" + std::string(to_string(end));
  s += early_end ? " early-end=on" : " early-end=off";
  s += pie ? " pie=on" : " pie=off";
  return s;
}

std::string Rules::preset_name() const {
  for (const auto& name : preset_names()) {
    Rules p = preset(name);
    p.pie = pie;  // the pie rule is an add-on to every preset
    if (p == *this) return name;
  }
  return "custom";
}

std::string_view to_string(Sowing s) { return s == Sowing::Kalah ? "kalah" : "relay"; }
std::string_view to_string(Capture c) { return c == Capture::NonEmpty ? "nonempty" : "empty"; }
std::string_view to_string(EndRule e) { return e == EndRule::Either ? "either" : "mover"; }

Sowing parse_sowing(std::string_view v) {
  if (v == "kalah") return Sowing::Kalah;
  if (v == "relay") return Sowing::Relay;
  throw std::invalid_argument("bad sowing rule " + quoted(v) + " (expected kalah or relay)");
}
Capture parse_capture(std::string_view v) {
  if (v == "nonempty") return Capture::NonEmpty;
  if (v == "empty") return Capture::Empty;
  throw std::invalid_argument("bad --capture value " + quoted(v) + " (expected nonempty or empty)");
}
EndRule parse_end_rule(std::string_view v) {
  if (v == "either") return EndRule::Either;
  if (v == "mover") return EndRule::Mover;
  throw std::invalid_argument("bad --end value " + quoted(v) + " (expected either or mover)");
}

}  // namespace kalah
