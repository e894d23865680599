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

/// Apply one "key=value" line of attach client data to S; return an error text or "".
std::string apply_attach_line(std::string_view key, std::string_view value, Settings& s) {
  auto bad = [&] { return "attach data: bad " + std::string(key) + " '" + std::string(value) + "'"; };
  if (key == "mode") {
    if (value == "snapshot") s.mode = AttachMode::Snapshot;
    else if (value == "record") s.mode = AttachMode::Record;
    else return bad();
  } else if (key == "policy") {
    auto parsed = parse_policy(value);
    if (!parsed) return bad();
    s.policy = *parsed;
  } else if (key == "source") {
    auto parsed = parse_source(value);
    if (!parsed) return bad();
    s.source = *parsed;
  } else if (key == "alloc_sites") {
    if (value != "0" && value != "1") return bad();
    s.alloc_sites = value == "1";
  } else if (key == "alloc_cap") {
    auto parsed = parse_count(value);
    if (!parsed || *parsed > UINT32_MAX) return bad();
    s.alloc_cap = static_cast<uint32_t>(*parsed);
  } else if (key == "on_heap_growth") {
    auto parsed = parse_count(value);
    if (!parsed || *parsed == 0) return bad();
    s.heap_growth_bytes = *parsed;
  } else if (key == "capture_strings") {
    auto parsed = parse_count(value);
    if (!parsed || *parsed > kMaxCaptureChars) return bad();
    s.capture_strings = static_cast<uint32_t>(*parsed);
  } else if (key == "owner_pid" || key == "deadline_s" || key == "max_snapshots" || key == "max_memory_mb" ||
             key == "max_size") {
    auto parsed = parse_count(value);
    if (!parsed) return bad();
    if (key == "owner_pid") {
      if (*parsed > 0x7fffffffu) return bad();
      s.owner_pid = static_cast<long>(*parsed);
    } else if (key == "deadline_s") {
      s.deadline_s = *parsed;
    } else if (key == "max_snapshots") {
      s.max_snapshots = *parsed;
    } else if (key == "max_size") {
      s.max_file_bytes = *parsed;
    } else {
      if (*parsed == 0 || *parsed > (1ull << 24)) return bad();
      s.max_memory_bytes = *parsed << 20;
    }
  }
  return {};  // unknown keys are ignored: a newer CLI may send more
}

}  // namespace

SettingsResult parse_attach_settings(std::string_view data) {
  SettingsResult result;
  Settings& s = result.settings;
  s.policy = SnapshotPolicy::None;
  if (data.size() > 4096) {
    result.error = "attach data: longer than 4096 bytes";
    return result;
  }
  size_t line_end = data.find('\n');
  if (data.substr(0, line_end) != kAttachDataHeader) {
    result.error = "attach data: not '" + std::string(kAttachDataHeader) + "' (another gcsnap version?)";
    return result;
  }
  while (line_end != std::string_view::npos) {
    data.remove_prefix(line_end + 1);
    line_end = data.find('\n');
    std::string_view line = data.substr(0, line_end);
    if (line.empty()) continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      result.error = "attach data: no '=' in '" + std::string(line) + "'";
      return result;
    }
    result.error = apply_attach_line(line.substr(0, eq), line.substr(eq + 1), s);
    if (!result.error.empty()) return result;
  }
  if (s.mode == AttachMode::Startup) result.error = "attach data: no mode";
  return result;
}

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

std::optional<RecordSource> parse_source(std::string_view text) noexcept {
  if (text == "profiler") return RecordSource::Profiler;
  if (text == "events") return RecordSource::Events;
  return std::nullopt;
}

