#include "summary_line.hpp"

#include <cstdio>

#include <fmt/core.h>

#include "cli_error.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::cli {

std::string human_size(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < (1u << 20)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0);
  if (bytes < (1ull << 30)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / 1048576.0);
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / 1073741824.0);
}


void print_summary(const std::string& path) {
  auto opened = Recording::open(path);
  if (!opened.is_ok()) {
    fmt::print(stderr, "gcsnap: error: {}\n", describe_error(path, opened.error()));
    return;
  }
  const Recording& recording = **opened;
  uint64_t snapshots = 0;
  DropCounts drops;
  for (const GcEntry& gc : recording.gcs()) {
    snapshots += gc.has_heap_walk() ? 1 : 0;
    drops.objects += gc.drops.objects;
    drops.references += gc.drops.references;
    drops.roots += gc.drops.roots;
    drops.ranges += gc.drops.ranges;
    drops.reasons |= gc.drops.reasons;
  }
  std::string line = fmt::format("gcsnap: recorded {} GCs, {} snapshots, {} in {}", recording.gcs().size(), snapshots,
                                 human_size(recording.file_size()), path);
  if (drops.objects || drops.roots || drops.ranges) {
    line += fmt::format("; dropped {} objects, {} references, {} roots, {} ranges{}", drops.objects,
                        drops.references, drops.roots, drops.ranges,
                        (drops.reasons & drop_reason::kMemoryLimit) ? " (memory limit)" : "");
  } else {
    line += "; nothing dropped";
  }
  if (recording.end() != FileEnd::Complete) line += fmt::format("; file end: {}", file_end_name(recording.end()));
  fmt::print(stderr, "{}\n", line);
}

}  // namespace gcsnap::cli
