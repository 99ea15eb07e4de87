// solver/serve/server.hpp — the HTTP front of the explorer (`kalah serve`): cpp-httplib
// (Debian's libcpp-httplib-dev: a maintained, threaded HTTP/1.1 server in one header and a
// small shared library, enough for a JSON API and one page; Boost.Beast would mean writing
// the connection handling ourselves).
//
// Routes, GET only: "/" the explorer page (page.hpp), "/api/v1" what the server offers,
// "/api/v1/solve" the explorer's answer (explorer.hpp, docs/api.md). Anything else: 404,
// other methods: 405, every error a JSON body {"api_version", "error"}. No file is ever served
// from disk, so no path can reach one. Requests with a body over 4 KiB are refused (413) and
// request lines over httplib's limit (8 KiB) get 414.
#pragma once

#include <memory>
#include <string>

#include "solver/serve/explorer.hpp"

namespace kalah::serve {

class HttpServer {
 public:
  // Serves `explorer` (which must outlive the server) with `threads` connection threads and
  // up to `queue` accepted connections waiting for one (connection_pool.hpp); beyond that the
  // server stops accepting until a place frees.
  HttpServer(Explorer& explorer, int threads, int queue);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds to address:port (port 0: any free port). Returns the port; throws
  // std::runtime_error naming the address when it cannot bind.
  int bind(const std::string& address, int port);
  // Serves until stop() (from another thread or a signal watcher). Call after bind().
  void run();
  void stop();
  // Connections the listener had to hold because the wait list was full, since run() began.
  long long blocked_accepts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kalah::serve
