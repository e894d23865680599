// Object columns of an analysis index read into owned vectors (gcsnap/index_columns.hpp).

#include "gcsnap/index_columns.hpp"

#include <new>

#include "analysis_index/index_layout.hpp"

namespace gcsnap {

namespace L = index_layout;

namespace {

// Append array WHICH's elements (little-endian, of OUT's element width) to OUT; CHECK(value,
// previous, index) -> bool on each.
template <typename T, typename Check>
Status read_array(IndexStream& stream, IndexArray which, std::vector<T>& out, Check&& check) {
  using Raw = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>>;
  Raw previous = 0;
  for (;;) {
    auto piece = stream.next_piece(which);
    if (!piece) return piece.error();
    if (piece->empty()) return Status::ok();
    for (size_t at = 0; at + sizeof(T) <= piece->size(); at += sizeof(T)) {
      const Raw v = L::load<Raw>(piece->data() + at);
      if (!check(v, previous, out.size())) return make_error(ErrorCode::CorruptSection, "analysis index column out of range or order");
      previous = v;
      out.push_back(static_cast<T>(v));
    }
  }
}

}  // namespace

Result<IndexColumns> read_index_columns(IndexStream& stream) try {
  const size_t n = static_cast<size_t>(stream.counts().nodes);
  IndexColumns out;
  out.addresses.reserve(n);
  out.sizes.reserve(n);
  out.generations.reserve(n);
  GCSNAP_RETURN_IF_ERROR(read_array(stream, IndexArray::Addresses, out.addresses,
                                    [](uint64_t v, uint64_t previous, size_t i) { return i == 0 || v > previous; }));
  GCSNAP_RETURN_IF_ERROR(read_array(stream, IndexArray::Sizes, out.sizes, [](uint64_t, uint64_t, size_t) { return true; }));
  GCSNAP_RETURN_IF_ERROR(read_array(stream, IndexArray::Generations, out.generations,
                                    [](uint8_t g, uint8_t, size_t) { return g <= 5 || g == 0xFF; }));
  if (out.addresses.size() != n || out.sizes.size() != n || out.generations.size() != n)
    return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the object columns of the analysis index");
}

Result<uint64_t> read_index_address(IndexStream& stream, uint64_t node) try {
  if (node >= stream.counts().nodes) return make_error(ErrorCode::CorruptSection, "analysis index node out of range");
  std::vector<std::byte> buffer;
  const uint64_t byte = node * 8;
  auto piece = stream.read_piece(IndexArray::Addresses, static_cast<size_t>(byte / kIndexPieceBytes), buffer);
  if (!piece) return piece.error();
  const size_t at = static_cast<size_t>(byte % kIndexPieceBytes);
  if (at + 8 > piece->size()) return make_error(ErrorCode::CorruptSection, "analysis index node out of range");
  return L::load<uint64_t>(piece->data() + at);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
}

}  // namespace gcsnap
