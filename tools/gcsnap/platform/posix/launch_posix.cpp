// platform/launch.hpp on Linux: fork and exec, signals forwarded, gcsnap the subreaper.
#include "platform/launch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "gcsnap_shim/shim_protocol.hpp"

namespace gcsnap::cli {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
/// How long, after the command ended, gcsnap waits for a process the command left running to
/// report (its runtime loads the shim some 50-100 ms after it starts, more on a loaded machine).
constexpr std::chrono::milliseconds kReportGrace{5000};
/// Signals someone sent to gcsnap, one bit each, for the wait loop to forward.
std::atomic<unsigned> g_pending{0};

void note_signal(int sig, siginfo_t* info, void*) {
  // A signal the terminal sent (Ctrl+C) already reached the app in the same process group:
  // forwarding it would deliver it twice. Forward only what someone sent to gcsnap.
  if (info && info->si_code == SI_KERNEL) return;
  g_pending.fetch_or(1u << sig);
}

void note_child(int) {}  // SIGCHLD only cuts the wait loop's sleep short

bool is_file(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string directory_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string self_directory() {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return ".";
  return directory_of(std::string(buffer, static_cast<size_t>(n)));
}

[[noreturn]] void exec_child(const LaunchRequest& request, int error_pipe) {
  for (const auto& [name, value] : request.environment) ::setenv(name.c_str(), value.c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& arg : request.command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  int err = errno;
  (void)!::write(error_pipe, &err, sizeof(err));
  ::_exit(127);
}

}  // namespace

std::string find_shim() {
  std::string name(gcsnap::shim::kShimFileName);
  if (const char* explicit_path = std::getenv("GCSNAP_SHIM"); explicit_path && *explicit_path) {
    if (is_file(explicit_path)) return explicit_path;
    throw CliError(std::string("shim not found: GCSNAP_SHIM=") + explicit_path + " is not a file", kExitNotRecorded);
  }
  std::string here = self_directory();
  std::string candidates[] = {
      here + "/" + name,
      here + "/../" GCSNAP_INSTALL_LIBDIR "/gcsnap/" + name,
      here + "/../lib/gcsnap/" + name,
  };
  for (const std::string& candidate : candidates) {
    char resolved[PATH_MAX];
    if (is_file(candidate) && ::realpath(candidate.c_str(), resolved)) return resolved;
  }
  throw CliError("shim not found: no " + name + " next to " + here + " nor in ../" GCSNAP_INSTALL_LIBDIR
                 "/gcsnap (set GCSNAP_SHIM=/path/to/" + name + ")",
                 kExitNotRecorded);
}

namespace {

/// Send the signals noted since the last call to the command (while it runs) and to OTHERS.
void forward_pending(pid_t child, bool child_running, const std::vector<long>& others) {
  unsigned pending = g_pending.exchange(0);
  for (int sig : kForwarded) {
    if (!(pending & (1u << sig))) continue;
    if (child_running) ::kill(child, sig);
    for (long pid : others) {
      if (pid != child) ::kill(static_cast<pid_t>(pid), sig);
    }
  }
}

/// Reap every process that ends until the command has ended and ALSO_WAIT_FOR names none,
/// forwarding the signals gcsnap receives; then, while processes the command left behind run
/// (gcsnap is their subreaper), give them kReportGrace to report as recorded processes.
void wait_for_processes(const LaunchRequest& request, LaunchResult& result) {
  bool child_running = true;
  bool told_waiting = false;
  std::optional<std::chrono::steady_clock::time_point> ended_at;  // when the command ended
  for (;;) {
    int status = 0;
    pid_t reaped;
    while ((reaped = ::waitpid(-1, &status, WNOHANG)) > 0) {
      result.statuses[reaped] = status;
      if (reaped == result.pid) child_running = false;
    }
    // 0: children left (processes the command left running, handed to gcsnap as subreaper).
    const bool descendants_left = reaped == 0;
    if (request.poll) request.poll();
    std::vector<long> others = request.also_wait_for ? request.also_wait_for() : std::vector<long>{};
    forward_pending(static_cast<pid_t>(result.pid), child_running, others);
    if (!child_running) {
      if (others.empty()) {
        // A launcher (`sh -c 'app &'`) may end before its app's runtime has loaded the shim
        // and reported: while processes it left run, give them a moment to report.
        const auto now = std::chrono::steady_clock::now();
        if (!ended_at) ended_at = now;
        if (!descendants_left || now - *ended_at >= kReportGrace) break;
      } else {
        if (!told_waiting && request.on_waiting) request.on_waiting(others);
        told_waiting = true;
      }
    }
    timespec nap{0, 50 * 1000 * 1000};
    ::nanosleep(&nap, nullptr);  // SIGCHLD ends it early
  }
}

}  // namespace

LaunchResult run_command(const LaunchRequest& request) {
  int error_pipe[2];
  if (::pipe2(error_pipe, O_CLOEXEC) != 0) throw CliError("cannot create a pipe", kExitNotRecorded);
  struct sigaction action{};
  action.sa_sigaction = note_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int sig : kForwarded) ::sigaction(sig, &action, nullptr);
  struct sigaction child_action{};
  child_action.sa_handler = note_child;
  sigemptyset(&child_action.sa_mask);
  ::sigaction(SIGCHLD, &child_action, nullptr);
  // An app whose parent ends first (`dotnet run` killed) is handed to gcsnap, not to init, so
  // gcsnap can wait for it and learn how it ended.
  (void)::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

  pid_t pid = ::fork();
  if (pid < 0) throw CliError(std::string("cannot start the command: ") + std::strerror(errno), kExitNotRecorded);
  if (pid == 0) {
    ::close(error_pipe[0]);
    exec_child(request, error_pipe[1]);
  }
  ::close(error_pipe[1]);
  int exec_errno = 0;
  ssize_t got;
  do {
    got = ::read(error_pipe[0], &exec_errno, sizeof(exec_errno));
  } while (got < 0 && errno == EINTR);
  ::close(error_pipe[0]);

  LaunchResult result;
  result.pid = pid;
  wait_for_processes(request, result);
  if (got == static_cast<ssize_t>(sizeof(exec_errno))) {
    const std::string& cmd = request.command.front();
    if (exec_errno == ENOENT) throw CliError("command not found: " + cmd, 127);
    throw CliError("cannot run " + cmd + ": " + std::strerror(exec_errno), exec_errno == EACCES ? 126 : 127);
  }
  int status = result.statuses[pid];
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  else result.exit_code = 1;
  return result;
}

std::string describe_end(long pid, const std::map<long, int>& statuses) {
  auto found = statuses.find(pid);
  if (found == statuses.end()) return "ended before finishing its file";
  int status = found->second;
  if (WIFSIGNALED(status)) {
    const char* abbrev = ::sigabbrev_np(WTERMSIG(status));
    return (abbrev ? fmt::format("was killed by SIG{}", abbrev) : fmt::format("was killed by signal {}", WTERMSIG(status))) +
           " before finishing its file";
  }
  if (WIFEXITED(status)) return fmt::format("exited with code {} but left its file unfinished", WEXITSTATUS(status));
  return "ended before finishing its file";
}

bool has_dotnet_framework() noexcept { return false; }

}  // namespace gcsnap::cli
