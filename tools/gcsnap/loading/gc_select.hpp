#pragma once
// Shared GC selection: `FILE`, `FILE:N` and `--gc N`, opening the recording with clear errors.
// docs/cli.md "Selecting a GC".

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/reader.hpp"

namespace CLI {
class App;
}

namespace gcsnap::cli {

/// What a user does to get heap walks, said wherever a file has none.
inline constexpr std::string_view kHowToGetWalks =
    "record with --every 30s for a heap walk every 30 s, or --policy all; or take one with 'gcsnap snapshot PID'";

/// What a command needs of the GC it works on; decides the default GC.
enum class GcNeed {
  Any,       ///< default: the last GC
  HeapWalk,  ///< default: the last GC with a heap walk; an explicit GC without one is an error
};

/// A parsed `FILE` or `FILE:N` argument.
struct GcSpec {
  std::string file;
  std::optional<uint64_t> gc;
};

/// Split "FILE:N" (N all digits) into file and GC number; anything else is just a file.
/// A path that exists as given is taken as a file even if it ends in ":digits".
GcSpec parse_gc_spec(const std::string& argument);

/// Open FILE; throws CliError(kExitBadInput) "FILE: <library error>" on failure.
std::unique_ptr<Recording> open_recording(const std::string& file);

/// Return the index in recording.gcs() of the GC to use: `gc` if given, else the default
/// for `need`. Throws CliError with messages such as
///   "FILE: GC 7 is not in the recording (it has GCs 1-12)"          (kExitUsage)
///   "FILE: GC 3 has no heap walk; GCs with one: 5, 9"               (kExitUsage)
///   "FILE: the recording has no GCs" / "... no GC with a heap walk" (kExitBadInput)
size_t select_gc(const Recording& recording, const std::string& file, std::optional<uint64_t> gc, GcNeed need);

/// A recording and one selected GC.
struct SelectedGc {
  std::string file;
  std::unique_ptr<Recording> recording;
  size_t index = 0;
  const GcEntry& entry() const { return recording->gcs()[index]; }
  uint64_t number() const { return entry().info.gc_number; }
};

/// Parse `spec` (FILE or FILE:N), open it and select a GC. `gc_option` is the value of
/// `--gc` if given; giving both FILE:N and --gc is a usage error.
SelectedGc open_selected_gc(const std::string& spec, std::optional<uint64_t> gc_option, GcNeed need);

/// Add `--gc N` to a subcommand; *gc is set when the option is given.
void add_gc_option(CLI::App& cmd, std::optional<uint64_t>& gc, const std::string& help = "");

/// "1-5, 7, 9-12": GC numbers (sorted) as compact ranges; at most `limit` items, then "...".
std::string describe_gc_numbers(const std::vector<uint64_t>& numbers, size_t limit = 20);

}  // namespace gcsnap::cli
