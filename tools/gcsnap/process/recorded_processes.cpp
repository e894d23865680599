#include "process/recorded_processes.hpp"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "output/cli_error.hpp"
#include "gcsnap/finish_recording.hpp"
#include "output/output.hpp"
#include "process/process_info.hpp"
#include "commands/summary_line.hpp"

namespace gcsnap::cli {
namespace {

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// How PID left its file unfinished: "was killed by SIGKILL before finishing its file",
/// "exited with code 0 but left its file unfinished" (its writer had failed, e.g. a full
/// disk), or "ended before finishing its file" when gcsnap did not reap it.
std::string how_it_ended(long pid, const std::map<long, int>& statuses) {
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

}  // namespace

RecordedProcesses::RecordedProcesses() {
  std::string pattern = shim::control_socket_dir() + "/gcsnap-record-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data())) {
    throw CliError(fmt::format("cannot create a directory like {}: {}", pattern, std::strerror(errno)), kExitNotRecorded);
  }
  dir_ = buffer.data();
}

RecordedProcesses::~RecordedProcesses() { remove_directory(); }

void RecordedProcesses::remove_directory() noexcept {
  if (dir_.empty()) return;
  if (DIR* d = ::opendir(dir_.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") ::unlink((dir_ + "/" + name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir_.c_str());
  dir_.clear();
}

void RecordedProcesses::poll() {
  DIR* d = ::opendir(dir_.c_str());
  if (!d) return;
  std::vector<std::string> fresh;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (ends_with(name, shim::kReportSuffix)) fresh.push_back(name);
  }
  ::closedir(d);
  std::sort(fresh.begin(), fresh.end());
  for (const std::string& name : fresh) {
    long pid = std::strtol(name.c_str(), nullptr, 10);
    if (pid <= 0 || seen_.count(pid)) continue;
    std::ifstream in(dir_ + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    Entry entry;
    if (!shim::parse_process_report(text.str(), entry.report) || entry.report.pid != pid) continue;
    seen_.insert(pid);
    entry.start_time = process_start_time(pid);
    if (entry.report.state == shim::kStateRecording) {
      fmt::print(stderr, "gcsnap: recording process {} ({}) into {}\n", pid, entry.report.name, entry.report.output);
      std::fflush(stderr);
    }
    entries_.push_back(std::move(entry));
  }
}

std::vector<long> RecordedProcesses::running() const {
  std::vector<long> pids;
  for (const Entry& e : entries_) {
    if (e.report.state == shim::kStateRecording && e.start_time != 0 && is_running(e.report.pid, e.start_time)) {
      pids.push_back(e.report.pid);
    }
  }
  return pids;
}

std::vector<std::pair<long, std::string>> RecordedProcesses::running_controls() const {
  std::vector<std::pair<long, std::string>> out;
  for (const Entry& e : entries_) {
    if (e.report.state == shim::kStateRecording && !e.report.control.empty() && e.start_time != 0 &&
        is_running(e.report.pid, e.start_time)) {
      out.emplace_back(e.report.pid, e.report.control);
    }
  }
  return out;
}

size_t RecordedProcesses::recorded_count() const noexcept {
  return static_cast<size_t>(std::count_if(entries_.begin(), entries_.end(), [](const Entry& e) {
    return e.report.state == shim::kStateRecording;
  }));
}

size_t RecordedProcesses::sdk_count() const noexcept {
  return static_cast<size_t>(
      std::count_if(entries_.begin(), entries_.end(), [](const Entry& e) { return e.report.state == shim::kStateSdk; }));
}

void RecordedProcesses::finish(const std::map<long, int>& statuses) {
  for (const Entry& entry : entries_) {
    const shim::ProcessReport& r = entry.report;
    if (r.state == shim::kStateExists) {
      fmt::print(stderr, "gcsnap: process {} ({}) was not recorded: {} exists already (with {{pid}} in -o every "
                 "process gets a file of its own)\n", r.pid, r.name, r.output);
    } else if (r.state == shim::kStateRecording) {
      finish_one(entry, statuses);
    }
  }
  std::fflush(stderr);
}

void RecordedProcesses::finish_one(const Entry& entry, const std::map<long, int>& statuses) const {
  const shim::ProcessReport& r = entry.report;
  std::string label = fmt::format("process {} ({})", r.pid, r.name);
  if (entry.start_time != 0 && is_running(r.pid, entry.start_time)) {
    fmt::print(stderr, "gcsnap: warning: {} still runs; {} is not finished yet\n", label, r.output);
    return;
  }
  // A process that died by a signal left its control socket behind: `gcsnap ps` and
  // `gcsnap snapshot` would take it for a live recording.
  struct stat st{};
  if (!r.control.empty() && ::lstat(r.control.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(r.control.c_str());
  auto finished = finish_recording(r.output);
  if (!finished) {
    fmt::print(stderr, "gcsnap: error: {}\n", describe_error(r.output, finished.error()));
    return;
  }
  if (finished->found != FileEnd::Complete) {
    std::string dropped = finished->bytes_dropped
                              ? fmt::format("; {} of an unfinished GC dropped", format_bytes(finished->bytes_dropped))
                              : std::string();
    fmt::print(stderr, "gcsnap: {} {}: gcsnap wrote the index of its {} complete GCs{}\n",
               label, how_it_ended(r.pid, statuses), finished->gcs, dropped);
  }
  if (print_summary(r.output, label, build_indexes_) == 0) print_no_walk_hint(r.output, policy_, r.pid);
}

}  // namespace gcsnap::cli
