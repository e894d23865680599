// The holder table of an analysis index (format-spec.md §12.3, array 18): its coding, its
// rules, the point reader's access to it (PointIndex::type_holders) and the histogram beside it.
#include "analysis_index/index_type_holders.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "analysis_index/index_nearest_instances.hpp"
#include "analysis_index/index_pieces.hpp"

namespace gcsnap::detail {

namespace L = index_layout;

namespace {

Error corrupt(const char* detail) { return make_error(ErrorCode::CorruptSection, detail); }

template <typename T>
void put(unsigned char* at, T value) {
  std::memcpy(at, &value, sizeof value);
}

}  // namespace

std::vector<unsigned char> encode_type_holders(std::span<const IndexedTypeHolder> rows) {
  size_t text = 0;
  for (const IndexedTypeHolder& r : rows) text += r.cell.text.size();
  std::vector<unsigned char> out(rows.size() * L::kHolderRecord + text, 0);
  unsigned char* rec = out.data();
  unsigned char* chars = out.data() + rows.size() * L::kHolderRecord;
  for (const IndexedTypeHolder& r : rows) {
    put(rec + L::kHolderType, r.type_id);
    put(rec + L::kHolderTextLength, static_cast<uint32_t>(r.cell.text.size()));
    put(rec + L::kHolderAddress, r.cell.has_address ? r.cell.address : uint64_t{0});
    rec[L::kHolderFlags] = r.cell.has_address ? L::kHolderHasAddress : 0;
    std::memcpy(chars, r.cell.text.data(), r.cell.text.size());
    chars += r.cell.text.size();
    rec += L::kHolderRecord;
  }
  return out;
}

std::vector<uint32_t> holder_table_types(std::span<const TypeStats> histogram) {
  std::vector<TypeStats> sorted(histogram.begin(), histogram.end());
  sort_type_stats(sorted, TypeHistogramOptions{TypeOrder::RetainedBytes, kHeldByRows});
  std::vector<uint32_t> ids;
  for (const TypeStats& t : sorted) ids.push_back(t.type_id);
  return ids;
}

Result<std::vector<IndexedTypeHolder>> decode_type_holders(std::span<const unsigned char> bytes, uint64_t rows,
                                                           uint64_t text, std::span<const TypeStats> histogram) {
  if (rows > histogram.size() || bytes.size() != rows * L::kHolderRecord + text)
    return corrupt("analysis index holder table does not match its counts");
  // Its rows are the histogram's first by retained bytes: the order a reader relies on.
  std::vector<TypeStats> order(histogram.begin(), histogram.end());
  sort_type_stats(order, TypeHistogramOptions{TypeOrder::RetainedBytes, static_cast<size_t>(rows)});
  std::vector<IndexedTypeHolder> out(static_cast<size_t>(rows));
  uint64_t at = rows * L::kHolderRecord;
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned char* rec = bytes.data() + i * L::kHolderRecord;
    const uint32_t length = L::load<uint32_t>(rec + L::kHolderTextLength);
    const uint8_t flags = rec[L::kHolderFlags];
    bool zero = true;
    for (size_t z = L::kHolderZeroFrom; z < L::kHolderRecord; ++z) zero = zero && rec[z] == 0;
    if (!zero || (flags & ~L::kHolderHasAddress) != 0 || length > bytes.size() - at)
      return corrupt("analysis index holder table record out of range");
    IndexedTypeHolder& row = out[i];
    row.type_id = L::load<uint32_t>(rec + L::kHolderType);
    if (row.type_id != order[i].type_id) return corrupt("analysis index holder table not in the histogram's order");
    row.cell.has_address = (flags & L::kHolderHasAddress) != 0;
    row.cell.address = L::load<uint64_t>(rec + L::kHolderAddress);
    if (!row.cell.has_address && row.cell.address != 0)
      return corrupt("analysis index holder table record out of range");
    row.cell.text.assign(reinterpret_cast<const char*>(bytes.data() + at), length);
    at += length;
  }
  if (at != bytes.size()) return corrupt("analysis index holder table does not match its counts");
  return out;
}

bool load_type_record(const void* at_void, TypeStats& t) noexcept {
  const auto* at = static_cast<const unsigned char*>(at_void);
  t.type_id = L::load<uint32_t>(at + L::kTypeId);
  t.count = L::load<uint64_t>(at + L::kTypeCount);
  t.shallow_bytes = L::load<uint64_t>(at + L::kTypeShallow);
  t.retained_bytes = L::load<uint64_t>(at + L::kTypeRetained);
  t.unreachable_count = L::load<uint64_t>(at + L::kTypeUnreachable);
  uint64_t sum = 0;
  bool sums = true;
  for (size_t g = 0; g < kGenerationSlots; ++g) {
    t.generation_bytes[g] = L::load<uint64_t>(at + L::kTypeGenerationBytes + 8 * g);
    sums = sums && sum + t.generation_bytes[g] >= sum;  // no wrap
    sum += t.generation_bytes[g];
  }
  return L::load<uint32_t>(at + L::kTypeZero) == 0 && sums && sum == t.shallow_bytes;
}

Result<std::vector<TypeStats>> decode_type_stats(std::span<const unsigned char> bytes) {
  if (bytes.size() % L::kTypeRecord != 0) return corrupt("analysis index type histogram out of range");
  std::vector<TypeStats> out(bytes.size() / L::kTypeRecord);
  for (size_t i = 0; i < out.size(); ++i) {
    if (!load_type_record(bytes.data() + i * L::kTypeRecord, out[i]) || (i > 0 && out[i - 1].type_id >= out[i].type_id))
      return corrupt("analysis index type histogram not sorted or its generation bytes do not add up");
  }
  return out;
}

}  // namespace gcsnap::detail

namespace gcsnap {

namespace L = index_layout;

Result<std::vector<TypeStats>> PointIndex::type_stats() try {
  auto records = pieces_->whole_array(L::kTypes);
  if (!records) return records.error();
  return detail::decode_type_stats(*records);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index's type histogram");
}

Result<std::optional<std::vector<IndexedTypeHolder>>> PointIndex::type_holders(
    std::span<const TypeStats> histogram) try {
  const L::Counts& c = pieces_->facts().counts;
  if ((c.flags & L::kFlagHolders) == 0) return std::optional<std::vector<IndexedTypeHolder>>();
  auto bytes = pieces_->whole_array(L::kHolders);
  if (!bytes) return bytes.error();
  auto rows =
      detail::decode_type_holders(detail::split_type_tables(*bytes, c).first, c.holder_rows, c.holder_text, histogram);
  if (!rows) return rows.error();
  return std::optional<std::vector<IndexedTypeHolder>>(std::move(rows).value());
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index's holder table");
}

}  // namespace gcsnap
