// The dominator tree's largest heads (index_largest_heads.hpp): what `dominators --top N` ranks,
// kept so that a reader ranks from 32 KB instead of 16 bytes per object.
#include "analysis_index/index_largest_heads.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>

#include "analysis_index/index_nearest_instances.hpp"
#include "analysis_index/index_pieces.hpp"
#include "gcsnap/retainer_chains.hpp"

namespace gcsnap::detail {

namespace L = index_layout;

namespace {

Error corrupt() { return make_error(ErrorCode::CorruptSection, "analysis index largest heads out of range or order"); }

template <typename T>
void put(unsigned char* at, T value) {
  std::memcpy(at, &value, sizeof value);
}

constexpr NodeIndex kPadding = 0xFFFFFFFFu;

}  // namespace

std::pair<std::span<const unsigned char>, std::span<const unsigned char>> split_after_holders(
    std::span<const unsigned char> rest, const L::Counts& c) noexcept {
  const size_t nearest = std::min(rest.size(), static_cast<size_t>(L::kNearestRecord * c.nearest_rows));
  return {rest.first(nearest), rest.subspan(nearest)};
}

Result<std::vector<LargestHead>> find_largest_heads(const HeapGraph& graph, const DominatorTree& dom) {
  auto chains = top_retainer_chains(graph, dom, static_cast<size_t>(L::kHeadsKept), {});
  if (!chains) return chains.error();
  std::vector<LargestHead> heads;
  heads.reserve(chains->size());
  for (const RetainerChain& c : *chains)
    heads.push_back(LargestHead{c.head, graph.type_id(c.head), dom.retained_size(c.head), c.length,
                                dom.immediate_dominator(c.head), dom.depth(c.head)});
  return heads;
}

void encode_largest_heads(std::span<const LargestHead> heads, std::vector<unsigned char>& out) {
  size_t at = out.size();
  out.resize(at + static_cast<size_t>(L::kHeadRecord * L::kHeadsKept), 0);
  for (size_t i = 0; i < L::kHeadsKept; ++i, at += L::kHeadRecord) {
    if (i >= heads.size()) {
      put(out.data() + at + L::kHeadNode, kPadding);
      continue;
    }
    const LargestHead& h = heads[i];
    put(out.data() + at + L::kHeadNode, h.node);
    put(out.data() + at + L::kHeadType, h.type_id);
    put(out.data() + at + L::kHeadRetained, h.retained);
    put(out.data() + at + L::kHeadChain, h.chain);
    put(out.data() + at + L::kHeadIdom, h.dominator);
    put(out.data() + at + L::kHeadDepth, h.depth);
  }
}

Result<std::vector<LargestHead>> decode_largest_heads(std::span<const unsigned char> bytes, uint64_t nodes) {
  if (bytes.size() != L::kHeadRecord * L::kHeadsKept) return corrupt();
  std::vector<LargestHead> heads;
  bool padding = false;
  for (size_t at = 0; at < bytes.size(); at += L::kHeadRecord) {
    const unsigned char* rec = bytes.data() + at;
    const LargestHead h{L::load<uint32_t>(rec + L::kHeadNode),     L::load<uint32_t>(rec + L::kHeadType),
                        L::load<uint64_t>(rec + L::kHeadRetained), L::load<uint64_t>(rec + L::kHeadChain),
                        L::load<uint32_t>(rec + L::kHeadIdom),     L::load<uint32_t>(rec + L::kHeadDepth)};
    if (padding || h.node == kPadding) {
      // Padding: node 0xFFFFFFFF, every other byte zero, only after the heads.
      padding = true;
      if (h.node != kPadding || std::any_of(rec + 4, rec + L::kHeadRecord, [](unsigned char b) { return b != 0; }))
        return corrupt();
      continue;
    }
    if (h.node >= nodes || h.chain == 0 || (h.dominator >= nodes && h.dominator != kVirtualRoot)) return corrupt();
    if (!heads.empty()) {
      const LargestHead& p = heads.back();
      if (!(p.retained > h.retained || (p.retained == h.retained && p.node < h.node))) return corrupt();
    }
    heads.push_back(h);
  }
  return heads;
}

Result<std::optional<std::vector<IndexedRetainer>>> retainers_from_heads(IndexPieces& ix,
                                                                         std::span<const LargestHead> heads, size_t n,
                                                                         std::span<const uint32_t> types) {
  std::vector<const LargestHead*> chosen;
  for (const LargestHead& h : heads) {
    if (chosen.size() == n) break;
    if (types.empty() || std::binary_search(types.begin(), types.end(), h.type_id)) chosen.push_back(&h);
  }
  // Fewer than N: the answer only when every head is kept (padding follows them).
  if (chosen.size() < n && heads.size() >= L::kHeadsKept) return std::optional<std::vector<IndexedRetainer>>();
  std::vector<IndexedRetainer> rows;
  for (const LargestHead* h : chosen) {
    IndexedRetainer row;
    auto o = ix.object(h->node);
    if (!o) return o.error();
    if (o->type_id != h->type_id) return corrupt();
    row.object = *o;
    row.chain = h->chain;
    row.retained = h->retained;
    row.depth = h->depth;
    if (h->dominator != kVirtualRoot) {
      auto d = ix.object(h->dominator);
      if (!d) return d.error();
      row.dominator = *d;
    }
    rows.push_back(row);
  }
  return std::optional<std::vector<IndexedRetainer>>(std::move(rows));
}

}  // namespace gcsnap::detail

namespace gcsnap {

namespace L = index_layout;

Result<std::optional<std::vector<LargestHead>>> PointIndex::largest_heads() try {
  const L::Counts& c = pieces_->facts().counts;
  if ((c.flags & L::kFlagHeads) == 0) return std::optional<std::vector<LargestHead>>();
  auto bytes = pieces_->whole_array(L::kHolders);
  if (!bytes) return bytes.error();
  auto heads = detail::decode_largest_heads(
      detail::split_after_holders(detail::split_type_tables(*bytes, c).second, c).second, c.nodes);
  if (!heads) return heads.error();
  return std::optional<std::vector<LargestHead>>(std::move(heads).value());
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index's largest heads");
}

}  // namespace gcsnap
