#include "solver/api/label.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/game.hpp"

namespace kalah::api {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

LabelReport label(Session& session, const Position& position) {
  session.check_fits(position);
  LabelReport r;
  r.position = position;
  r.rules = session.rules();
  const std::uint64_t nodes0 = session.solver().nodes();
  const auto t0 = Clock::now();
  KnownBoard known;
  if (!Game(position, session.rules().value_rules()).over() && session.find_in_book(position.board(), known)) {
    r.values = move_values_known(position, session.rules(), [&](int pit) { return known.sowing[pit]; });
    r.from_book = true;
  } else {
    r.values = move_values(position, session.rules(), session.oracle());
  }
  r.nodes = session.solver().nodes() - nodes0;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

bool label_batch(const SessionConfig& config, BatchWorkers workers, const std::function<bool(BatchInput&)>& next,
                 const std::function<void(const BatchInput&, const BatchResult&)>& done) {
  if (workers.count < 1) throw ConfigError("a batch needs at least one worker, not " + std::to_string(workers.count));
  // The sessions, of one search thread each.
  std::vector<std::unique_ptr<Session>> sessions;
  SessionConfig each = config;
  each.threads = 1;
  each.progress = nullptr;
  open_worker_sessions(each, workers.count, workers.share_table, [&](const SessionConfig& c) -> Session& {
    sessions.push_back(std::make_unique<Session>(c));
    return *sessions.back();
  });

  std::mutex mutex;  // guards everything below and the calls of next()
  std::condition_variable ready;
  std::size_t read = 0;                                                // inputs taken from next()
  bool exhausted = false;                                              // next() returned false
  bool stopped = false;                                                // cancelled, or a worker failed
  std::exception_ptr failure;                                          // what stopped it, when not a cancel
  std::map<std::size_t, std::pair<BatchInput, BatchResult>> finished;  // not yet delivered
  int running = workers.count;

  auto work = [&](Session& session) {
    for (;;) {
      BatchInput input;
      std::size_t index = 0;
      {
        std::lock_guard lock(mutex);
        if (config.cancel && config.cancel->load()) stopped = true;
        if (stopped || exhausted) break;
        try {
          if (!next(input)) {
            exhausted = true;
            break;
          }
        } catch (...) {
          failure = std::current_exception();
          stopped = true;
          break;
        }
        index = read++;
      }
      BatchResult result;
      if (input.position) {
        try {
          result.report = label(session, *input.position);
        } catch (const search::Interrupted&) {
          std::lock_guard lock(mutex);
          stopped = true;
          break;
        } catch (const ConfigError& e) {
          result.error = e.what();
        } catch (...) {
          std::lock_guard lock(mutex);
          failure = std::current_exception();
          stopped = true;
          break;
        }
      } else {
        result.error = input.error;
      }
      std::lock_guard lock(mutex);
      finished.emplace(index, std::make_pair(std::move(input), std::move(result)));
      ready.notify_all();
    }
    std::lock_guard lock(mutex);
    --running;
    ready.notify_all();
  };
  std::vector<std::thread> threads;
  for (auto& s : sessions) threads.emplace_back(work, std::ref(*s));

  // Deliver in input order; stop at the first gap a stop left.
  std::size_t delivered = 0;
  std::unique_lock lock(mutex);
  for (;;) {
    ready.wait(lock, [&] { return finished.count(delivered) || running == 0; });
    auto it = finished.find(delivered);
    if (it == finished.end()) break;  // every worker is gone and this one never came
    auto item = std::move(it->second);
    finished.erase(it);
    ++delivered;
    lock.unlock();
    try {
      done(item.first, item.second);
    } catch (...) {
      lock.lock();
      if (!failure) failure = std::current_exception();
      stopped = true;
      break;
    }
    lock.lock();
  }
  if (lock.owns_lock()) lock.unlock();
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  return !stopped;
}

}  // namespace kalah::api
