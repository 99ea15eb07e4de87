// solver/cli/common.hpp — what every `kalah` subcommand shares: option parsing with
// Boost.Program_options, the rule options, board/position options, errors and exit codes.
//
// Exit codes: 0 success, 1 failure while working (illegal move in a record, unreadable or
// corrupt database, ...), 2 usage error (unknown option, bad value, malformed position).
#pragma once

#include <boost/program_options.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/notation.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"

namespace kalah::cli {

namespace po = boost::program_options;

// A usage error: reported on one line, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --rules PRESET, --capture, --end, --early-end, --pie, --sowing. `default_shown` is what
// --help gives as --rules' default (a command that takes a file's rules when none are given
// says so; the value parsed is "standard" either way, `defaulted()` tells them apart).
po::options_description rule_options(const std::string& default_shown = "standard");
Rules rules_from(const po::variables_map& vm);

// --pits M, --seeds N, --position POS (defaults: 6 pits, 4 seeds, the start position).
po::options_description board_options(int default_pits = 6, int default_seeds = 4);
// The start position of Kalah(pits, seeds), or --position checked against --pits when given.
Position position_from(const po::variables_map& vm);

// The first positional argument as the option "dir" (kalah db info DIR, kalah job run DIR).
po::positional_options_description dir_positional();
// Commands that read a game record (replay, analyze): --notation and --record (the
// positional arguments), and the record's pieces joined with its notation. Throws UsageError.
po::options_description record_options();
po::positional_options_description record_positional();
std::pair<Notation, std::string> record_from(const po::variables_map& vm, const std::string& command);
// A Finnish record may start with '-' ("-46, 1*-5"), which option parsing would take for an
// option: every argument that is not an option of `known` becomes "--record=PIECE".
using Args = std::vector<std::string>;
Args protect_records(const Args& args, const po::options_description& known);

// --help/-h, which parse_command adds to every subcommand's options.
void add_help_option(po::options_description& options);

// Parse a subcommand's arguments. Returns false when --help was asked for (help printed).
// Throws UsageError for anything malformed.
bool parse_command(const std::string& name, const std::string& synopsis, po::options_description options,
                   const std::vector<std::string>& args, po::variables_map& vm,
                   const po::positional_options_description* positional = nullptr);

// A byte count: digits with an optional binary suffix K, M, G or T (optionally followed by
// "B" or "iB"; "1.5G" allowed), e.g. "4G" = 4 * 2^30. Throws UsageError naming `option`.
std::uint64_t parse_byte_size(const std::string& text, const std::string& option);

// The command that builds, finishes or extends the database in `dir` to levels 0..max_seeds,
// every option spelled out (the defaults are another game's): "kalah db build --pits 4
// --max-seeds 30 --out db4 --sowing kalah --capture empty --end either".
std::string db_build_command(const std::string& dir, int pits, int max_seeds, const Rules& rules);

// "+8", "0", "-2".
std::string signed_value(int v);
// "South wins by 8", "draw", "North wins by 2" for a South-minus-North margin.
std::string outcome_text(int margin);
// One-line rules summary: "standard (sowing=kalah capture=nonempty end=either ...)".
std::string rules_text(const Rules& rules);
// 1-based pit numbers joined by `separator`: {1, 0} -> "2 1" (or "2-1" for a turn).
std::string pits_text(const std::vector<int>& pits, const char* separator = " ");
// Which program made each numbered thing (runs, levels), consecutive numbers of one program
// together, in order: "not recorded (runs 1-9), 42430228be27 (run 10)". An empty program
// reads "not recorded". `noun` is the singular ("run"); `range` joins a first and last ("-").
std::string programs_text(const std::vector<std::pair<int, std::string>>& made_by, const std::string& noun,
                          const char* range);
// The note printed with every margin computed under early end.
extern const char* const kEarlyEndNote;

}  // namespace kalah::cli
