#include "summary_line.hpp"

#include <cstdio>

#include <fmt/core.h>

#include "cli_error.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/reader.hpp"
#include "output.hpp"

namespace gcsnap::cli {

void print_summary(const std::string& path, const std::string& process) {
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
  std::string line = fmt::format("gcsnap: recorded {} GCs, {} snapshots, {}{} in {}", recording.gcs().size(), snapshots,
                                 format_bytes(recording.file_size()), process.empty() ? "" : " of " + process, path);
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
