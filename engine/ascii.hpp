// engine/ascii.hpp — a Kalah position drawn as plain text for people.
//
// North's pits on top, listed right to left (North sows counter-clockwise, so its pit 1 is
// on the far right as seen from South), South's pits below, left to right. North's store is
// at the left end, South's at the right end. Pits are labelled N1..Nm and S1..Sm, 1-based
// from each owner's left (the Finnish numbering; the Irving notation subtracts one). The row
// of the side to move is marked, e.g. Kalah(6,3) after South's turn "45" (Finnish notation):
//
//          N6   N5   N4   N3   N2   N1
//        [  3][  3][  3][  3][  4][  4]      North  <- to move
//  N[  0]                              [  2] S
//        [  3][  3][  3][  0][  0][  5]      South
//          S1   S2   S3   S4   S5   S6
#pragma once

#include <string>

#include "engine/position.hpp"

namespace kalah {

// The board as several lines, each ending in '\n'. With game_over the side-to-move marker
// is replaced by a "game over" line.
std::string ascii_board(const Position& p, bool game_over = false);

}  // namespace kalah
