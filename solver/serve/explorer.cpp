#include "solver/serve/explorer.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <future>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/position.hpp"
#include "engine/text.hpp"
#include "solver/api/explore.hpp"
#include "solver/api/report_json.hpp"
#include "solver/db/store.hpp"
#include "solver/search/board_key.hpp"
#include "solver/search/transposition_table.hpp"

namespace kalah::serve {

namespace {

constexpr std::size_t kMaxParamChars = 256;
constexpr int kApiVersion = 1;

// A request the explorer refuses: the message names what is wrong (status 400).
struct BadRequest : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

Answer error_answer(int status, const std::string& message) {
  api::Json j;
  j["api_version"] = kApiVersion;
  j["error"] = one_line(message, 300);
  return {status, api::json_text(j)};
}

// The most seeds in the pits a pool's sessions take: those of Kalah(m, 6), less when the
// exact table keys of so many would not fit a table of `table_bytes` (at most kTagBits of a
// key above the bucket index; 8 pits).
int seeds_cap(int pits, std::uint64_t table_bytes) {
  const int index_bits = search::TranspositionTable::index_bits_within(static_cast<std::size_t>(table_bytes));
  for (int s = 12 * pits; s > 0; --s) {
    try {
      if (search::BoardKey(pits, s).bits() - index_bits <= search::TranspositionTable::kTagBits) return s;
    } catch (const std::length_error&) {
    }
  }
  return 0;
}

int parse_int(const std::string& name, const std::string& text, int lo, int hi) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    throw BadRequest(name + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                     ", not " + kalah::quoted(text));
  return v;
}

bool parse_bool(const std::string& name, const std::string& text) {
  if (text == "true" || text == "1" || text == "on") return true;
  if (text == "false" || text == "0" || text == "off") return false;
  throw BadRequest(name + " must be true or false, not " + kalah::quoted(text));
}

// Sets `flag` after `seconds` unless destroyed before.
class Deadline {
 public:
  Deadline(std::atomic<bool>& flag, double seconds)
      : thread_([this, &flag, seconds] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!done_cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; }))
            flag.store(true);
        }) {}
  ~Deadline() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
    thread_.join();
  }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;  // last: started once the rest is ready
};

}  // namespace

// The sessions of one pit count and value rule set, and which of them are searching.
struct Explorer::Pool {
  struct Slot {
    std::atomic<bool> cancel{false};
    std::unique_ptr<api::Session> session;
    bool busy = false;
  };
  int pits = 0;
  Rules rules;  // value rules
  std::vector<std::unique_ptr<Slot>> slots;
  std::mutex mutex;
  std::condition_variable freed;
  int busy = 0;
  // Ready once `slots` are made, or holding why they could not be: a request that finds the
  // pool listed waits on it, outside the list's lock.
  std::shared_future<void> opened;

  Slot& borrow() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      for (auto& s : slots)
        if (!s->busy) {
          s->busy = true;
          ++busy;
          return *s;
        }
      freed.wait(lock);
    }
  }
  void give_back(Slot& s) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      s.busy = false;
      --busy;
    }
    freed.notify_one();
  }
  bool idle() {
    const std::lock_guard<std::mutex> lock(mutex);
    return busy == 0;
  }
};

Explorer::Explorer(ExplorerConfig config) : config_(std::move(config)) {
  if (config_.workers < 1) throw api::ConfigError("the explorer needs at least one worker");
  if (!(config_.max_seconds > 0)) throw api::ConfigError("the search budget must be more than 0 seconds");
  if (config_.max_pools < 1) throw api::ConfigError("the explorer needs room for at least one rule set");
  if (!config_.database_dir.empty()) {
    const DbScan scan = inspect_database(config_.database_dir);
    database_pits_ = scan.levels.front().header.pits;
    database_rules_ = scan.levels.front().header.rules.value_rules();
    has_database_ = true;
    (void)pool_for(database_pits_, database_rules_);  // loads it now, not on the first request
  }
}

Explorer::~Explorer() = default;

