// platform/processes.hpp on Linux: /proc, and the sockets in the process's TMPDIR.
#include "platform/processes.hpp"

#include <dirent.h>
#include <glob.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "gcsnap_shim/shim_protocol.hpp"

namespace gcsnap::cli {
namespace {

bool read_whole(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  out = text.str();
  return !in.bad();
}

std::vector<std::string> split_nul(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

/// Fields of /proc/PID/status: Uid and NSpid (the last NSpid entry is its innermost pid).
void read_status(const std::string& dir, ProcessInfo& p) {
  std::ifstream in(dir + "/status");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line.substr(line.find(':') + 1));
    if (line.rfind("Uid:", 0) == 0) {
      unsigned long uid = 0;
      fields >> uid;
      p.uid = uid;
    } else if (line.rfind("NSpid:", 0) == 0) {
      long value = 0, count = 0;
      while (fields >> value) {
        p.ns_pid = value;
        ++count;
      }
      p.same_pid_namespace = count <= 1;
    }
  }
}

/// Field 22 (starttime) of /proc/PID/stat; the command name (field 2) may hold spaces and ')'.
unsigned long long read_start_time(const std::string& dir) {
  std::string stat;
  if (!read_whole(dir + "/stat", stat)) return 0;
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

bool same_namespace(const std::string& dir, const char* kind) {
  struct stat mine{}, theirs{};
  std::string self = std::string("/proc/self/ns/") + kind;
  if (::stat(self.c_str(), &mine) != 0 || ::stat((dir + "/ns/" + kind).c_str(), &theirs) != 0) return true;
  return mine.st_ino == theirs.st_ino && mine.st_dev == theirs.st_dev;
}

void read_environment(const std::string& dir, ProcessInfo& p) {
  std::string environ;
  p.environ_readable = read_whole(dir + "/environ", environ);
  if (!p.environ_readable) return;
  for (const std::string& entry : split_nul(environ)) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (name == "TMPDIR" && !value.empty()) {
      while (value.size() > 1 && value.back() == '/') value.pop_back();
      p.tmpdir = value;
    }
    for (const char* prefix : {"DOTNET_", "COMPlus_"}) {
      for (const char* knob : {"EnableDiagnostics", "EnableDiagnostics_IPC", "EnableDiagnostics_Profiler"}) {
        if (name == std::string(prefix) + knob && value == "0") p.diagnostics_disabled_by = name + "=0";
      }
    }
  }
}

/// "app" for `dotnet app.dll`, else the command's file name.
std::string program_name(const std::vector<std::string>& command) {
  if (command.empty()) return "app";
  auto base = [](const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  std::string name = base(command.front());
  if (name == "dotnet" && command.size() > 1) {
    std::string dll = base(command[1]);
    if (dll.size() > 4 && dll.compare(dll.size() - 4, 4, ".dll") == 0) name = dll.substr(0, dll.size() - 4);
  }
  return name.empty() ? "app" : name;
}

}  // namespace

std::optional<ProcessInfo> read_process_info(long pid) {
  if (pid <= 0) return std::nullopt;
  std::string dir = "/proc/" + std::to_string(pid);
  std::string cmdline;
  if (!read_whole(dir + "/cmdline", cmdline)) return std::nullopt;
  ProcessInfo p;
  p.pid = pid;
  p.ns_pid = pid;
  p.command = split_nul(cmdline);
  p.name = program_name(p.command);
  read_status(dir, p);
  p.start_time = read_start_time(dir);
  if (!same_namespace(dir, "mnt")) p.root = dir + "/root";
  read_environment(dir, p);
  return p;
}

unsigned long long process_start_time(long pid) {
  return pid > 0 ? read_start_time("/proc/" + std::to_string(pid)) : 0;
}

bool is_running(long pid, unsigned long long start_time) {
  std::string stat;
  if (pid <= 0 || !read_whole("/proc/" + std::to_string(pid) + "/stat", stat)) return false;
  size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  char state = stat[close + 2];  // field 3: Z (zombie) and X (dead) have ended
  if (state == 'Z' || state == 'X') return false;
  return start_time == 0 || process_start_time(pid) == start_time;
}

std::vector<long> list_pids() {
  std::vector<long> pids;
  DIR* proc = ::opendir("/proc");
  if (!proc) return pids;
  while (dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (pid > 0 && end && *end == '\0') pids.push_back(pid);
  }
  ::closedir(proc);
  std::sort(pids.begin(), pids.end());
  return pids;
}

namespace {

bool socket_exists(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

}  // namespace

bool has_live_control_channel(const ProcessInfo& p) {
  std::string path = control_endpoint_of(p);
  sockaddr_un address{};
  if (!socket_exists(path) || path.size() >= sizeof(address.sun_path)) return false;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return true;  // cannot tell: believe the file
  // The shim reads a request line; closing at once gives it end of input, no request.
  bool refused = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 && errno == ECONNREFUSED;
  ::close(fd);
  return !refused;
}

std::string find_diagnostics_endpoint(const ProcessInfo& p) {
  std::string dir = p.root + p.tmpdir;
  std::string prefix = dir + "/dotnet-diagnostic-" + std::to_string(p.ns_pid) + "-";
  // The key is the start time; a stale socket of an earlier process with this pid has another.
  std::string exact = prefix + std::to_string(p.start_time) + "-socket";
  if (socket_exists(exact)) return exact;
  glob_t found{};
  std::string newest;
  time_t newest_time = 0;
  if (::glob((prefix + "*-socket").c_str(), 0, nullptr, &found) == 0) {
    for (size_t i = 0; i < found.gl_pathc; ++i) {
      struct stat st{};
      if (::stat(found.gl_pathv[i], &st) == 0 && S_ISSOCK(st.st_mode) && st.st_mtime >= newest_time) {
        newest = found.gl_pathv[i];
        newest_time = st.st_mtime;
      }
    }
  }
  ::globfree(&found);
  return newest;
}

std::string control_endpoint_of(const ProcessInfo& p) {
  return shim::control_socket_path(p.ns_pid, p.root + p.tmpdir);
}

long recorded_child_of(long pid) {
  // Breadth first through the children of every thread: `gcsnap record -- dotnet run` records
  // a grandchild (the app `dotnet run` started), and .NET starts processes from any thread.
  std::vector<long> queue{pid};
  for (size_t next = 0; next < queue.size() && queue.size() < 4096; ++next) {
    std::string tasks_dir = "/proc/" + std::to_string(queue[next]) + "/task";
    DIR* tasks = ::opendir(tasks_dir.c_str());
    if (!tasks) continue;
    while (dirent* task = ::readdir(tasks)) {
      if (task->d_name[0] == '.') continue;
      std::string children;
      if (!read_whole(tasks_dir + "/" + task->d_name + "/children", children)) continue;
      std::istringstream list(children);
      long child = 0;
      while (list >> child) queue.push_back(child);
    }
    ::closedir(tasks);
    if (next == 0) continue;
    auto info = read_process_info(queue[next]);
    if (info && has_live_control_channel(*info)) return queue[next];
  }
  return 0;
}

std::string missing_endpoint_reason(const ProcessInfo& p) {
  return fmt::format("no diagnostics socket dotnet-diagnostic-{}-*-socket in {}{}", p.ns_pid, p.root + p.tmpdir,
                     p.environ_readable ? ""
                                        : fmt::format("; its environment is not readable (/proc/{}/environ), "
                                                      "so its TMPDIR is unknown", p.pid));
}

std::string no_dotnet_process_text() {
  return "no .NET process of yours is running (none with a diagnostics socket)";
}

std::string access_problem(const ProcessInfo& p) {
  // Another user's process hides its environment from us unless we are root. Root (or the
  // same user) may still be refused it: a non-dumpable process, another user namespace's
  // init. Then its TMPDIR is unknown and the diagnostics socket is looked for in /tmp: the
  // error names the real reason (not a .NET process, or no socket there).
  if (p.environ_readable || ::geteuid() == 0 || p.uid == ::geteuid()) return "";
  return fmt::format("belongs to another user (uid {}); run gcsnap as that user or as root", p.uid);
}

bool control_channel_exists(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0;
}

void remove_stale_control_channel(const std::string& path) noexcept {
  struct stat st{};
  if (!path.empty() && ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path.c_str());
}

bool has_shim_loaded(long pid) {
  // After a detach the shim stays mapped (-z nodelete).
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(shim::kShimFileName) != std::string::npos) return true;
  }
  return false;
}

}  // namespace gcsnap::cli
