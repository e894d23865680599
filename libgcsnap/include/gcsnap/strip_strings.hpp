#pragma once
/// Removing captured string contents from a recording (format-spec.md §6.24, §6.26): a copy
/// with every string-contents section left out, each value capture record marked "stripped",
/// the blocks' ends, the index and the trailer rewritten. Everything else is copied byte for
/// byte, checksums included.

#include <cstdint>
#include <string>

#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

struct StripReport {
  uint64_t gcs = 0;               ///< complete GC blocks copied
  uint64_t sections_removed = 0;  ///< string-contents sections left out
  uint64_t bytes_removed = 0;     ///< their bytes, headers included
};

/// Write to OUTPUT a copy of the recording at INPUT without string contents. The blocks the
/// input's index (or recovery scan) lists are copied; a partial block at its end is not.
/// OUTPUT is replaced. Errors: those of Recording::open on INPUT, IoError (read, write),
/// CorruptSection (a block whose sections do not add up), InvalidArgument (INPUT == OUTPUT).
[[nodiscard]] Result<StripReport> strip_string_contents(const std::string& input, const std::string& output,
                                                        const ReaderLimits& limits = {});

}  // namespace gcsnap
