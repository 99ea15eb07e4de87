#include "solver/cli/common.hpp"

#include <algorithm>
#include <cctype>
#include <iostream>

#include "engine/notation.hpp"
#include "engine/text.hpp"

namespace kalah::cli {

const char* const kEarlyEndNote =
    "early end is on: it never changes the winner; the margin shown is the natural-end margin";

po::options_description rule_options(const std::string& default_shown) {
  po::options_description o("Rule options");
  // clang-format off
  o.add_options()
      ("rules", po::value<std::string>()->default_value("standard", default_shown),
       "preset: standard | empty-capture | bga | relay (the options below override it)")
      ("capture", po::value<std::string>(), "nonempty | empty")
      ("end", po::value<std::string>(), "either | mover")
      ("sowing", po::value<std::string>(), "kalah | relay")
      ("early-end", "the game stops once a store holds more than half of all seeds")
      ("no-early-end", "turn early end off (e.g. for the bga and relay presets)")
      ("pie", "pie rule: North may swap sides after South's first turn");
  // clang-format on
  return o;
}

Rules rules_from(const po::variables_map& vm) {
  try {
    Rules r = Rules::preset(vm["rules"].as<std::string>());
    if (vm.count("sowing")) r.sowing = parse_sowing(vm["sowing"].as<std::string>());
    if (vm.count("capture")) r.capture = parse_capture(vm["capture"].as<std::string>());
    if (vm.count("end")) r.end = parse_end_rule(vm["end"].as<std::string>());
    if (vm.count("early-end") && vm.count("no-early-end"))
      throw UsageError("--early-end and --no-early-end contradict each other");
    if (vm.count("early-end")) r.early_end = true;
    if (vm.count("no-early-end")) r.early_end = false;
    if (vm.count("pie")) r.pie = true;
    if (r.sowing == Sowing::Relay && vm.count("capture"))
      throw UsageError("--capture applies to kalah sowing only; the relay variant has its own 2/3 capture");
    return r;
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

po::options_description board_options(int default_pits, int default_seeds) {
  po::options_description o("Board options");
  // clang-format off
  o.add_options()
      ("pits,m", po::value<int>()->default_value(default_pits), "pits a side (1..8)")
      ("seeds,n", po::value<int>()->default_value(default_seeds), "seeds a pit at the start")
      ("position", po::value<std::string>(),
       "a position instead of the start: S1,..,Sm/N1,..,Nm/storeS/storeN/S|N");
  // clang-format on
  return o;
}

Position position_from(const po::variables_map& vm) {
  try {
    const int m = vm["pits"].as<int>();
    if (vm.count("position")) {
      const bool pits_given = !vm["pits"].defaulted();
      return Position::parse(vm["position"].as<std::string>(), pits_given ? m : 0);
    }
    return Position::start(m, vm["seeds"].as<int>());
  } catch (const PositionError& e) {
    throw UsageError(e.what());
  }
}

namespace {

// Boost.Program_options builds its messages from the option names and values as given
// (substitutions into a template): each is escaped and bounded here, through the protected
// map that holds them, so that the message keeps its shape ("the argument ('xxxx...') for
// option '--pits' is invalid").
struct BoundedOptionError : po::error_with_option_name {
  static void bound(po::error_with_option_name& e) {
    for (auto& substitution : e.*(&BoundedOptionError::m_substitutions))
      substitution.second = kalah::one_line(substitution.second, 64);
  }
};

}  // namespace

void add_help_option(po::options_description& options) { options.add_options()("help,h", "show this help"); }

bool parse_command(const std::string& name, const std::string& synopsis, po::options_description options,
                   const std::vector<std::string>& args, po::variables_map& vm,
                   const po::positional_options_description* positional) {
  add_help_option(options);
  try {
    po::command_line_parser parser(args);
    parser.options(options);
    if (positional)
      parser.positional(*positional);
    else
      parser.positional(po::positional_options_description());
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      std::cout << "Usage: kalah " << name << " " << synopsis << "\n\n" << options << "\n";
      return false;
    }
    po::notify(vm);
  } catch (po::error& e) {
    if (auto* with_name = dynamic_cast<po::error_with_option_name*>(&e)) BoundedOptionError::bound(*with_name);
    // Bounded as a whole too, so that the pointer to --help survives.
    throw UsageError(kalah::one_line(e.what(), 400) + " (see 'kalah " + name + " --help')");
  }
  return true;
}

std::uint64_t parse_byte_size(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string suffix = text.substr(used);
  for (auto& ch : suffix) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (suffix.size() > 1 && (suffix.substr(1) == "B" || suffix.substr(1) == "IB")) suffix = suffix.substr(0, 1);
  double scale = 1;
  if (suffix == "K")
    scale = 1024.0;
  else if (suffix == "M")
    scale = 1024.0 * 1024;
  else if (suffix == "G")
    scale = 1024.0 * 1024 * 1024;
  else if (suffix == "T")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (!suffix.empty() && suffix != "B")
    used = 0;
  if (used == 0 || !(v > 0) || v * scale > 1.8e19)
    throw UsageError("--" + option + ": " + kalah::quoted(text) + " is not a byte count (e.g. 4G, 512M, 1000000)");
  return static_cast<std::uint64_t>(v * scale);
}

std::string signed_value(int v) { return v > 0 ? "+" + std::to_string(v) : std::to_string(v); }

std::string outcome_text(int margin) {
  if (margin > 0) return "South wins by " + std::to_string(margin);
  if (margin < 0) return "North wins by " + std::to_string(-margin);
  return "draw";
}

std::string pits_text(const std::vector<int>& pits, const char* separator) {
  std::string s;
  for (int p : pits) s += (s.empty() ? "" : separator) + std::to_string(p + 1);
  return s;
}

std::string programs_text(const std::vector<std::pair<int, std::string>>& made_by, const std::string& noun,
                          const char* range) {
  std::string out;
  for (std::size_t i = 0; i < made_by.size();) {
    std::size_t j = i;
    while (j + 1 < made_by.size() && made_by[j + 1].second == made_by[i].second) ++j;
    const std::string& program = made_by[i].second;
    out += (out.empty() ? "" : ", ") + (program.empty() ? std::string("not recorded") : program) +
           (i == j ? " (" + noun + " " + std::to_string(made_by[i].first) + ")"
                   : " (" + noun + "s " + std::to_string(made_by[i].first) + range + std::to_string(made_by[j].first) +
                         ")");
    i = j + 1;
  }
  return one_line(out, 400);
}

std::string rules_text(const Rules& rules) { return rules.preset_name() + " (" + rules.describe() + ")"; }

namespace {

// The option an argument names in `known` (long: "--name" or "--name=value", a unique
// prefix allowed as Boost allows it; short: "-m" or "-m6"), or nullptr (none, or a prefix
// of several long names: the parser reports it).
const po::option_description* named_option(const std::string& arg, const po::options_description& known) {
  try {
    if (arg.rfind("--", 0) == 0) return known.find_nothrow(arg.substr(2, arg.find('=') - 2), true);
    return known.find_nothrow(arg.substr(0, 2), false);
  } catch (const po::error&) {  // an ambiguous prefix
    return nullptr;
  }
}

}  // namespace

// A Finnish record may start with '-' when North moves first ("-46, 1*-5"), and any
// argument of a bad record may, which option parsing would take for an option. So an
// argument is an option only when it names an option of `known` (a long one may be
// abbreviated; any "--" followed by a letter counts too, so that the parser reports an
// unknown one), or is the value of the option before it that takes one. Every other
// argument ("-46", "-", "- 1", "-*", "-a"), and every one after "--", is a piece of the
// record and is passed on as "--record=PIECE" (in order), which nothing can take for
// another option or for an option's value.
Args protect_records(const Args& args, const po::options_description& known) {
  Args options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      for (std::size_t k = i + 1; k < args.size(); ++k) options.push_back("--record=" + args[k]);
      break;
    }
    const bool long_form = a.size() > 2 && a[0] == '-' && a[1] == '-' && std::isalpha(static_cast<unsigned char>(a[2]));
    const bool short_form = a.size() > 1 && a[0] == '-' && a[1] != '-';
    const po::option_description* option = long_form || short_form ? named_option(a, known) : nullptr;
    if (!long_form && !option) {
      options.push_back("--record=" + a);
      continue;
    }
    options.push_back(a);
    const bool value_attached = long_form ? a.find('=') != std::string::npos : a.size() > 2;
    if (option && option->semantic()->min_tokens() > 0 && !value_attached && i + 1 < args.size())
      options.push_back(args[++i]);
  }
  return options;
}

