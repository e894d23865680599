#include "process/recorded_processes.hpp"

// The same on every system: the report folder is read with std::filesystem, and what differs
// (the private folder, whether a pid still runs, how a process ended, a stale control socket)
// is the platform's.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "errors/cli_error.hpp"
#include "gcsnap/finish_recording.hpp"
#include "output/output.hpp"
#include "platform/files.hpp"
#include "platform/launch.hpp"
#include "platform/processes.hpp"

namespace gcsnap::cli {
namespace {

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

RecordedProcesses::RecordedProcesses() : dir_(make_private_directory("gcsnap-record-")) {}

RecordedProcesses::~RecordedProcesses() { remove_directory(); }

void RecordedProcesses::remove_directory() noexcept {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_of(dir_), ec);
  dir_.clear();
}

void RecordedProcesses::poll() {
  std::vector<std::string> fresh;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(path_of(dir_), ec)) {
    std::string name = utf8(e.path().filename());
    if (ends_with(name, shim::kReportSuffix)) fresh.push_back(name);
  }
  std::sort(fresh.begin(), fresh.end());
  for (const std::string& name : fresh) {
    long pid = std::strtol(name.c_str(), nullptr, 10);
    if (pid <= 0 || seen_.count(pid)) continue;
    std::ifstream in(path_of(dir_) / path_of(name), std::ios::binary);
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
  remove_stale_control_channel(r.control);
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
               label, describe_end(r.pid, statuses), finished->gcs, dropped);
  }
  if (summarize_) summarize_(r.output, label, r.pid);
}

}  // namespace gcsnap::cli
