#pragma once
// The control socket: a unix stream socket at $TMPDIR/gcsnap-<pid>.ctl, served by a thread
// of the shim's own. `gcsnap snapshot PID` connects, sends "snapshot\n" and reads one reply
// line. Only the same user (or root) may ask (SO_PEERCRED); the socket file is mode 0600.
// A request may carry one file descriptor (attach: the output file the CLI opened).

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace gcsnap::shim {

class ControlServer {
 public:
  /// Handle one request line (without '\n'); return the reply line (without '\n').
  using Handler = std::function<std::string(const std::string& request)>;

  /// Bind PATH (replacing a stale file) and start serving. Returns nullptr and sets ERROR on failure.
  static std::unique_ptr<ControlServer> start(const std::string& path, Handler handler, std::string& error);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  /// Stop serving and remove the socket file. Waits at most TIMEOUT_MS for a request in
  /// progress (a forced GC) to finish, then leaves the thread behind rather than hang.
  /// Called from inside the handler, it only asks: the thread ends after this reply, and
  /// the object must then outlive it (attached sessions never free theirs).
  void stop(int timeout_ms) noexcept;
  /// From inside the handler: take the descriptor the client sent with this request
  /// (SCM_RIGHTS), or -1. One not taken is closed after the reply.
  int take_passed_fd() noexcept;
  const std::string& path() const noexcept { return path_; }

 private:
  ControlServer(std::string path, int listen_fd, int wake_read, int wake_write, Handler handler);
  void serve() noexcept;
  void answer(int client) noexcept;

  std::string path_;
  int listen_fd_;
  int wake_read_;
  int wake_write_;
  Handler handler_;
  std::mutex mutex_;
  std::condition_variable exited_cv_;
  bool exited_ = false;
  bool stopped_ = false;
  bool stopped_from_inside_ = false;
  int passed_fd_ = -1;  ///< only the server thread touches it
  std::thread thread_;
};

}  // namespace gcsnap::shim
