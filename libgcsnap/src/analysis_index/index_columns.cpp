// Object columns of an analysis index read into owned vectors (gcsnap/index_columns.hpp).

#include "gcsnap/index_columns.hpp"

#include <algorithm>
#include <new>
#include <type_traits>

#include "analysis_index/index_array_rules.hpp"
#include "analysis_index/index_layout.hpp"
#include "huge_pages.hpp"

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

Result<IndexColumns> read_index_columns(IndexStream& stream, bool with_sizes) try {
  const size_t n = static_cast<size_t>(stream.counts().nodes);
  IndexColumns out;
  // Reserved to the node count, which no column may pass (then the read fails, not a regrowth);
  // in 2 MiB pages (fresh memory written once in order: a fault per 2 MiB, not per 4 KiB).
  detail::reserve_huge(out.addresses, n);
  if (with_sizes) detail::reserve_huge(out.sizes, n);
  detail::reserve_huge(out.generations, n);
  // The rules are branch-free reductions over a piece, which the compiler can vectorize.
  GCSNAP_RETURN_IF_ERROR(read_array(stream, IndexArray::Addresses, out.addresses,
                                    [](const uint64_t* a, size_t count, uint64_t previous, size_t first) {
                                      return index_rules::addresses_rise(a, count, previous, first);
                                    }));
  if (with_sizes)
    GCSNAP_RETURN_IF_ERROR(read_array(stream, IndexArray::Sizes, out.sizes,
                                      [](const uint64_t*, size_t, uint64_t, size_t) { return true; }));
  GCSNAP_RETURN_IF_ERROR(read_array(stream, IndexArray::Generations, out.generations,
                                    [](const Generation* g, size_t count, uint8_t, size_t) {
                                      bool bad = false;
                                      for (size_t k = 0; k < count; ++k)
                                        bad |= !index_rules::is_generation(static_cast<uint8_t>(g[k]));
                                      return !bad;
                                    }));
  if (out.addresses.size() != n || out.sizes.size() != (with_sizes ? n : 0) || out.generations.size() != n)
    return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the object columns of the analysis index");
}

namespace {

// The addresses and sizes of an index a piece of each at a time (pieces of one width cover the
// same objects), widened into two buffers that every block reuses.
class IndexColumnBlocks final : public ColumnBlocks {
 public:
  explicit IndexColumnBlocks(std::unique_ptr<IndexStream> stream)
      : stream_(std::move(stream)), n_(static_cast<size_t>(stream_->counts().nodes)) {}
  size_t size() const noexcept override { return n_; }

  Status next(std::span<const uint64_t>& addresses, std::span<const uint64_t>& sizes) override try {
    addresses = {};
    sizes = {};
    auto a = stream_->next_piece(IndexArray::Addresses);
    if (!a) return a.error();
    auto s = stream_->next_piece(IndexArray::Sizes);
    if (!s) return s.error();
    const size_t count = a->size() / sizeof(uint64_t);
    if (a->size() != s->size() || count > n_ - done_ || (count == 0 && done_ != n_))
      return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
    addresses_.resize(count);
    sizes_.resize(count);
    for (size_t k = 0; k < count; ++k) addresses_[k] = L::load<uint64_t>(a->data() + k * sizeof(uint64_t));
    for (size_t k = 0; k < count; ++k) sizes_[k] = L::load<uint64_t>(s->data() + k * sizeof(uint64_t));
    if (count != 0 && !index_rules::addresses_rise(addresses_.data(), count, previous_, done_))
      return make_error(ErrorCode::CorruptSection, index_rules::kAddressRule);
    if (count != 0) previous_ = addresses_.back();
    done_ += count;
    addresses = addresses_;
    sizes = sizes_;
    return Status::ok();
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
  }

