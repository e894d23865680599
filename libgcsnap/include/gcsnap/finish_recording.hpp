#pragma once
/// Finishing a recording whose writer died before close(): the process was killed (SIGKILL,
/// or a signal the runtime does not turn into an orderly exit), so the file has its complete
/// GC blocks but no index and trailer. finish_recording rebuilds them from the blocks, as the
/// reader's recovery scan finds them (format-spec.md §8.4), so that the file ends complete.

#include <cstdint>
#include <string>

#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// What finish_recording found and did.
struct FinishReport {
  FileEnd found = FileEnd::Complete;  ///< how the file ended before (Complete: nothing was changed)
  uint64_t gcs = 0;                   ///< complete GC blocks the file now indexes
  uint64_t bytes_dropped = 0;         ///< bytes cut after the last complete block (a partial GC)
};

/// Give FILE its index and trailer when it has none: keep every complete GC block, cut what
/// follows the last one (a partial block, an abandoned block, a stale index), append the
/// index of the complete blocks and the trailer, and sync. A file that already ends complete
/// is left as it is. Call it only when no writer has the file open any more. A file whose
/// scan stops at damage (FileEnd::Corrupt: a bad section header, a block end that disagrees
/// with its block) is refused and not changed: cutting there could drop good data after it.
/// Errors: IoError (open, map, truncate, write, sync), the open errors of Recording::open
/// (NotAGcsnapFile, UnsupportedVersion, Truncated header ...), the scan's end error for a
/// damaged file, LimitExceeded, OutOfMemory. When the index cannot be written (a full disk),
/// the file is left ending after its last complete block (the partial GC is gone either way).
[[nodiscard]] Result<FinishReport> finish_recording(const std::string& path, const ReaderLimits& limits = {});

}  // namespace gcsnap
