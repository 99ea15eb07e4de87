// solver/book/build.hpp — `kalah book build`: every board reachable within P sowings of the
// start of Kalah(m, n) solved once (transpositions, and positions differing only in stores
// or side, share a board), with its value and every sowing's stored in the book.
//
// Boards are solved a ply at a time, deepest first, so that a board's sowings lead to boards
// already solved: the deepest ply searches, a shallower board is read off its children (only
// a sowing that leads back to a board of a shallower ply, a transposition, is searched). A
// build resumes from the sound entries its file holds (a damaged one is deleted, so that its
// board is solved again when within the plies); an interrupted one keeps what it delivered
// (entries are committed in transactions of a few thousand, and when it stops). The boards
// within the plies and the file's entries are held in memory while it runs; the memory budget
// (SessionConfig::memory_bytes) holds them, the table and, in what they leave, the database.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "solver/api/label.hpp"
#include "solver/api/session.hpp"

namespace kalah::book {

struct BookBuildOptions {
  std::string file;
  int seeds = 4;  // a pit at the start
  int plies = 6;  // sowings from the start (an extra turn's sowing counts as one)
  api::BatchWorkers workers;
};

struct BookBuildProgress {
  int ply = 0;                 // the ply of the board solved last
  std::uint64_t solved = 0;    // boards solved by this run so far
  std::uint64_t to_solve = 0;  // boards this run solves in all
  std::uint64_t nodes = 0;
  double seconds = 0;
  bool done = false;  // the last call: the build has ended (complete or interrupted)
};

struct BookBuildReport {
  std::vector<std::uint64_t> boards_by_ply;  // the boards within the plies, by the ply first reaching them
  std::uint64_t reused = 0;                  // already in the file
  std::uint64_t repaired = 0;                // damaged entries of the file deleted
  std::string first_damage;                  // the first one's reason
  std::uint64_t solved = 0;                  // solved by this run
  std::uint64_t nodes = 0;
  double seconds = 0;
  bool interrupted = false;  // config.cancel stopped it: what was solved is kept
  int plies = -1;            // the book's complete depth afterwards
};

// Builds (or extends, or resumes) the book options.file of Kalah(config.pits, options.seeds)
// under config.rules, solving on options.workers sessions opened from `config` (its database,
// memory and table; max_seeds and book are set here). `progress` is called about once a
// second and when the build ends. Throws BookError, api::ConfigError, DatabaseError.
BookBuildReport build_book(const api::SessionConfig& config, const BookBuildOptions& options,
                           const std::function<void(const BookBuildProgress&)>& progress);

}  // namespace kalah::book
