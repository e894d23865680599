#pragma once
// `record --every D`: a heap walk of each recorded process every D seconds, besides the GCs
// the policy walks. A thread of gcsnap's own sends `snapshot\n` to each process's control
// socket (docs/shim.md "On-demand snapshots"), so the command's main loop (signals, waiting,
// the process list) never blocks on a heap walk.

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gcsnap::cli {

class PeriodicSnapshots {
 public:
  /// Start the thread: a snapshot of each target INTERVAL_S seconds from now, then again
  /// INTERVAL_S seconds after each round of snapshots ended; each request may take up to
  /// TIMEOUT_S seconds.
  PeriodicSnapshots(unsigned long long interval_s, int timeout_s);
  ~PeriodicSnapshots();
  PeriodicSnapshots(const PeriodicSnapshots&) = delete;
  PeriodicSnapshots& operator=(const PeriodicSnapshots&) = delete;

  /// Replace the targets: (pid, control socket) of each process to walk.
  void set_targets(std::vector<std::pair<long, std::string>> targets);
  /// Stop the thread (waiting for a snapshot under way) and return how many were taken.
  size_t stop();

 private:
  void run();

  unsigned long long interval_s_;
  int timeout_s_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::pair<long, std::string>> targets_;
  bool stopping_ = false;
  size_t taken_ = 0;
  std::thread thread_;
};

/// Ask PID's shim at CONTROL for a heap walk (taking up to TIMEOUT_S seconds); true when it
/// answered with one. A failure is one warning line on stderr naming WHAT asked (nothing when
/// the process is ending: its socket is gone).
bool request_walk(long pid, const std::string& control, int timeout_s, const char* what);

/// Seconds in "30", "30s", "5m" or "1h" for the option NAME; throws CliError (usage) on
/// anything else or 0.
unsigned long long parse_duration(const std::string& text, const std::string& name);

}  // namespace gcsnap::cli
