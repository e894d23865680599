#include "process/periodic_snapshots.hpp"

#include <chrono>
#include <cstdio>

#include <fmt/core.h>

#include "gcsnap_shim/control_client.hpp"
#include "gcsnap_shim/shim_protocol.hpp"
#include "errors/cli_error.hpp"
#include "platform/processes.hpp"

namespace gcsnap::cli {

unsigned long long parse_duration(const std::string& text, const std::string& name) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::string unit = text.substr(digits);
  if (digits == 0 || digits > 9 || (unit != "" && unit != "s" && unit != "m" && unit != "h")) {
    throw CliError(name + " '" + text + "' is not a duration like 30s, 5m or 1h", kExitUsage);
  }
  const unsigned long long value = std::stoull(text.substr(0, digits));
  const unsigned long long scale = unit == "m" ? 60 : unit == "h" ? 3600 : 1;
  if (value == 0) throw CliError(name + " must be more than 0", kExitUsage);
  return value * scale;
}

bool request_walk(long pid, const std::string& control, int timeout_s, const char* what) {
  const shim::ControlReply reply = shim::send_control_request(control, shim::kRequestSnapshot, timeout_s);
  const bool taken = reply.answered && reply.text.rfind(std::string(shim::kReplyOk) + " ", 0) == 0;
  // A process that is ending removes its control channel first: nothing to say then.
  if (!taken && (reply.answered || control_channel_exists(control))) {
    fmt::print(stderr, "gcsnap: warning: process {}: no {} heap walk: {}\n", pid, what, reply.text);
  }
  std::fflush(stderr);
  return taken;
}

PeriodicSnapshots::PeriodicSnapshots(unsigned long long interval_s, int timeout_s)
    : interval_s_(interval_s), timeout_s_(timeout_s), thread_([this] { run(); }) {}

PeriodicSnapshots::~PeriodicSnapshots() { stop(); }

void PeriodicSnapshots::set_targets(std::vector<std::pair<long, std::string>> targets) {
  std::lock_guard lock(mutex_);
  targets_ = std::move(targets);
}

size_t PeriodicSnapshots::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  return taken_;
}

void PeriodicSnapshots::run() {
  auto next = std::chrono::steady_clock::now() + std::chrono::seconds(interval_s_);
  std::unique_lock lock(mutex_);
  for (;;) {
    if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
    const auto targets = targets_;
    lock.unlock();
    for (const auto& [pid, control] : targets)
      if (request_walk(pid, control, timeout_s_, "periodic")) ++taken_;
    lock.lock();
    // One interval after the walks ended: the app is never walked back to back, however
    // long a walk takes.
    next = std::chrono::steady_clock::now() + std::chrono::seconds(interval_s_);
  }
}

}  // namespace gcsnap::cli