namespace {

// NAME's value as a count from LOW to HIGH into OUT when it is set and not empty (else OUT
// stays). False, with ERROR naming the variable, its value and WHAT it should be, otherwise.
bool read_count(const EnvLookup& lookup, const char* name, uint64_t low, uint64_t high, std::string_view what,
                uint64_t& out, std::string& error) {
  const char* text = lookup(name);
  if (!text || !*text) return true;
  auto parsed = parse_count(text);
  if (!parsed || *parsed < low || *parsed > high) {
    error = std::string(name) + "='" + text + "' is not " + std::string(what);
    return false;
  }
  out = *parsed;
  return true;
}

// Whether NAME is set to VALUE (a switch: "0" turns a default off, "1" turns one on).
bool is_set_to(const EnvLookup& lookup, const char* name, std::string_view value) {
  const char* text = lookup(name);
  return text && std::string_view(text) == value;
}

// The policy, the snapshot count and the size limits; false with ERROR set at the first bad one.
bool read_limits(const EnvLookup& lookup, Settings& s, std::string& error) {
  if (const char* policy = lookup(kEnvPolicy)) {
    auto parsed = parse_policy(policy);
    if (!parsed) {
      error = std::string(kEnvPolicy) + "='" + policy + "' is not one of default, all, gen2, induced, none";
      return false;
    }
    s.policy = *parsed;
  }
  if (!read_count(lookup, kEnvMaxSnapshots, 0, UINT64_MAX, "a count", s.max_snapshots, error)) return false;
  uint64_t mb = s.max_memory_bytes >> 20;
  if (!read_count(lookup, kEnvMaxMemoryMb, 1, 1ull << 24, "a size in MB (1..16777216)", mb, error)) return false;
  s.max_memory_bytes = mb << 20;
  if (!read_count(lookup, kEnvOnHeapGrowth, 1, UINT64_MAX, "a size in bytes (1 or more)", s.heap_growth_bytes, error))
    return false;
  return read_count(lookup, kEnvMaxSize, 1, UINT64_MAX, "a size in bytes", s.max_file_bytes, error);
}

// What is recorded beyond the walk: strings, diagnostics, allocation samples, the source; false
// with ERROR set at the first bad value.
bool read_contents(const EnvLookup& lookup, Settings& s, std::string& error) {
  uint64_t chars = s.capture_strings;
  const std::string chars_text = "a count of characters (0 to " + std::to_string(kMaxCaptureChars) + ")";
  if (!read_count(lookup, kEnvCaptureStrings, 0, kMaxCaptureChars, chars_text, chars, error)) return false;
  s.capture_strings = static_cast<uint32_t>(chars);
  if (is_set_to(lookup, kEnvDiagnostics, "1")) s.diagnostics = true;
  if (is_set_to(lookup, kEnvGcReasonEvents, "0")) s.gc_reason_events = false;
  if (is_set_to(lookup, kEnvAllocSites, "0")) s.alloc_sites = false;
  uint64_t cap = s.alloc_cap;
  if (!read_count(lookup, kEnvAllocCap, 0, UINT32_MAX, "a count of samples per second", cap, error)) return false;
  s.alloc_cap = static_cast<uint32_t>(cap);
  if (is_set_to(lookup, kEnvRecordSdk, "1")) s.record_sdk = true;
  if (const char* dir = lookup(kEnvRecordDir); dir && *dir) s.record_dir = dir;
  if (const char* source = lookup(kEnvSource); source && *source) {
    auto parsed = parse_source(source);
    if (!parsed) {
      error = std::string(kEnvSource) + "='" + source + "' is not one of events, profiler";
      return false;
    }
    s.source = *parsed;
  }
  return true;
}

}  // namespace

SettingsResult parse_settings(const EnvLookup& lookup) {
  SettingsResult result;
  Settings& s = result.settings;
  const char* output = lookup(kEnvOutput);
  if (!output || !*output) {
    result.error = std::string(kEnvOutput) + " is not set";
    return result;
  }
  s.output = output;
  if (!read_limits(lookup, s, result.error)) return result;
  if (is_set_to(lookup, kEnvControl, "0")) s.control_socket = false;
  if (is_set_to(lookup, kEnvWalkOnly, "1")) s.walk_only = true;
  if (is_set_to(lookup, kEnvWalkTimes, "1")) s.walk_times = true;
  if (is_set_to(lookup, "GCSNAP_FIELDS", "0")) s.field_names = false;
  if (!read_contents(lookup, s, result.error)) return result;
  if (is_set_to(lookup, kEnvVerifySizes, "1")) s.verify_sizes = true;
  return result;
}

}  // namespace gcsnap::shim
