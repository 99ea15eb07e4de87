// solver/python/module.cpp — `import kalah`: the library for Python (pybind11), for teams that
// label positions in-process. A Solver opens a session once (rules, database, memory,
// threads) and answers value(), moves() (every sowing's exact value, best first) and
// label_batch() (many positions on worker threads, the GIL released). Positions are the
// text format of engine/position.hpp; values South minus North with perfect play to the
// natural end, as everywhere (docs/json.md). Bad input raises ValueError with the reason.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "engine/sample.hpp"
#include "solver/api/label.hpp"
#include "solver/api/report_json.hpp"
#include "solver/api/reports.hpp"
#include "solver/api/session.hpp"
#include "solver/base/program_version.hpp"
#include "solver/book/book.hpp"

namespace py = pybind11;

namespace kalah::python {

namespace {

Rules rules_from(const std::string& preset, const std::optional<std::string>& sowing,
                 const std::optional<std::string>& capture, const std::optional<std::string>& end) {
  Rules r = Rules::preset(preset);
  if (sowing) r.sowing = parse_sowing(*sowing);
  if (capture) r.capture = parse_capture(*capture);
  if (end) r.end = parse_end_rule(*end);
  return r;
}

// The keys and values of a `kalah label` line (api::to_json), as a Python dict.
py::dict label_dict(const api::LabelReport& r) {
  return py::module_::import("json").attr("loads")(api::to_json(r).dump()).cast<py::dict>();
}

// One open session and the configuration that opened it (label_batch opens its workers
// from the same configuration, sharing the database).
class Solver {
 public:
  Solver(int pits, int seeds, const std::string& rules, const std::optional<std::string>& sowing,
         const std::optional<std::string>& capture, const std::optional<std::string>& end,
         const std::optional<std::string>& db, int db_seeds, std::uint64_t table_bytes, int threads,
         const std::optional<std::string>& book) {
    if (seeds < 1) throw std::invalid_argument("seeds must be at least 1");
    check_size(pits, seeds);
    api::SessionConfig c;
    c.pits = pits;
    c.rules = rules_from(rules, sowing, capture, end);
    c.max_seeds = 2 * pits * seeds;
    if (db) c.database_dir = *db;
    c.database_seeds = db_seeds;
    c.table_bytes = table_bytes;
    c.threads = threads;
    if (book) try {
        c.book = std::make_shared<const book::Book>(*book);
      } catch (const book::BookError& e) {
        throw std::invalid_argument(e.what());  // ValueError, as for any bad input
      }
    config_ = c;
    py::gil_scoped_release release;  // the database load may take a while
    session_ = std::make_unique<api::Session>(c);
    config_.database = session_->shared_database();
    config_.database_dir.clear();
  }

  int pits() const { return config_.pits; }
  std::string rules() const { return config_.rules.describe(); }
  int db_max_seeds() const { return session_->database_seeds(); }

  int value(const std::string& text) {
    const Position p = parse(text);
    py::gil_scoped_release release;  // first: a thread waiting for the lock must not hold the GIL
    std::lock_guard lock(mutex_);
    return api::solve(*session_, p, true).value;
  }

  py::dict moves(const std::string& text) {
    const Position p = parse(text);
    api::LabelReport r;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      r = api::label(*session_, p);
    }
    return label_dict(r);
  }

