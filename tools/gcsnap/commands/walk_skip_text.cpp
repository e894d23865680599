#include "commands/walk_skip_text.hpp"

#include <fmt/core.h>

namespace gcsnap::cli {
namespace {

std::string mib(uint64_t bytes) { return fmt::format("{} MiB", (bytes + (1u << 19)) >> 20); }

}  // namespace

const char* walk_skip_key(uint8_t reason) noexcept {
  switch (reason) {
    case walk_skip_reason::kWalkTimeBudget: return "budget";
    case walk_skip_reason::kCgroupHeadroom: return "cgroup_headroom";
    case walk_skip_reason::kMemoryCap: return "memory_cap";
    case walk_skip_reason::kSizeCap: return "size_cap";
    default: return "unknown";
  }
}

std::string walk_skip_cell(const WalkSkip& s) {
  switch (s.reason) {
    case walk_skip_reason::kWalkTimeBudget:
      // The estimate says why: a walk this long did not fit the share of the time since the last.
      if (s.estimated_walk_ns == 0) return "skipped: budget";
      return fmt::format("skipped: budget, est. {} ms", (s.estimated_walk_ns + 500000) / 1000000);
    case walk_skip_reason::kCgroupHeadroom: {
      auto [need, headroom] = walk_skip_bytes(s);
      return fmt::format("skipped: cgroup headroom {} < {}", mib(headroom), mib(need));
    }
    case walk_skip_reason::kMemoryCap: return fmt::format("abandoned: memory cap {}", mib(s.last_walk_ns));
    case walk_skip_reason::kSizeCap: return "skipped: size cap";
    default: return fmt::format("skipped: reason {}", s.reason);
  }
}

std::pair<uint64_t, uint64_t> walk_skip_bytes(const WalkSkip& s) noexcept {
  // §6.15: reason 2 carries usage, limit, need; reason 3 cap, held, objects.
  if (s.reason == walk_skip_reason::kCgroupHeadroom) {
    const uint64_t usage = s.last_walk_ns, limit = s.since_last_walk_ns;
    return {s.estimated_walk_ns, limit > usage ? limit - usage : 0};
  }
  if (s.reason == walk_skip_reason::kMemoryCap) return {s.since_last_walk_ns, s.last_walk_ns};
  return {0, 0};
}

std::vector<std::string> walk_skip_notes(const std::vector<WalkSkip>& skips) {
  uint64_t guard = 0, capped = 0;
  WalkSkip last_guard, last_cap;
  for (const WalkSkip& s : skips) {
    if (s.reason == walk_skip_reason::kCgroupHeadroom) ++guard, last_guard = s;
    if (s.reason == walk_skip_reason::kMemoryCap) ++capped, last_cap = s;
  }
  std::vector<std::string> notes;
  if (guard) {
    auto [need, headroom] = walk_skip_bytes(last_guard);
    notes.push_back(fmt::format(
        "{} heap walk(s) skipped to keep the process inside its memory cgroup: the last had {} of headroom "
        "(limit {}, usage {}) and needed about {} (SNAPSHOT 'skipped: cgroup headroom')",
        guard, mib(headroom), mib(last_guard.since_last_walk_ns), mib(last_guard.last_walk_ns), mib(need)));
  }
  if (capped) {
    notes.push_back(fmt::format(
        "{} heap walk(s) abandoned at the shim's memory cap of {} ({} objects stored when the last stopped; "
        "SNAPSHOT 'abandoned: memory cap'); record with a larger --max-memory to keep them",
        capped, mib(last_cap.last_walk_ns), last_cap.estimated_walk_ns));
  }
  return notes;
}

}  // namespace gcsnap::cli
