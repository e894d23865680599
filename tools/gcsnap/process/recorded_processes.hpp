#pragma once
// What `gcsnap record -- COMMAND` knows of the .NET processes the command starts: the shim
// in each of them leaves a report (shim_protocol.hpp ProcessReport) in a private directory
// (GCSNAP_RECORD_DIR); this reads the reports, tells which recorded processes still run,
// and, once they have all ended, finishes what a killed one left: its stale control socket
// goes, its file gets its index (gcsnap::finish_recording), and each file gets its summary
// (the caller's: the summary line is the commands' business, not the process layer's).

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gcsnap_shim/shim_protocol.hpp"

namespace gcsnap::cli {

class RecordedProcesses {
 public:
  /// Create the report directory, $TMPDIR/gcsnap-record-XXXXXX. Throws CliError.
  RecordedProcesses();
  ~RecordedProcesses();
  RecordedProcesses(const RecordedProcesses&) = delete;
  RecordedProcesses& operator=(const RecordedProcesses&) = delete;

  const std::string& directory() const noexcept { return dir_; }
  /// Read the reports that arrived; print "gcsnap: recording process PID (NAME) into FILE"
  /// on stderr for each process that records.
  void poll();
  /// The recorded processes that still run.
  std::vector<long> running() const;
  /// The recorded processes that still run, with their control sockets (record --every).
  std::vector<std::pair<long, std::string>> running_controls() const;
  size_t recorded_count() const noexcept;
  /// How many processes of the .NET SDK the shim declined (dotnet run's own, MSBuild ...).
  size_t sdk_count() const noexcept;
  /// Once the processes have ended: for each recorded one remove its control socket if it is
  /// still there, finish its file if it has no index (saying so), and print its summary line;
  /// for each one not recorded because its file existed, say so. STATUSES: LaunchResult::statuses,
  /// how the processes gcsnap saw end ended (platform/launch.hpp describe_end).
  void finish(const std::map<long, int>& statuses);
  /// How finish() sums up a finished file: called with its path, "process PID (NAME)" and the
  /// pid (cmd_record prints the summary line).
  using Summarize = std::function<void(const std::string& path, const std::string& label, long pid)>;
  void set_summarize(Summarize summarize) { summarize_ = std::move(summarize); }
  /// Remove the report directory (also done by the destructor; call it before std::exit).
  void remove_directory() noexcept;

 private:
  struct Entry {
    shim::ProcessReport report;
    unsigned long long start_time = 0;  ///< tells the process from a later one with its pid
  };
  void finish_one(const Entry& entry, const std::map<long, int>& statuses) const;

  std::string dir_;
  std::vector<Entry> entries_;  ///< in the order the reports were read
  Summarize summarize_;
  std::set<long> seen_;
};

}  // namespace gcsnap::cli