  // Every position's label (a dict, or {"error": ...} for a bad one), in order, on `threads`
  // workers (0: the session's thread count). The batch runs on its own thread while this one,
  // the caller's (Python's main thread as a rule), looks at Python's signals every tenth of a
  // second: Ctrl-C stops the searches under way and raises KeyboardInterrupt.
  py::list label_batch(const std::vector<std::string>& texts, int threads) {
    const int workers = threads > 0 ? threads : std::max(1, session_->solver().threads());
    std::vector<api::BatchResult> results;
    results.reserve(texts.size());
    std::atomic<bool> cancel{false};
    api::SessionConfig batch = config_;
    batch.cancel = &cancel;
    bool interrupted = false;
    std::exception_ptr failure;
    {
      py::gil_scoped_release release;
      std::mutex mutex;
      std::condition_variable over_cv;
      bool over = false;
      std::thread runner([&] {
        try {
          std::size_t next = 0;
          api::label_batch(
              batch, api::BatchWorkers{workers},
              [&](api::BatchInput& in) {
                if (next == texts.size()) return false;
                try {
                  in.position = Position::parse(texts[next], config_.pits);
                } catch (const std::invalid_argument& e) {
                  in.error = e.what();
                }
                ++next;
                return true;
              },
              [&](const api::BatchInput&, const api::BatchResult& r) { results.push_back(r); });
        } catch (...) {
          failure = std::current_exception();
        }
        std::lock_guard lock(mutex);
        over = true;
        over_cv.notify_all();
      });
      std::unique_lock lock(mutex);
      while (!over_cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return over; })) {
        lock.unlock();
        {
          py::gil_scoped_acquire acquire;
          if (!interrupted && PyErr_CheckSignals() != 0) {  // a handler raised (KeyboardInterrupt)
            PyErr_Clear();
            interrupted = true;
            cancel = true;
          }
        }
        lock.lock();
      }
      lock.unlock();
      runner.join();
    }
    if (interrupted) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw py::error_already_set();
    }
    if (failure) std::rethrow_exception(failure);
    py::list out;
    for (const api::BatchResult& r : results) {
      if (r.report) {
        out.append(label_dict(*r.report));
      } else {
        py::dict d;
        d["error"] = r.error;
        out.append(d);
      }
    }
    return out;
  }

 private:
  Position parse(const std::string& text) const {
    Position p = Position::parse(text, config_.pits);
    session_->check_fits(p);
    return p;
  }

  api::SessionConfig config_;
  std::unique_ptr<api::Session> session_;
  std::mutex mutex_;  // one call at a time on the session
};

}  // namespace

}  // namespace kalah::python

PYBIND11_MODULE(kalah, m) {
  using kalah::python::Solver;
  m.doc() = "Exact Kalah(m,n) values: the kalah solver's library (see the README's Python section).";
  // The commit the module was built from, as `kalah --version` names it: labels can say what made them.
  m.attr("__version__") = kalah::program_version();
  // std::invalid_argument (bad positions, rules, sizes: api::ConfigError too) becomes ValueError.
  py::class_<Solver>(m, "Solver")
      .def(py::init<int, int, const std::string&, const std::optional<std::string>&, const std::optional<std::string>&,
                    const std::optional<std::string>&, const std::optional<std::string>&, int, std::uint64_t, int,
                    const std::optional<std::string>&>(),
           py::arg("pits") = 6, py::arg("seeds") = 4, py::arg("rules") = "standard", py::arg("sowing") = py::none(),
           py::arg("capture") = py::none(), py::arg("end") = py::none(), py::arg("db") = py::none(),
           py::arg("db_seeds") = -1, py::arg("table_bytes") = std::uint64_t(1) << 30, py::arg("threads") = 0,
           py::arg("book") = py::none(),
           "Open a solver for positions of Kalah(pits, seeds)-family games (at most 2*pits*seeds seeds in the "
           "pits) under a rules preset with optional overrides, an optional endgame database directory, a table "
           "size in bytes, a thread count (0: all cores) and an optional opening book file (kalah book build), "
           "looked up before any search.")
      .def_property_readonly("pits", &Solver::pits)
      .def_property_readonly("rules", &Solver::rules)
      .def_property_readonly("db_max_seeds", &Solver::db_max_seeds, "the database's deepest level, -1 without one")
      .def("value", &Solver::value, py::arg("position"),
           "The exact value of a position (text format), South minus North.")
      .def("moves", &Solver::moves, py::arg("position"),
           "The value and every legal sowing's value, best for the side to move first: a dict with position, pits, "
           "to_move, value, moves (pit, value, extra_turn, loss), best, nodes, seconds.")
      .def("label_batch", &Solver::label_batch, py::arg("positions"), py::arg("threads") = 0,
           "moves() for a list of positions on worker threads (the GIL released), in order; a bad position "
           "gives {'error': reason}. Ctrl-C stops it within a tenth of a second with KeyboardInterrupt.");
  m.def(
      "sample",
      [](int pits, int seeds, int pit_seeds, std::uint64_t seed, const std::string& rules) {
        std::mt19937_64 rng(seed);
        const auto p = kalah::random_position(pits, seeds, pit_seeds, kalah::Rules::preset(rules), rng);
        if (!p)
          throw std::invalid_argument("no random game reached " + std::to_string(pit_seeds) + " seeds in the pits");
        return p->to_text();
      },
      py::arg("pits"), py::arg("seeds"), py::arg("pit_seeds"), py::arg("seed") = 1, py::arg("rules") = "standard",
      "A random reachable position with pit_seeds seeds in the pits (a random game from the start).");
}
