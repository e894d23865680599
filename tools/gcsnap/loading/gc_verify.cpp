#include "loading/gc_verify.hpp"

#include "gcsnap/gc_heap.hpp"

namespace gcsnap::cli {

Status verify_recording_gc(const std::string& file, const Recording& r, size_t i, bool no_cache) {
  Status s = verify_heap_gc(file, r, i, no_cache ? IndexUse::Ignore : IndexUse::Existing);
  r.release_block_pages(i);
  return s;
}

}  // namespace gcsnap::cli
