#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "platform/diagnostics_transport.hpp"

namespace gcsnap::cli {
namespace {

/// Wait for FD to be ready for EVENTS until DEADLINE; false on timeout.
bool wait_ready(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

}  // namespace

DiagnosticsChannel::DiagnosticsChannel(const std::string& socket_path, int timeout_s) : timeout_s_(timeout_s) {
  sockaddr_un address{};
  if (socket_path.size() >= sizeof(address.sun_path)) {
    throw CliError("diagnostics socket path too long: " + socket_path, kExitProblems);
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw CliError(std::string("cannot create a socket: ") + std::strerror(errno), kExitProblems);
  handle_ = fd;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EACCES || err == EPERM) {
      throw CliError("no permission to connect to " + socket_path + " (the process belongs to another user; "
                     "run gcsnap as that user or as root)", kExitProblems);
    }
    throw CliError(fmt::format("cannot connect to the runtime's diagnostics socket {}: {} (is the process "
                               "still running?)", socket_path, std::strerror(err)), kExitProblems);
  }
  deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
}

DiagnosticsChannel::~DiagnosticsChannel() { ::close(static_cast<int>(handle_)); }

void DiagnosticsChannel::send(std::string_view message) {
  const int fd = static_cast<int>(handle_);
  size_t sent = 0;
  while (sent < message.size()) {
    if (!wait_ready(fd, POLLOUT, deadline_)) throw CliError("the runtime did not take the request", kExitProblems);
    ssize_t n = ::send(fd, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw CliError(std::string("sending the request failed: ") + std::strerror(errno), kExitProblems);
    sent += static_cast<size_t>(n);
  }
}

size_t DiagnosticsChannel::receive(char* data, size_t size) {
  const int fd = static_cast<int>(handle_);
  for (;;) {
    if (!wait_ready(fd, POLLIN, deadline_)) {
      throw CliError(fmt::format("the runtime did not answer within {} s", timeout_s_), kExitProblems);
    }
    ssize_t n = ::recv(fd, data, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw CliError("the runtime closed the diagnostics connection without an answer", kExitProblems);
    return static_cast<size_t>(n);
  }
}

}  // namespace gcsnap::cli