std::shared_ptr<Explorer::Pool> Explorer::pool_for(int pits, const Rules& value_rules) {
  const auto is_database_pool = [&](int p, const Rules& r) {
    return has_database_ && p == database_pits_ && r == database_rules_;
  };
  std::shared_ptr<Pool> pool;
  std::promise<void> opened;
  bool maker = false;
  {
    const std::lock_guard<std::mutex> lock(pools_mutex_);
    for (auto it = pools_.begin(); it != pools_.end(); ++it) {
      if ((*it)->pits == pits && (*it)->rules == value_rules) {
        pools_.splice(pools_.begin(), pools_, it);  // most recently used first
        pool = pools_.front();
        break;
      }
    }
    if (!pool) {
      if (static_cast<int>(pools_.size()) >= config_.max_pools) {
        // Close the least recently used idle pool (never the database's: it would load again;
        // nor one being made: its maker holds it).
        auto victim = pools_.end();
        for (auto it = pools_.begin(); it != pools_.end(); ++it) {
          if (!is_database_pool((*it)->pits, (*it)->rules) && (*it)->idle() && it->use_count() == 1) victim = it;
        }
        if (victim == pools_.end()) return nullptr;
        pools_.erase(victim);
      }
      // Listed at once: it counts against max_pools, and a request of the same rule set
      // meanwhile waits for these sessions rather than making its own.
      pool = std::make_shared<Pool>();
      pool->pits = pits;
      pool->rules = value_rules;
      pool->opened = opened.get_future().share();
      pools_.push_front(pool);
      maker = true;
    }
  }
  if (!maker) {
    pool->opened.get();  // rethrows why its maker could not make it
    return pool;
  }
  try {
    if (config_.opening_sessions) config_.opening_sessions(pits, value_rules);
    make_sessions(*pool, is_database_pool(pits, value_rules));
  } catch (...) {
    {
      const std::lock_guard<std::mutex> lock(pools_mutex_);
      pools_.remove(pool);
    }
    opened.set_exception(std::current_exception());
    throw;
  }
  opened.set_value();
  return pool;
}

void Explorer::make_sessions(Pool& pool, bool with_database) const {
  api::SessionConfig c;
  c.pits = pool.pits;
  c.rules = pool.rules;
  c.max_seeds = seeds_cap(pool.pits, config_.table_bytes);
  c.table_bytes = config_.table_bytes;
  c.near_table_bytes = config_.near_table_bytes;
  c.threads = 1;
  if (config_.book && config_.book->pits() == pool.pits && config_.book->value_rules().same_values_as(pool.rules))
    c.book = config_.book;
  if (with_database) {
    c.database_dir = config_.database_dir;
    c.database_seeds = config_.database_seeds;
    // The budget holds everything: the other rule sets' tables (at most max_pools - 1, each up
    // to table_bytes) and, in what is left, the database and its pool's table.
    const std::uint64_t budget = api::memory_budget(config_.memory_bytes);
    const std::uint64_t others = config_.table_bytes * static_cast<std::uint64_t>(config_.max_pools - 1);
    if (budget > 0 && budget <= others)
      throw api::ConfigError("a memory budget of " + byte_text(budget) + " cannot hold " +
                             std::to_string(config_.max_pools - 1) + " other rule sets' tables of " +
                             byte_text(config_.table_bytes) +
                             " beside the database: give more memory (--memory), fewer rule sets (--max-rule-sets) "
                             "or smaller tables (--tt-memory)");
    c.memory_bytes = budget > 0 ? budget - others : 0;
  }
  std::vector<std::unique_ptr<Pool::Slot>> slots;
  for (int i = 0; i < config_.workers; ++i) slots.push_back(std::make_unique<Pool::Slot>());
  int next = 0;
  api::open_worker_sessions(c, config_.workers, true, [&](const api::SessionConfig& each) -> api::Session& {
    Pool::Slot& slot = *slots[static_cast<std::size_t>(next++)];
    api::SessionConfig own = each;
    own.cancel = &slot.cancel;
    slot.session = std::make_unique<api::Session>(own);
    return *slot.session;
  });
  pool.slots = std::move(slots);
}