po::options_description record_options() {
  po::options_description options("Record options");
  // clang-format off
  options.add_options()
      ("notation", po::value<std::string>()->default_value("finnish"), "finnish | irving")
      ("record", po::value<std::vector<std::string>>(),
       "the game record (usually given as positional arguments)");
  // clang-format on
  return options;
}

po::positional_options_description record_positional() {
  po::positional_options_description positional;
  positional.add("record", -1);
  return positional;
}

std::pair<Notation, std::string> record_from(const po::variables_map& vm, const std::string& command) {
  Notation notation;
  try {
    notation = parse_notation(vm["notation"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (!vm.count("record")) throw UsageError("no game record given (see 'kalah " + command + " --help')");
  std::string record;
  for (const auto& piece : vm["record"].as<std::vector<std::string>>()) record += (record.empty() ? "" : " ") + piece;
  return {notation, record};
}

std::string db_build_command(const std::string& dir, int pits, int max_seeds, const Rules& rules) {
  // A directory with characters a shell would split or expand goes in single quotes.
  const bool plain = !dir.empty() && std::all_of(dir.begin(), dir.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ':' || c == ',';
  });
  std::string word = dir;
  if (!plain) {
    word = "'";
    for (const char c : dir) word += c == '\'' ? std::string("'\\''") : std::string(1, c);
    word += "'";
  }
  // Relay sowing has no capture rule (the option is refused with it).
  return "kalah db build --pits " + std::to_string(pits) + " --max-seeds " + std::to_string(max_seeds) + " --out " +
         word + " --sowing " + std::string(to_string(rules.sowing)) +
         (rules.sowing == Sowing::Kalah ? " --capture " + std::string(to_string(rules.capture)) : std::string()) +
         " --end " + std::string(to_string(rules.end));
}

po::positional_options_description dir_positional() {
  po::positional_options_description p;
  p.add("dir", 1);
  return p;
}

}  // namespace kalah::cli
