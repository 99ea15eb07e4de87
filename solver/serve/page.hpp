// solver/serve/page.hpp — the explorer's web page, served at "/" by the binary itself: plain
// HTML, CSS and JavaScript in one document, no build step, nothing fetched from elsewhere.
// It asks /api/v1/solve for the position shown and draws the board (North's pits on top,
// right to left, as the ASCII board), every legal pit with its exact value, the moves best
// first, the moves played in both notations, back and forward, an editor and the rules; the
// URL's query (position, rules, ...) reproduces what is shown.
#pragma once

#include <string>

namespace kalah::serve {

const std::string& explorer_page();

}  // namespace kalah::serve