 private:
  std::unique_ptr<IndexStream> stream_;
  size_t n_;
  size_t done_ = 0;  // objects handed out
  uint64_t previous_ = 0;
  std::vector<uint64_t> addresses_, sizes_;
};

// The elements of one array handed out in runs of any length, across its pieces.
template <typename T>
class ArrayRun {
 public:
  explicit ArrayRun(IndexArray array) noexcept : array_(array) {}
  // Widen the next COUNT elements into OUT; false when the array ends first (CorruptSection).
  Status take(IndexStream& stream, T* out, size_t count) {
    while (count > 0) {
      if (at_ == piece_.size()) {
        auto piece = stream.next_piece(array_);
        if (!piece) return piece.error();
        if (piece->empty()) return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
        piece_ = *piece;
        at_ = 0;
      }
      const size_t n = std::min(count, (piece_.size() - at_) / sizeof(T));
      if (n == 0) return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
      for (size_t k = 0; k < n; ++k) out[k] = static_cast<T>(L::load<Raw>(piece_.data() + at_ + k * sizeof(T)));
      at_ += n * sizeof(T);
      out += n;
      count -= n;
    }
    return Status::ok();
  }
  // After the last object: the array must end there too (its checksum was told with its last piece).
  Status finish(IndexStream& stream) {
    if (at_ != piece_.size()) return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
    auto piece = stream.next_piece(array_);
    if (!piece) return piece.error();
    if (!piece->empty()) return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
    return Status::ok();
  }

 private:
  using Raw = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>>;
  IndexArray array_;
  std::span<const std::byte> piece_;  // the current piece (valid until the array's next piece)
  size_t at_ = 0;                     // bytes of it handed out
};

// The four node columns of an index, a piece of the addresses at a time: the other arrays'
// pieces (of other widths) are taken in runs of the same objects.
class IndexObjectBlocks final : public ObjectBlocks {
 public:
  explicit IndexObjectBlocks(std::unique_ptr<IndexStream> stream)
      : stream_(std::move(stream)), n_(static_cast<size_t>(stream_->counts().nodes)) {}
  size_t size() const noexcept override { return n_; }

  Status next(Block& block) override try {
    block = Block{};
    auto a = stream_->next_piece(IndexArray::Addresses);
    if (!a) return a.error();
    const size_t count = a->size() / sizeof(uint64_t);
    if (count > n_ - done_ || (count == 0 && done_ != n_))
      return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
    if (count == 0) {
      GCSNAP_RETURN_IF_ERROR(sizes_.finish(*stream_));
      GCSNAP_RETURN_IF_ERROR(type_ids_.finish(*stream_));
      return generations_.finish(*stream_);
    }
    addresses_.resize(count);
    for (size_t k = 0; k < count; ++k) addresses_[k] = L::load<uint64_t>(a->data() + k * sizeof(uint64_t));
    if (!index_rules::addresses_rise(addresses_.data(), count, previous_, done_))
      return make_error(ErrorCode::CorruptSection, index_rules::kAddressRule);
    sizes_out_.resize(count);
    type_ids_out_.resize(count);
    generations_out_.resize(count);
    GCSNAP_RETURN_IF_ERROR(sizes_.take(*stream_, sizes_out_.data(), count));
    GCSNAP_RETURN_IF_ERROR(type_ids_.take(*stream_, type_ids_out_.data(), count));
    GCSNAP_RETURN_IF_ERROR(generations_.take(*stream_, generations_out_.data(), count));
    bool bad = false;
    for (Generation g : generations_out_) bad |= !index_rules::is_generation(static_cast<uint8_t>(g));
    if (bad) return make_error(ErrorCode::CorruptSection, index_rules::kGenerationRule);
    previous_ = addresses_.back();
    done_ += count;
    block = Block{addresses_, sizes_out_, type_ids_out_, generations_out_};
    return Status::ok();
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
  }

