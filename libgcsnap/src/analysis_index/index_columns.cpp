// Object columns of an analysis index read into owned vectors (gcsnap/index_columns.hpp).

#include "gcsnap/index_columns.hpp"

#include <new>

#include "analysis_index/index_array_rules.hpp"
#include "analysis_index/index_layout.hpp"

namespace gcsnap {

namespace L = index_layout;

namespace {

// Append array WHICH's elements (little-endian, of OUT's element width) to OUT, a piece at a
// time: the piece is widened into OUT's reserved storage in one loop, then CHECK(values, count,
// previous) -> bool (PREVIOUS: the element before the piece, 0 for the first) runs over it.
template <typename T, typename Check>
Status read_array(IndexStream& stream, IndexArray which, std::vector<T>& out, Check&& check) {
  using Raw = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>>;
  for (;;) {
    auto piece = stream.next_piece(which);
    if (!piece) return piece.error();
    if (piece->empty()) return Status::ok();
    const size_t count = piece->size() / sizeof(T), at = out.size();
    if (count > out.capacity() - at) return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
    const Raw previous = at == 0 ? Raw{0} : static_cast<Raw>(out[at - 1]);
    out.resize(at + count);
    T* values = out.data() + at;
    for (size_t k = 0; k < count; ++k) values[k] = static_cast<T>(L::load<Raw>(piece->data() + k * sizeof(T)));
    if (!check(values, count, previous, at))
      return make_error(ErrorCode::CorruptSection, "analysis index column out of range or order");
  }
}

}  // namespace

Result<IndexColumns> read_index_columns(IndexStream& stream) try {
  const size_t n = static_cast<size_t>(stream.counts().nodes);
  IndexColumns out;
  // Reserved to the node count, which no column may pass (then the read fails, not a regrowth).
  out.addresses.reserve(n);
  out.sizes.reserve(n);
  out.generations.reserve(n);
  // The rules are branch-free reductions over a piece, which the compiler can vectorize.
  GCSNAP_RETURN_IF_ERROR(read_array(stream, IndexArray::Addresses, out.addresses,
                                    [](const uint64_t* a, size_t count, uint64_t previous, size_t first) {
                                      return index_rules::addresses_rise(a, count, previous, first);
                                    }));
  GCSNAP_RETURN_IF_ERROR(read_array(stream, IndexArray::Sizes, out.sizes,
                                    [](const uint64_t*, size_t, uint64_t, size_t) { return true; }));
  GCSNAP_RETURN_IF_ERROR(read_array(stream, IndexArray::Generations, out.generations,
                                    [](const Generation* g, size_t count, uint8_t, size_t) {
                                      bool bad = false;
                                      for (size_t k = 0; k < count; ++k)
                                        bad |= !index_rules::is_generation(static_cast<uint8_t>(g[k]));
                                      return !bad;
                                    }));
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
