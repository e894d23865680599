#include "commands/summary_line.hpp"

#include <cstdio>

#include <fmt/core.h>

#include "errors/cli_error.hpp"
#include "loading/index_orphans.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/gc_heap.hpp"
#include "gcsnap/reader.hpp"
#include "loading/heap_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

std::string size_ratio(uint64_t index_bytes, uint64_t file_bytes) {
  if (file_bytes == 0) return "of an empty recording";
  return fmt::format("{:.1f}x the recording", static_cast<double>(index_bytes) / static_cast<double>(file_bytes));
}

namespace {

// record --index: build (or find up to date) the index of every snapshot; "" when there is none.
std::string build_indexes(const std::string& path, const Recording& recording) {
  size_t built = 0, snapshots = 0;
  std::string first_error;
  for (size_t gc = 0; gc < recording.gcs().size(); ++gc) {
    if (!recording.gcs()[gc].has_heap_walk()) continue;
    ++snapshots;
    // The write-only build, as `gcsnap index`: each array is held only while the build reads it.
    Status saved = save_heap_index(path, recording, gc, terminal_progress(path));
    if (saved.is_ok()) {
      ++built;
    } else if (first_error.empty()) {
      first_error = error_text(saved);
    }
  }
  if (snapshots == 0) return "";
  uint64_t index_bytes = 0;
  for (size_t gc = 0; gc < recording.gcs().size(); ++gc) {
    if (recording.gcs()[gc].has_heap_walk()) index_bytes += heap_index_bytes(path, recording, gc);
  }
  std::string text = fmt::format("; analysis index of {} of {} snapshots in {}.N.gcidx ({}, {})", built, snapshots,
                                 path, format_bytes(index_bytes), size_ratio(index_bytes, recording.file_size()));
  if (!first_error.empty()) text += fmt::format(" ({})", first_error);
  return text;
}

}  // namespace

uint64_t print_summary(const std::string& path, const std::string& process, bool build_index) {
  auto opened = Recording::open(path);
  if (!opened.is_ok()) {
    fmt::print(stderr, "gcsnap: error: {}\n", describe_error(path, opened.error()));
    return 0;
  }
  const Recording& recording = **opened;
  uint64_t snapshots = 0, dropped_walks = 0;
  DropCounts drops;
  for (const GcEntry& gc : recording.gcs()) {
    snapshots += gc.has_heap_walk() ? 1 : 0;
    dropped_walks += gc.walk_dropped() ? 1 : 0;
    drops.objects += gc.drops.objects;
    drops.references += gc.drops.references;
    drops.roots += gc.drops.roots;
    drops.ranges += gc.drops.ranges;
    drops.reasons |= gc.drops.reasons;
  }
  std::string line = fmt::format("gcsnap: recorded {} GCs, {} snapshots, {}{} in {}", recording.gcs().size(), snapshots,
                                 format_bytes(recording.file_size()), process.empty() ? "" : " of " + process, path);
  if (drops.objects || drops.roots || drops.ranges) {
    line += fmt::format("; dropped {} objects, {} references, {} roots, {} ranges{}", drops.objects,
                        drops.references, drops.roots, drops.ranges,
                        (drops.reasons & drop_reason::kMemoryLimit) ? " (memory limit)" : "");
  } else {
    line += "; nothing dropped";
  }
  if (dropped_walks)
    line += fmt::format("; {} older heap walks dropped to stay under --max-size ('gcsnap info' names them)", dropped_walks);
  if (recording.end() != FileEnd::Complete) line += fmt::format("; file end: {}", file_end_name(recording.end()));
  // Indexes of GCs this recording has not: left by an earlier recording written to PATH.
  remove_orphan_indexes(path, recording);
  if (build_index) line += build_indexes(path, recording);
  fmt::print(stderr, "{}\n", line);
  return snapshots + dropped_walks;
}

void print_no_walk_hint(const std::string& path, const std::string& policy, long pid) {
  const std::string walked = policy == "none"      ? "--policy none walks no GC"
                             : policy == "gen2"    ? "no gen2 GC (the GCs --policy gen2 walks) happened"
                             : policy == "induced" ? "no induced GC (the GCs --policy induced walks) happened"
                             : policy == "all"     ? "no GC happened"
                                                   : "no gen2 or induced GC (the GCs the default policy walks) happened";
  fmt::print(stderr,
             "gcsnap: {} has no heap walk: {} while process {} was recorded; types, path and leaks need walks: "
             "add --every 30s (a heap walk every 30 s), or run 'gcsnap snapshot {}' while it records\n",
             path, walked, pid, pid);
}

}  // namespace gcsnap::cli
