// testing/rule_sets.hpp — the rule sets the tests run under.
#pragma once

#include <vector>

#include "engine/rules.hpp"

namespace kalah::test {

// Every combination of options that changes values: kalah nonempty/empty x either/mover,
// relay x either/mover.
inline std::vector<Rules> all_value_rules() {
  std::vector<Rules> out;
  for (Sowing s : {Sowing::Kalah, Sowing::Relay})
    for (Capture c : {Capture::NonEmpty, Capture::Empty})
      for (EndRule e : {EndRule::Either, EndRule::Mover}) {
        if (s == Sowing::Relay && c == Capture::Empty) continue;
        Rules r;
        r.sowing = s;
        r.capture = c;
        r.end = e;
        out.push_back(r);
      }
  return out;
}

}  // namespace kalah::test
