#pragma once
// The control channel, served by a thread of the shim's own: `gcsnap snapshot PID` connects,
// sends "snapshot\n" and reads one reply line (shim_protocol.hpp, README.md "Control channel").
// Linux: a unix stream socket at $TMPDIR/gcsnap-<pid>.ctl, mode 0600, and only the same user
// (or root) may ask (SO_PEERCRED) (posix/control_server_posix.cpp). Windows: the named pipe
// \\.\pipe\gcsnap-control-<pid>, local clients only; its default security lets only the same
// user, administrators and SYSTEM write (windows/control_server_windows.cpp).
// A request may carry one file (attach: the output file the CLI opened).

#include <condition_variable>
#include <cstdint>
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

  /// Listen at PATH (replacing a stale socket file) and start serving. Returns nullptr and
  /// sets ERROR on failure.
  static std::unique_ptr<ControlServer> start(const std::string& path, Handler handler, std::string& error);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  /// Stop serving and remove the socket file. Waits at most TIMEOUT_MS for a request in
  /// progress (a forced GC) to finish, then leaves the thread behind rather than hang.
  /// Called from inside the handler, it only asks: the thread ends after this reply, and
  /// the object must then outlive it (attached sessions never free theirs).
  void stop(int timeout_ms) noexcept;
  /// From inside the handler: take the file the client sent with this request (a descriptor
  /// on POSIX, a HANDLE on Windows), or -1. One not taken is closed after the reply.
  intptr_t take_passed_file() noexcept;
  const std::string& path() const noexcept { return path_; }

 private:
  struct Endpoint;  ///< the operating system's side: its definition is in the per-OS file

  ControlServer(std::string path, Endpoint* endpoint, Handler handler);
  void serve() noexcept;
  /// The reply line to REQUEST, '\n' included; a failed handler gives an empty string.
  std::string reply_to(const std::string& request) noexcept;

  // Per operating system:
  static Endpoint* open_endpoint(const std::string& path, std::string& error);
  /// Wait for a client and answer it; false once woken by stop().
  bool serve_one() noexcept;
  /// Make serve_one return false; and remove the socket's name.
  void wake() noexcept;
  void close_endpoint() noexcept;

  std::string path_;
  Endpoint* endpoint_;
  Handler handler_;
  std::mutex mutex_;
  std::condition_variable exited_cv_;
  bool exited_ = false;
  bool stopped_ = false;
  bool stopped_from_inside_ = false;
  intptr_t passed_file_ = -1;  ///< only the server thread touches it
  std::thread thread_;
};

}  // namespace gcsnap::shim
