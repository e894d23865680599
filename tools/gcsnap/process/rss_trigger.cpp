#include "process/rss_trigger.hpp"

#include <chrono>
#include <cstdio>

#include <fmt/core.h>

#include "errors/cli_error.hpp"
#include "platform/process_memory.hpp"
#include "process/periodic_snapshots.hpp"

namespace gcsnap::cli {

RssTrigger::RssTrigger(uint64_t step_bytes, long long max_walks, int poll_ms, int timeout_s)
    : step_(step_bytes), max_walks_(max_walks), poll_ms_(poll_ms), timeout_s_(timeout_s), thread_([this] { run(); }) {}

RssTrigger::~RssTrigger() { stop(); }

void RssTrigger::set_targets(std::vector<std::pair<long, std::string>> targets) {
  std::lock_guard lock(mutex_);
  targets_ = std::move(targets);
}

size_t RssTrigger::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  return taken_;
}

void RssTrigger::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (wake_.wait_for(lock, std::chrono::milliseconds(poll_ms_), [this] { return stopping_; })) return;
    if (max_walks_ >= 0 && taken_ >= static_cast<size_t>(max_walks_)) continue;
    const auto targets = targets_;
    for (const auto& [pid, control] : targets) {
      uint64_t& threshold = thresholds_.try_emplace(pid, step_).first->second;
      const uint64_t rss = resident_bytes(pid);
      if (rss == 0 || rss < threshold) continue;
      lock.unlock();
      const std::string why = fmt::format("resident {} MiB reached {} MiB", rss >> 20, threshold >> 20);
      const bool taken = request_walk(pid, control, timeout_s_, "--on-rss");
      lock.lock();
      // The next walk when it has grown by one more step, wherever this one stood.
      threshold = next_threshold(rss, step_);
      if (taken) {
        ++taken_;
        fmt::print(stderr, "gcsnap: process {}: heap walk ({})\n", pid, why);
        std::fflush(stderr);
      }
      if (max_walks_ >= 0 && taken_ >= static_cast<size_t>(max_walks_)) break;
    }
  }
}

}  // namespace gcsnap::cli
