// gcsnap snapshot PID: ask a process recorded by gcsnap to take a heap snapshot now, through
// the shim's control socket (docs/shim.md "On-demand snapshots").
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "gcsnap_shim/shim_protocol.hpp"

namespace gcsnap::cli {
namespace {

struct SnapshotOptions {
  long pid = 0;
  int timeout_s = 300;
};

void run_snapshot(const SnapshotOptions& options) {
  if (options.pid <= 0) throw CliError("snapshot: PID must be a positive process id", kExitUsage);
  if (::kill(static_cast<pid_t>(options.pid), 0) != 0 && errno == ESRCH) {
    throw CliError(fmt::format("no process {}", options.pid), kExitProblems);
  }
  std::string path = shim::control_socket_path(options.pid);
  sockaddr_un address{};
  if (path.size() >= sizeof(address.sun_path)) throw CliError("control socket path too long: " + path, kExitUsage);
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw CliError(std::string("cannot create a socket: ") + std::strerror(errno), kExitProblems);
  std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { ::close(*f); });
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    throw CliError(fmt::format("no gcsnap shim is running in process {} (no control socket at {}: {}); "
                               "start the app with 'gcsnap record'",
                               options.pid, path, std::strerror(errno)),
                   kExitProblems);
  }
  timeval timeout{options.timeout_s, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::string_view request = shim::kRequestSnapshot;
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    throw CliError(fmt::format("process {} closed the control socket", options.pid), kExitProblems);
  }
  std::string reply;
  char buffer[256];
  while (reply.find('\n') == std::string::npos) {
    ssize_t got = ::recv(fd, buffer, sizeof(buffer), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      throw CliError(fmt::format("process {} did not answer within {} s", options.pid, options.timeout_s),
                     kExitProblems);
    }
    if (got <= 0) break;
    reply.append(buffer, static_cast<size_t>(got));
  }
  if (reply.find('\n') != std::string::npos) reply.resize(reply.find('\n'));
  if (reply.rfind(std::string(shim::kReplyOk) + " ", 0) == 0) {
    fmt::print("snapshot taken in process {}: GC #{}\n", options.pid, reply.substr(shim::kReplyOk.size() + 1));
    return;
  }
  if (reply.rfind(std::string(shim::kReplyError) + " ", 0) == 0) {
    throw CliError(fmt::format("process {}: {}", options.pid, reply.substr(shim::kReplyError.size() + 1)),
                   kExitProblems);
  }
  throw CliError(fmt::format("process {} gave no answer (it may be exiting)", options.pid), kExitProblems);
}

}  // namespace

void add_snapshot_command(CLI::App& app) {
  auto options = std::make_shared<SnapshotOptions>();
  auto* cmd = app.add_subcommand("snapshot", "Make a process running under 'gcsnap record' take a heap snapshot now");
  cmd->add_option("pid", options->pid, "Process id of the recorded app")->required();
  cmd->add_option("--timeout", options->timeout_s, "Seconds to wait for the snapshot GC (default 300)")
      ->check(CLI::PositiveNumber);
  cmd->callback([options] { run_snapshot(*options); });
}

}  // namespace gcsnap::cli
