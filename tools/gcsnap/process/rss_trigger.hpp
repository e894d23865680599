#pragma once
// `record --on-rss SIZE`: a heap walk of a recorded process when its resident size first
// reaches SIZE, and again each time it has grown by SIZE more (2 SIZE, 3 SIZE ...), so that a
// leak that runs overnight leaves a series of walks and a quiet process costs one read of
// /proc/PID/statm per poll (GetProcessMemoryInfo on Windows: platform/process_memory.hpp). Like --every, a thread of gcsnap's own asks the process's control
// socket for the walk (docs/cli.md "Unattended recording").

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gcsnap::cli {

class RssTrigger {
 public:
  /// Start the thread: every POLL_MS, each target's resident size is read; a walk is asked for
  /// (taking up to TIMEOUT_S seconds) when it reaches the next multiple of STEP_BYTES. At most
  /// MAX_WALKS walks in all (negative: no cap).
  RssTrigger(uint64_t step_bytes, long long max_walks, int poll_ms, int timeout_s);
  ~RssTrigger();
  RssTrigger(const RssTrigger&) = delete;
  RssTrigger& operator=(const RssTrigger&) = delete;

  /// Replace the targets: (pid, control socket) of each process to watch.
  void set_targets(std::vector<std::pair<long, std::string>> targets);
  /// Stop the thread (waiting for a walk under way) and return how many walks were taken.
  size_t stop();

  /// The threshold after RSS_BYTES reached one: the next multiple of STEP above it.
  static uint64_t next_threshold(uint64_t rss_bytes, uint64_t step) noexcept;

 private:
  void run();

  uint64_t step_;
  long long max_walks_;
  int poll_ms_, timeout_s_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::pair<long, std::string>> targets_;
  std::map<long, uint64_t> thresholds_;  ///< per pid, the resident size of its next walk
  bool stopping_ = false;
  size_t taken_ = 0;
  std::thread thread_;
};

/// Bytes in "512M", "2G", "1.5GiB", "300MB", "1048576" for the option NAME (binary units K, M,
/// G, T; a B or iB after the unit is allowed); throws CliError (usage) on anything else or 0.
uint64_t parse_size(const std::string& text, const std::string& name);

}  // namespace gcsnap::cli
