#include "settings.hpp"

#include <charconv>

#include "gcsnap_shim/shim_protocol.hpp"

namespace gcsnap::shim {
namespace {

std::optional<uint64_t> parse_count(std::string_view text) noexcept {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<SnapshotPolicy> parse_policy(std::string_view text) noexcept {
  if (text.empty() || text == "default") return SnapshotPolicy::Default;
  if (text == "all") return SnapshotPolicy::All;
  if (text == "gen2") return SnapshotPolicy::Gen2;
  if (text == "induced") return SnapshotPolicy::Induced;
  if (text == "none") return SnapshotPolicy::None;
  return std::nullopt;
}

std::string_view policy_name(SnapshotPolicy policy) noexcept {
  switch (policy) {
    case SnapshotPolicy::Default: return "default";
    case SnapshotPolicy::All: return "all";
    case SnapshotPolicy::Gen2: return "gen2";
    case SnapshotPolicy::Induced: return "induced";
    case SnapshotPolicy::None: return "none";
  }
  return "default";
}

SettingsResult parse_settings(const EnvLookup& lookup) {
  SettingsResult result;
  Settings& s = result.settings;
  const char* output = lookup(kEnvOutput);
  if (!output || !*output) {
    result.error = std::string(kEnvOutput) + " is not set";
    return result;
  }
  s.output = output;
  if (const char* policy = lookup(kEnvPolicy)) {
    auto parsed = parse_policy(policy);
    if (!parsed) {
      result.error = std::string(kEnvPolicy) + "='" + policy + "' is not one of default, all, gen2, induced, none";
      return result;
    }
    s.policy = *parsed;
  }
  if (const char* max = lookup(kEnvMaxSnapshots); max && *max) {
    auto parsed = parse_count(max);
    if (!parsed) {
      result.error = std::string(kEnvMaxSnapshots) + "='" + max + "' is not a count";
      return result;
    }
    s.max_snapshots = *parsed;
  }
  if (const char* mb = lookup(kEnvMaxMemoryMb); mb && *mb) {
    auto parsed = parse_count(mb);
    if (!parsed || *parsed == 0 || *parsed > (1ull << 24)) {
      result.error = std::string(kEnvMaxMemoryMb) + "='" + mb + "' is not a size in MB (1..16777216)";
      return result;
    }
    s.max_memory_bytes = *parsed << 20;
  }
  if (const char* control = lookup(kEnvControl); control && std::string_view(control) == "0") {
    s.control_socket = false;
  }
  if (const char* walk_only = lookup(kEnvWalkOnly); walk_only && std::string_view(walk_only) == "1") {
    s.walk_only = true;
  }
  return result;
}

}  // namespace gcsnap::shim
