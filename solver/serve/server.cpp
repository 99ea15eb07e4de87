#include "solver/serve/server.hpp"

#include <httplib.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "solver/api/report_json.hpp"
#include "solver/serve/connection_pool.hpp"
#include "solver/serve/page.hpp"

namespace kalah::serve {

namespace {

void send_json(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content(body, "application/json; charset=utf-8");
}

std::string error_body(const std::string& message) {
  api::Json j;
  j["api_version"] = 1;
  j["error"] = message;
  return api::json_text(j);
}

// httplib's task queue over a ConnectionPool (httplib deletes it when listen ends).
class PoolQueue : public httplib::TaskQueue {
 public:
  explicit PoolQueue(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}
  void enqueue(std::function<void()> fn) override { pool_->enqueue(std::move(fn)); }
  void shutdown() override { pool_->shutdown(); }

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace

struct HttpServer::Impl {
  httplib::Server http;
  std::mutex pool_mutex;
  std::shared_ptr<ConnectionPool> pool;  // the running listen's, for stop()
};

HttpServer::HttpServer(Explorer& explorer, int threads, int queue) : impl_(std::make_unique<Impl>()) {
  httplib::Server& http = impl_->http;
  const int n = std::max(threads, 1);
  const int q = std::max(queue, 1);
  http.new_task_queue = [impl = impl_.get(), n, q] {
    auto pool = std::make_shared<ConnectionPool>(n, q);
    std::lock_guard lock(impl->pool_mutex);
    impl->pool = pool;
    return new PoolQueue(pool);
  };
  http.set_payload_max_length(4096);
  http.set_read_timeout(10, 0);
  http.set_write_timeout(10, 0);
  http.set_keep_alive_timeout(1);  // an idle connection does not hold a thread for long
  // Headers and body go out in separate writes: without TCP_NODELAY Nagle holds the body
  // until the client's delayed ACK, 40 ms on every kept-alive request.
  http.set_tcp_nodelay(true);
  http.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Content-Security-Policy",
                   "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'");
    res.set_content(explorer_page(), "text/html; charset=utf-8");
  });
  http.Get("/api/v1",
           [&explorer](const httplib::Request&, httplib::Response& res) { send_json(res, 200, explorer.info_json()); });
  http.Get("/api/v1/solve", [&explorer](const httplib::Request& req, httplib::Response& res) {
    Params params(req.params.begin(), req.params.end());
    const Answer a = explorer.solve(params);
    send_json(res, a.status, a.body);
  });
  // Other methods on the known paths: 405; everything else (httplib's 404 and the rest): a
  // JSON error naming the status.
  for (const char* path : {"/", "/api/v1", "/api/v1/solve"}) {
    const auto refuse = [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Allow", "GET");
      send_json(res, 405, error_body("only GET is served here"));
    };
    http.Post(path, refuse);
    http.Put(path, refuse);
    http.Delete(path, refuse);
    http.Patch(path, refuse);
  }
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;  // a route's own error answer
    const std::string what = res.status == 404   ? "no such path"
                             : res.status == 413 ? "request too large"
                             : res.status == 414 ? "request line too long"
                                                 : "bad request";
    send_json(res, res.status, error_body(what));
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = std::string("internal error: ") + e.what();
    } catch (...) {
    }
    send_json(res, 500, error_body(what));
  });
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::bind(const std::string& address, int port) {
  if (port == 0) {
    const int p = impl_->http.bind_to_any_port(address);
    if (p <= 0) throw std::runtime_error("cannot listen on " + address + " (any port)");
    return p;
  }
  if (!impl_->http.bind_to_port(address, port))
    throw std::runtime_error("cannot listen on " + address + ":" + std::to_string(port) +
                             " (in use, or not an address of this machine)");
  return port;
}

void HttpServer::run() { impl_->http.listen_after_bind(); }

long long HttpServer::blocked_accepts() const {
  std::lock_guard lock(impl_->pool_mutex);
  return impl_->pool ? impl_->pool->blocked_enqueues() : 0;
}

void HttpServer::stop() {
  {
    // A listener blocked on a full wait list would not see the stop until a place frees.
    std::lock_guard lock(impl_->pool_mutex);
    if (impl_->pool) impl_->pool->stop_waiting();
  }
  if (impl_->http.is_running()) impl_->http.stop();
}

}  // namespace kalah::serve
