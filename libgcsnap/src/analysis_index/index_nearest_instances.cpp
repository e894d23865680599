// Each type's instances nearest to a strong root (index_nearest_instances.hpp): found in one
// pass over the breadth-first search's order, which reaches the nodes level by level, so that
// a type whose kept instances are all nearer than the level at hand is done with.
#include "analysis_index/index_nearest_instances.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "analysis_index/index_largest_heads.hpp"
#include "analysis_index/index_pieces.hpp"

namespace gcsnap::detail {

namespace L = index_layout;

namespace {

Error corrupt() {
  return make_error(ErrorCode::CorruptSection, "analysis index nearest instances out of range or order");
}

template <typename T>
void put(unsigned char* at, T value) {
  std::memcpy(at, &value, sizeof value);
}

// The instances kept of one type: a max-heap of (hops, node) while fewer than the limit or
// while the level at hand may still displace one.
struct Kept {
  uint32_t type_id = 0;
  std::vector<std::pair<uint32_t, NodeIndex>> heap;
};

}  // namespace

std::pair<std::span<const unsigned char>, std::span<const unsigned char>> split_type_tables(
    std::span<const unsigned char> bytes, const L::Counts& c) noexcept {
  const size_t holders = static_cast<size_t>(L::kHolderRecord * c.holder_rows + c.holder_text);
  return {bytes.first(std::min(holders, bytes.size())), bytes.subspan(std::min(holders, bytes.size()))};
}

void encode_nearest_instances(const NearestInstances& nearest, std::vector<unsigned char>& out) {
  size_t at = out.size();
  out.resize(at + nearest.rows.size() * L::kNearestRecord, 0);
  for (const NearestInstance& r : nearest.rows) {
    put(out.data() + at + L::kNearestType, r.type_id);
    put(out.data() + at + L::kNearestNode, r.node);
    put(out.data() + at + L::kNearestHops, r.hops);
    at += L::kNearestRecord;
  }
}

Result<NearestInstances> decode_nearest_instances(std::span<const unsigned char> bytes, uint64_t rows,
                                                  uint64_t per_type, std::span<const TypeStats> histogram,
                                                  uint64_t nodes) {
  if (per_type == 0 || per_type > UINT32_MAX || bytes.size() / L::kNearestRecord != rows ||
      bytes.size() % L::kNearestRecord != 0)
    return corrupt();
  NearestInstances out;
  out.per_type = static_cast<uint32_t>(per_type);
  out.rows.resize(static_cast<size_t>(rows));
  size_t i = 0;
  // Both go by type id: each type of the histogram owns the next min(reached, k) records.
  for (const TypeStats& t : histogram) {
    if (t.unreachable_count > t.count) return corrupt();
    const uint64_t want = std::min(t.count - t.unreachable_count, per_type);
    if (want > rows - i) return corrupt();
    for (uint64_t j = 0; j < want; ++j, ++i) {
      const unsigned char* rec = bytes.data() + i * L::kNearestRecord;
      NearestInstance& r = out.rows[i];
      r = {L::load<uint32_t>(rec + L::kNearestType), L::load<uint32_t>(rec + L::kNearestNode),
           L::load<uint32_t>(rec + L::kNearestHops)};
      if (r.type_id != t.type_id || r.node >= nodes || r.hops >= nodes) return corrupt();
      if (j > 0 && !(std::pair{out.rows[i - 1].hops, out.rows[i - 1].node} < std::pair{r.hops, r.node}))
        return corrupt();
    }
  }
  if (i != rows) return corrupt();
  return out;
}

Result<NearestInstances> find_nearest_instances(std::span<const uint32_t> type_ids, std::span<const NodeIndex> order,
                                                std::span<const size_t> level_ends, uint32_t per_type) try {
  // A table by type id (writers number their types from 1); a larger id leaves the index
  // without the table.
  constexpr uint32_t kMaxTypeId = uint32_t{1} << 24;
  constexpr uint32_t kNone = UINT32_MAX;
  constexpr size_t kAhead = 16;  // the type id of the node this far ahead is fetched meanwhile
  std::vector<uint32_t> slot_of;
  std::vector<Kept> kept;
  uint32_t level = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    while (level < level_ends.size() && i >= level_ends[level]) ++level;
    if (i + kAhead < order.size()) __builtin_prefetch(type_ids.data() + order[i + kAhead]);
    const NodeIndex v = order[i];
    if (v >= type_ids.size()) return make_error(ErrorCode::InvalidArgument, "search order out of range");
    const uint32_t id = type_ids[v];
    if (id >= slot_of.size()) {
      if (id >= kMaxTypeId)
        return make_error(ErrorCode::LimitExceeded, "a type id too large for the nearest instances");
      slot_of.resize(std::max<size_t>(size_t{id} + 1, std::min<size_t>(2 * slot_of.size(), kMaxTypeId)), kNone);
    }
    if (slot_of[id] == kNone) {
      slot_of[id] = static_cast<uint32_t>(kept.size());
      kept.push_back(Kept{id, {}});
    }
    auto& heap = kept[slot_of[id]].heap;
    const std::pair<uint32_t, NodeIndex> here{level, v};
    if (heap.size() < per_type) {
      heap.push_back(here);
      std::push_heap(heap.begin(), heap.end());
    } else if (here < heap.front()) {  // the same level as the farthest kept, a lower node
      std::pop_heap(heap.begin(), heap.end());
      heap.back() = here;
      std::push_heap(heap.begin(), heap.end());
    }
  }
  std::sort(kept.begin(), kept.end(), [](const Kept& a, const Kept& b) { return a.type_id < b.type_id; });
  NearestInstances out;
  out.per_type = per_type;
  for (Kept& k : kept) {
    std::sort_heap(k.heap.begin(), k.heap.end());
    for (const auto& [hops, node] : k.heap) out.rows.push_back({k.type_id, node, hops});
    std::vector<std::pair<uint32_t, NodeIndex>>().swap(k.heap);
  }
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "out of memory finding the nearest instances");
}

}  // namespace gcsnap::detail

namespace gcsnap {

namespace L = index_layout;

Result<std::optional<NearestInstances>> PointIndex::nearest_instances(std::span<const TypeStats> histogram) try {
  const L::Counts& c = pieces_->facts().counts;
  if ((c.flags & L::kFlagNearest) == 0) return std::optional<NearestInstances>();
  auto bytes = pieces_->whole_array(L::kHolders);
  if (!bytes) return bytes.error();
  auto nearest = detail::decode_nearest_instances(
      detail::split_after_holders(detail::split_type_tables(*bytes, c).second, c).first, c.nearest_rows,
                                                  c.nearest_per_type, histogram, c.nodes);
  if (!nearest) return nearest.error();
  return std::optional<NearestInstances>(std::move(nearest).value());
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index's nearest instances");
}

}  // namespace gcsnap