 private:
  std::unique_ptr<IndexStream> stream_;
  size_t n_;
  size_t done_ = 0;  // objects handed out
  uint64_t previous_ = 0;
  ArrayRun<uint64_t> sizes_{IndexArray::Sizes};
  ArrayRun<uint32_t> type_ids_{IndexArray::TypeIds};
  ArrayRun<Generation> generations_{IndexArray::Generations};
  std::vector<uint64_t> addresses_, sizes_out_;
  std::vector<uint32_t> type_ids_out_;
  std::vector<Generation> generations_out_;
};

// The sizes and type ids of an index: single sizes from the pieces that hold them, and one pass
// over both whole arrays (their checksums checked) for the rows a diff needs.
class IndexColumnLookup final : public ColumnLookup {
 public:
  explicit IndexColumnLookup(std::unique_ptr<IndexStream> stream)
      : stream_(std::move(stream)), n_(static_cast<size_t>(stream_->counts().nodes)) {}

  Status find_sizes(std::span<const size_t> rows, std::span<uint64_t> sizes) override try {
    constexpr size_t kPerPiece = kIndexPieceBytes / sizeof(uint64_t);
    for (size_t k = 0; k < rows.size(); ++k) {
      if (rows[k] >= n_) return make_error(ErrorCode::CorruptSection, "analysis index node out of range");
      const size_t p = rows[k] / kPerPiece;
      if (p != loaded_) {
        loaded_ = SIZE_MAX;
        auto read = stream_->read_piece(IndexArray::Sizes, p, buffer_);
        if (!read) return read.error();
        loaded_ = p;
      }
      const size_t at = (rows[k] % kPerPiece) * sizeof(uint64_t);
      if (at + sizeof(uint64_t) > buffer_.size()) return make_error(ErrorCode::CorruptSection, "analysis index node out of range");
      sizes[k] = L::load<uint64_t>(buffer_.data() + at);
    }
    return Status::ok();
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
  }

  Status gather(std::span<const size_t> rows, std::span<uint64_t> sizes, std::span<uint32_t> type_ids) override {
    GCSNAP_RETURN_IF_ERROR(gather_array(IndexArray::Sizes, rows, sizes));
    return gather_array(IndexArray::TypeIds, rows, type_ids);
  }

 private:
  // OUT[k] = ARRAY's element ROWS[k], reading every piece of ARRAY in order to its end.
  template <typename T>
  Status gather_array(IndexArray array, std::span<const size_t> rows, std::span<T> out) {
    size_t base = 0, k = 0;
    for (;;) {
      auto piece = stream_->next_piece(array);
      if (!piece) return piece.error();
      if (piece->empty()) break;
      const size_t count = piece->size() / sizeof(T);
      if (count > n_ - base) return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
      for (; k < rows.size() && rows[k] < base + count; ++k)
        out[k] = L::load<T>(piece->data() + (rows[k] - base) * sizeof(T));
      base += count;
    }
    if (base != n_ || k != rows.size())
      return make_error(ErrorCode::CorruptSection, "analysis index column of another length");
    return Status::ok();
  }

  std::unique_ptr<IndexStream> stream_;
  size_t n_;
  size_t loaded_ = SIZE_MAX;  // the piece of the sizes in buffer_
  std::vector<std::byte> buffer_;
};

}  // namespace

Result<std::unique_ptr<ColumnLookup>> look_up_index_columns(std::unique_ptr<IndexStream> stream) try {
  return std::unique_ptr<ColumnLookup>(new IndexColumnLookup(std::move(stream)));
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
}

Result<std::unique_ptr<ColumnBlocks>> stream_index_columns(std::unique_ptr<IndexStream> stream) try {
  return std::unique_ptr<ColumnBlocks>(new IndexColumnBlocks(std::move(stream)));
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
}

Result<std::unique_ptr<ObjectBlocks>> stream_index_objects(std::unique_ptr<IndexStream> stream) try {
  return std::unique_ptr<ObjectBlocks>(new IndexObjectBlocks(std::move(stream)));
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
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
