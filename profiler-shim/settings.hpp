#pragma once
// The shim's settings, read once from the environment at Initialize (docs/shim.md
// "Settings"). Plain C++: parse_settings takes a lookup function so tests need no env.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gcsnap::shim {

/// Which GCs get a heap walk (besides on-demand requests).
enum class SnapshotPolicy : uint8_t {
  Default,  ///< every gen2 GC and every induced GC
  All,      ///< every GC
  Gen2,     ///< every gen2 GC
  Induced,  ///< every induced GC (GC.Collect, ForceGC)
  None,     ///< ranges and roots only (on-demand requests still walk)
};

/// How the shim was loaded: at startup (environment) or attached (client data).
enum class AttachMode : uint8_t {
  Startup,   ///< CORECLR_PROFILER at startup: settings from the environment
  Snapshot,  ///< attached for one on-demand snapshot, then detach
  Record,    ///< attached to record every GC until told to detach
};

/// Where the GC facts come from (docs/shim.md "Sources").
enum class RecordSource : uint8_t {
  Profiler,  ///< the profiling API's GC callbacks (COR_PRF_MONITOR_GC: background GC is off)
  Events,    ///< the runtime's EventPipe events, in-process (background GC stays on)
};

struct Settings {
  std::string output;                            ///< GCSNAP_OUTPUT; required
  SnapshotPolicy policy = SnapshotPolicy::Default;
  uint64_t max_snapshots = UINT64_MAX;           ///< policy snapshots; on-demand ones are extra
  uint64_t max_memory_bytes = 1024ull << 20;     ///< GCSNAP_MAX_MEMORY_MB
  uint64_t heap_growth_bytes = 0;                ///< GCSNAP_ON_HEAP_GROWTH; 0 = no such trigger
  uint64_t max_file_bytes = 0;                   ///< GCSNAP_MAX_SIZE (attach: max_size); 0 = no cap
  bool control_socket = true;                    ///< GCSNAP_CONTROL=0 turns it off
  /// GCSNAP_WALK_ONLY=1, for measuring: let the runtime walk the heap at snapshot GCs but
  /// store none of it, so the runtime's own cost of a heap walk can be told from the shim's.
  bool walk_only = false;
  /// GCSNAP_WALK_TIMES=1, for measuring: one stderr line per heap walk with its objects, wall
  /// time, CPU time and page faults on the walking thread (walk_timer.hpp).
  bool walk_times = false;
  AttachMode mode = AttachMode::Startup;
  RecordSource source = RecordSource::Profiler;  ///< GCSNAP_SOURCE (attach: source)
  long owner_pid = 0;       ///< attached: the CLI's pid; its death detaches (0: not watched)
  uint64_t deadline_s = 0;  ///< attached: detach after this many seconds (0: no deadline)
  /// GCSNAP_VERIFY_SIZES=1, for testing: ask the runtime for every object's size and count
  /// the objects whose predicted size (class_cache.hpp) it contradicts; said at shutdown.
  bool verify_sizes = false;
  /// GCSNAP_FIELDS=0 turns off recording field layouts and reference slots (field names on
  /// paths); for measuring their cost, or as a way out should the slot search misbehave.
  bool field_names = true;
  /// GCSNAP_CAPTURE_STRINGS=N (attach: capture_strings=N): record the first N characters of
  /// every string (format-spec.md §6.24). 0, the default: strings as length and hash only.
  uint32_t capture_strings = 0;
  /// GCSNAP_DIAGNOSTICS=1: say at startup which runtime, event masks and sessions are in use.
  bool diagnostics = false;
  /// GCSNAP_GC_REASON_EVENTS=0: no GCTriggered session on .NET 8 (induced GCs read as "other").
  bool gc_reason_events = true;
  /// GCSNAP_ALLOC_SITES=0 (attach: alloc_sites=0; record --no-alloc-sites): no allocation
  /// sampling (docs/shim.md "Allocation sites").
  bool alloc_sites = true;
  /// GCSNAP_ALLOC_CAP (attach: alloc_cap): samples kept per second before the rate cap thins
  /// them; 0 = no cap.
  uint32_t alloc_cap = 5000;
  /// GCSNAP_RECORD_SDK=1: record processes of the .NET SDK too (process_role.hpp).
  bool record_sdk = false;
  /// GCSNAP_RECORD_DIR: where `gcsnap record` wants this process's report ("" = none).
  std::string record_dir;
};

struct SettingsResult {
  Settings settings;
  std::string error;  ///< empty when the settings are usable
};

using EnvLookup = std::function<const char*(const char*)>;

/// Parse "default", "all", "gen2", "induced" or "none".
std::optional<SnapshotPolicy> parse_policy(std::string_view text) noexcept;
std::string_view policy_name(SnapshotPolicy policy) noexcept;
/// Parse "events" or "profiler".
std::optional<RecordSource> parse_source(std::string_view text) noexcept;
/// Read the settings through LOOKUP (getenv in the shim). Never throws on bad input: it says why.
SettingsResult parse_settings(const EnvLookup& lookup);
/// Read the settings of an attached session from the attach request's client data
/// (shim_protocol.hpp kAttachDataHeader). Never throws on bad input: it says why.
SettingsResult parse_attach_settings(std::string_view client_data);

}  // namespace gcsnap::shim