Answer Explorer::solve(const Params& params) {
  try {
    static const std::set<std::string> known = {"pits", "position", "seeds",     "rules",      "capture",
                                                "end",  "sowing",   "early_end", "max_seconds"};
    std::map<std::string, std::string> p;
    for (const auto& [name, value] : params) {
      if (!known.count(name)) throw BadRequest("unknown parameter " + kalah::quoted(name));
      if (value.size() > kMaxParamChars)
        throw BadRequest(name + " is too long (" + std::to_string(value.size()) + " characters, at most " +
                         std::to_string(kMaxParamChars) + ")");
      if (!p.emplace(name, value).second) throw BadRequest(name + " is given twice");
    }
    const auto get = [&](const char* name) -> const std::string* {
      const auto it = p.find(name);
      return it == p.end() ? nullptr : &it->second;
    };
    int pits = 6;
    if (const std::string* s = get("pits")) pits = parse_int("pits", *s, 1, kMaxPits);
    Rules rules;
    try {
      if (const std::string* s = get("rules")) rules = Rules::preset(*s);
      if (const std::string* s = get("sowing")) rules.sowing = parse_sowing(*s);
      if (const std::string* s = get("capture")) rules.capture = parse_capture(*s);
      if (const std::string* s = get("end")) rules.end = parse_end_rule(*s);
    } catch (const BadRequest&) {
      throw;
    } catch (const std::invalid_argument& e) {
      throw BadRequest(e.what());
    }
    if (const std::string* s = get("early_end")) rules.early_end = parse_bool("early_end", *s);
    if (rules.sowing == Sowing::Relay && get("capture"))
      throw BadRequest("capture applies to kalah sowing only; the relay variant has its own 2/3 capture");
    if (rules.sowing == Sowing::Relay) rules.capture = Capture::NonEmpty;  // unused: one pool for relay's values
    Position position;
    try {
      if (const std::string* text = get("position")) {
        if (get("seeds")) throw BadRequest("give position or seeds, not both");
        position = Position::parse(*text, get("pits") ? pits : 0);
        pits = position.pits;
      } else if (const std::string* seeds = get("seeds")) {
        position = Position::start(pits, parse_int("seeds", *seeds, 0, 64));
      } else {
        throw BadRequest("give position (e.g. 4,4,4,4,4,4/4,4,4,4,4,4/0/0/S) or seeds");
      }
    } catch (const BadRequest&) {
      throw;
    } catch (const std::invalid_argument& e) {
      throw BadRequest(std::string("position: ") + e.what());
    }
    double seconds = config_.max_seconds;
    if (const std::string* s = get("max_seconds")) {
      double v = 0;
      const auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
      if (ec != std::errc() || end != s->data() + s->size() || !(v > 0))
        throw BadRequest("max_seconds must be a number above 0, not " + kalah::quoted(*s));
      seconds = std::min(v, seconds);
    }

    std::shared_ptr<Pool> pool;
    try {
      pool = pool_for(pits, rules.value_rules());
    } catch (const std::exception& e) {  // the server's configuration, not the request
      return error_answer(500, std::string("cannot open sessions for this rule set: ") + e.what());
    }
    if (!pool) return error_answer(503, "every rule set's searchers are busy; try again");
    Pool::Slot& slot = pool->borrow();
    struct GiveBack {
      Pool& pool;
      Pool::Slot& slot;
      ~GiveBack() { pool.give_back(slot); }
    } give_back{*pool, slot};
    api::ExploreReport report;
    slot.cancel.store(false);
    {
      const Deadline deadline(slot.cancel, seconds);
      try {
        report = api::explore(*slot.session, position);
      } catch (const api::ConfigError& e) {
        throw BadRequest(e.what());  // too many seeds for the pool's sessions
      }
    }
    slot.cancel.store(false);
    report.rules = rules;  // as asked (early end does not change the values: natural-end margins)
    api::Json j;
    j["api_version"] = kApiVersion;
    const api::Json fields = api::to_json(report);
    for (const auto& [key, value] : fields.items()) j[key] = value;
    j["max_seconds"] = seconds;
    j["db_max_seeds"] = slot.session->database_seeds();
    return {200, api::json_text(j)};
  } catch (const BadRequest& e) {
    return error_answer(400, e.what());
  } catch (const api::ConfigError& e) {
    return error_answer(400, e.what());
  }
}

std::string Explorer::info_json() const {
  api::Json j;
  j["api_version"] = kApiVersion;
  j["endpoints"] = {"/api/v1/solve"};
  if (has_database_) {
    j["database"] = {{"pits", database_pits_}, {"rules", api::rules_json(database_rules_)}};
  } else {
    j["database"] = nullptr;
  }
  if (config_.book)
    j["book"] = {{"pits", config_.book->pits()}, {"rules", api::rules_json(config_.book->value_rules())}};
  else
    j["book"] = nullptr;
  j["workers"] = config_.workers;
  j["max_seconds"] = config_.max_seconds;
  return api::json_text(j);
}

}  // namespace kalah::serve
