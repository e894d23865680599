// Verifying a GC with its analysis index as the attestation of its objects (format-spec.md
// §12.2): the index-or-decode choice of `gcsnap verify`, beside GcHeap's.
#include <cstdint>
#include <optional>
#include <vector>

#include "gcsnap/analysis_index.hpp"
#include "gcsnap/gc_heap.hpp"

namespace gcsnap {

namespace {

// GC I verified with its index as the attestation of its objects, or nullopt when no index
// vouches for the block or the check fails (the decode then decides: a damaged index is not a
// damaged recording). The index's type histogram says which types the objects have and how many
// of each, so that no array as long as the heap is decoded; its block hash is compared in the
// pass that checks the block's object sections.
std::optional<Status> verify_attested(const std::string& file, const Recording& r, size_t i) {
  if (!r.gcs()[i].has_heap_walk()) return std::nullopt;
  // The header, roots (matching the GC's) and the type histogram.
  const auto index = find_analysis_index(file, r, i, kIndexTypes);
  if (!index || index->block_hash == 0) return std::nullopt;
  std::vector<Recording::AttestedTypeCount> counts;
  counts.reserve(index->type_stats.size());
  for (const TypeStats& t : index->type_stats) counts.push_back({t.type_id, t.count});
  Status s = r.verify_gc_counted(i, index->block_hash, counts);
  if (!s.is_ok()) return std::nullopt;
  return s;
}

}  // namespace

Status verify_heap_gc(const std::string& recording_path, const Recording& rec, size_t gc_pos, IndexUse use) {
  std::optional<Status> s;
  if (use != IndexUse::Ignore) s = verify_attested(recording_path, rec, gc_pos);
  if (!s) s = rec.verify_gc(gc_pos);
  return *s;
}

}  // namespace gcsnap
