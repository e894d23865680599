#pragma once
// One GC of a recording checked as `gcsnap verify` checks it, for verify and for the exports
// that refuse a recording that fails it (docs/cli.md "gcsnap verify").

#include <string>

#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::cli {

/// Verify GC I of R, opened from FILE (Recording::verify_gc). Unless NO_CACHE, a valid analysis
/// index of the GC that vouches for its block (format-spec.md §12.2) spares the decode of its
/// objects: the index's type histogram is checked instead (gcsnap::verify_heap_gc), so that the
/// check decodes no array as long as the heap. An index that fails on the way is not trusted: the GC
/// is then decoded. Never builds an index. Afterwards the block's mapped pages are given back.
Status verify_recording_gc(const std::string& file, const Recording& r, size_t i, bool no_cache);

}  // namespace gcsnap::cli
