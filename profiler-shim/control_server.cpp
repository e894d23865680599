#include "control_server.hpp"

#include <chrono>

#include "gcsnap_thread_name.hpp"
#include "shim_os.hpp"

namespace gcsnap::shim {

std::unique_ptr<ControlServer> ControlServer::start(const std::string& path, Handler handler, std::string& error) {
  Endpoint* endpoint = open_endpoint(path, error);
  if (!endpoint) return nullptr;
  std::unique_ptr<ControlServer> server(new ControlServer(path, endpoint, std::move(handler)));
  server->thread_ = std::thread([s = server.get()] { s->serve(); });
  return server;
}

ControlServer::ControlServer(std::string path, Endpoint* endpoint, Handler handler)
    : path_(std::move(path)), endpoint_(endpoint), handler_(std::move(handler)) {}

ControlServer::~ControlServer() { stop(2000); }

void ControlServer::serve() noexcept {
  // Named so that a profile (and bench/pause.sh) can find it: an on-demand snapshot's forced GC,
  // heap walk included, runs on this thread.
  platform::set_thread_name("gcsnap-control");
  while (serve_one()) {
  }
  std::lock_guard<std::mutex> lock(mutex_);
  exited_ = true;
  exited_cv_.notify_all();
  if (stopped_from_inside_) {
    // Nobody will join this thread: it cleans up after itself (the object stays, see stop()).
    close_endpoint();
    thread_.detach();
  }
}

std::string ControlServer::reply_to(const std::string& request) noexcept {
  try {
    return handler_(request) + "\n";
  } catch (...) {
    return {};  // a failed request must not take the app down; the client sees the channel close
  }
}

intptr_t ControlServer::take_passed_file() noexcept {
  intptr_t file = passed_file_;
  passed_file_ = -1;
  return file;
}

void ControlServer::stop(int timeout_ms) noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    stopped_from_inside_ = std::this_thread::get_id() == thread_.get_id();
  }
  wake();
  if (stopped_from_inside_) return;  // serve() ends after this reply and cleans up
  std::unique_lock<std::mutex> lock(mutex_);
  bool done = exited_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return exited_; });
  lock.unlock();
  if (done) {
    if (thread_.joinable()) thread_.join();
    close_endpoint();
  } else if (thread_.joinable()) {
    thread_.detach();  // stuck in a forced GC during shutdown: never block the app's exit
  }
}

}  // namespace gcsnap::shim
