// Verifying a GC with its analysis index as the attestation of its objects (format-spec.md
// §12.2): the index-or-decode choice of `gcsnap verify`, beside GcHeap's.
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "gcsnap/analysis_index.hpp"
#include "gcsnap/gc_heap.hpp"
#include "gcsnap/index_stream.hpp"

namespace gcsnap {

namespace {

// GC I verified with its index's type ids as the attestation, or nullopt when no index vouches
// for the block or the check fails (the decode then decides: a damaged index is not a damaged
// recording).
std::optional<Status> verify_attested(const std::string& file, const Recording& r, size_t i) {
  if (!r.gcs()[i].has_heap_walk()) return std::nullopt;
  // The header and roots alone: the block hash it was built from, and its roots matching the GC's.
  const auto index = find_analysis_index(file, r, i, IndexParts{0});
  if (!index || !index_vouches_for_block(*index, r, i)) return std::nullopt;
  auto id = identify_gc(file, r, i);
  if (!id) return std::nullopt;
  auto stream = IndexStream::open(analysis_index_path(file, id->gc_number), *id);
  if (!stream || (*stream)->counts().nodes != r.gcs()[i].object_count) return std::nullopt;
  std::vector<uint32_t> copy;  // a piece whose bytes are not aligned for uint32_t
  Status s = r.verify_gc_attested(i, [&]() -> Result<std::span<const uint32_t>> {
    auto piece = (*stream)->next_piece(IndexArray::TypeIds);
    if (!piece) return piece.error();
    const size_t n = piece->size() / sizeof(uint32_t);
    if (piece->size() % sizeof(uint32_t) != 0)
      return make_error(ErrorCode::CorruptSection, "analysis index type ids are not whole");
    if (reinterpret_cast<uintptr_t>(piece->data()) % alignof(uint32_t) == 0)
      return std::span<const uint32_t>(reinterpret_cast<const uint32_t*>(piece->data()), n);
    copy.resize(n);
    std::memcpy(copy.data(), piece->data(), piece->size());
    return std::span<const uint32_t>(copy);
  });
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
