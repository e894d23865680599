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
  if (const char* growth = lookup(kEnvOnHeapGrowth); growth && *growth) {
    auto parsed = parse_count(growth);
    if (!parsed || *parsed == 0) {
      result.error = std::string(kEnvOnHeapGrowth) + "='" + growth + "' is not a size in bytes (1 or more)";
      return result;
    }
    s.heap_growth_bytes = *parsed;
  }
  if (const char* size = lookup(kEnvMaxSize); size && *size) {
    auto parsed = parse_count(size);
    if (!parsed || *parsed == 0) {
      result.error = std::string(kEnvMaxSize) + "='" + size + "' is not a size in bytes";
      return result;
    }
    s.max_file_bytes = *parsed;
  }
  if (const char* control = lookup(kEnvControl); control && std::string_view(control) == "0") {
    s.control_socket = false;
  }
  if (const char* walk_only = lookup(kEnvWalkOnly); walk_only && std::string_view(walk_only) == "1") {
    s.walk_only = true;
  }
  if (const char* times = lookup(kEnvWalkTimes); times && std::string_view(times) == "1") s.walk_times = true;
  if (const char* fields = lookup("GCSNAP_FIELDS"); fields && std::string_view(fields) == "0") {
    s.field_names = false;
  }
  if (const char* capture = lookup(kEnvCaptureStrings); capture && *capture) {
    auto parsed = parse_count(capture);
    if (!parsed || *parsed > kMaxCaptureChars) {
      result.error = std::string(kEnvCaptureStrings) + "='" + capture + "' is not a count of characters (0 to " +
                     std::to_string(kMaxCaptureChars) + ")";
      return result;
    }
    s.capture_strings = static_cast<uint32_t>(*parsed);
  }
  if (const char* diag = lookup(kEnvDiagnostics); diag && std::string_view(diag) == "1") s.diagnostics = true;
  if (const char* events = lookup(kEnvGcReasonEvents); events && std::string_view(events) == "0") {
    s.gc_reason_events = false;
  }
  if (const char* sites = lookup(kEnvAllocSites); sites && std::string_view(sites) == "0") s.alloc_sites = false;
  if (const char* cap = lookup(kEnvAllocCap); cap && *cap) {
    auto parsed = parse_count(cap);
    if (!parsed || *parsed > UINT32_MAX) {
      result.error = std::string(kEnvAllocCap) + "='" + cap + "' is not a count of samples per second";
      return result;
    }
    s.alloc_cap = static_cast<uint32_t>(*parsed);
  }
  if (const char* sdk = lookup(kEnvRecordSdk); sdk && std::string_view(sdk) == "1") s.record_sdk = true;
  if (const char* dir = lookup(kEnvRecordDir); dir && *dir) s.record_dir = dir;
  if (const char* source = lookup(kEnvSource); source && *source) {
    auto parsed = parse_source(source);
    if (!parsed) {
      result.error = std::string(kEnvSource) + "='" + source + "' is not one of events, profiler";
      return result;
    }
    s.source = *parsed;
  }
  if (const char* verify = lookup(kEnvVerifySizes); verify && std::string_view(verify) == "1") {
    s.verify_sizes = true;
  }
  return result;
}

}  // namespace gcsnap::shim
