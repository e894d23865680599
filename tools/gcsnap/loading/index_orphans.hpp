#pragma once
// The analysis index files beside a recording (docs/cli.md "gcsnap index"): those an earlier
// recording at the same path left, removed whenever an index of the recording is built, and
// the cap on how many the query commands (types, dominators, path) leave when they build one.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gcsnap/reader.hpp"

namespace gcsnap::cli {

/// One file `FILE.N.gcidx` beside a recording FILE.
struct IndexFile {
  uint64_t gc_number = 0;
  std::filesystem::path path;
};

/// The files `FILE.N.gcidx` beside FILE (N all digits; other files are never listed), in no
/// order; empty when the directory cannot be listed. Never throws.
std::vector<IndexFile> list_index_files(const std::string& file) noexcept;

/// Remove the files `FILE.N.gcidx` beside FILE whose N is not the number of a GC of REC with a
/// heap walk (an earlier recording written to FILE had more, or other, GCs); such an index can
/// never be used again. Returns how many were removed; a file that cannot be removed, or a
/// directory that cannot be listed, is left as it is (never an error).
size_t remove_orphan_indexes(const std::string& file, const Recording& rec) noexcept;

/// How many index files of one recording a query command leaves after building one.
inline constexpr size_t kMaxBuiltIndexFiles = 3;

/// After a query command built and wrote the index of GC KEEP_GC beside FILE: remove the other
/// index files of FILE written longest ago until at most MAX_FILES remain, KEEP_GC's always
/// among them (an index is a cache: the next command that needs a removed one builds it
/// again). Returns how many were removed; a file that cannot be removed or dated stays (never
/// an error).
size_t cap_index_files(const std::string& file, uint64_t keep_gc, size_t max_files) noexcept;

}  // namespace gcsnap::cli
