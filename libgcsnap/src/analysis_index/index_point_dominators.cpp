// The objects that retain the most, from an analysis index read a piece at a time (PointIndex,
// format-spec.md §12.4 item 7): a pass over the retained sizes, immediate dominators and type
// ids in node order with a bounded top-N, then the rows' columns by point reads. The same rows
// as top_retainer_chains and DominatorTree::top_retainers over the index read whole.
#include <algorithm>
#include <new>
#include <unordered_map>
#include <utility>

#include "analysis_index/index_pieces.hpp"
#include "gcsnap/analysis_index.hpp"

namespace gcsnap {

namespace L = index_layout;

namespace {

Error out_of_memory() { return make_error(ErrorCode::OutOfMemory, "out of memory reading the analysis index"); }

// One node-indexed array read in node order, a piece at a time into a buffer of its own (the
// pieces of the point reads in between are cached apart).
class InOrder {
 public:
  InOrder(detail::IndexPieces& ix, size_t which)
      : ix_(ix), which_(which), width_(L::coding(which, ix.facts().place.wide).width) {}

  // Element I into VALUE; false on a damaged piece (error()).
  bool get(uint64_t i, uint64_t& value) {
    if (i < first_ || i - first_ >= count_) {
      const size_t k = static_cast<size_t>(i * width_ / detail::kFrameBytes);
      if (Status s = ix_.read_piece(which_, k, buffer_); !s.is_ok()) {
        error_ = s.error();
        return false;
      }
      first_ = uint64_t{k} * (detail::kFrameBytes / width_);
      count_ = buffer_.size() / width_;
      if (i - first_ >= count_) {
        error_ = make_error(ErrorCode::CorruptSection, "analysis index element out of range");
        return false;
      }
    }
    const unsigned char* p = buffer_.data() + (i - first_) * width_;
    value = width_ == 8 ? L::load<uint64_t>(p) : width_ == 4 ? uint64_t{L::load<uint32_t>(p)} : uint64_t{*p};
    return true;
  }
  const Error& error() const noexcept { return error_; }

 private:
  detail::IndexPieces& ix_;
  size_t which_;
  size_t width_;
  std::vector<unsigned char> buffer_;
  uint64_t first_ = 0, count_ = 0;
  Error error_ = make_error(ErrorCode::CorruptSection, "analysis index");
};

using Ranked = std::pair<uint64_t, NodeIndex>;  // (retained size, node)

bool larger(const Ranked& a, const Ranked& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; }

// Whether V (of type TYPE, immediate dominator D) folds into D: both of one type.
Result<bool> folds(detail::IndexPieces& ix, uint64_t type, uint64_t d) {
  if (d == kVirtualRoot || d == kNoNode) return false;
  auto td = ix.element(L::kTypeIds, d);
  if (!td) return td.error();
  return *td == type;
}

// The N largest heads (FOLD: nodes that do not fold into their dominator) of TYPES, largest first.
Result<std::vector<Ranked>> largest_heads(detail::IndexPieces& ix, size_t n, std::span<const uint32_t> types, bool fold) {
  InOrder retained(ix, L::kRetained), idom(ix, L::kIdom), type(ix, L::kTypeIds);
  std::vector<Ranked> heads;  // a heap whose front is the smallest kept
  for (uint64_t v = 0; v < ix.nodes(); ++v) {
    uint64_t d = 0, r = 0, t = 0;
    if (!idom.get(v, d)) return idom.error();
    if (d == kNoNode) continue;
    if (!retained.get(v, r)) return retained.error();
    const Ranked x{r, static_cast<NodeIndex>(v)};
    // Smaller than the smallest of N kept: no result, whatever it folds into.
    if (heads.size() == n && !larger(x, heads.front())) continue;
    if (!type.get(v, t)) return type.error();
    if (fold) {
      auto f = folds(ix, t, d);
      if (!f) return f.error();
      if (*f) continue;
    }
    if (!types.empty() && !std::binary_search(types.begin(), types.end(), static_cast<uint32_t>(t))) continue;
    if (heads.size() < n) {
      heads.push_back(x);
      std::push_heap(heads.begin(), heads.end(), larger);
    } else {
      std::pop_heap(heads.begin(), heads.end(), larger);
      heads.back() = x;
      std::push_heap(heads.begin(), heads.end(), larger);
    }
  }
  std::sort(heads.begin(), heads.end(), larger);
  return heads;
}

// How many objects each head's chain holds (top_retainer_chains): every reachable object of a
// head's type walks up the dominators while they fold; the folded objects met are remembered.
Result<std::vector<uint64_t>> chain_lengths(detail::IndexPieces& ix, const std::vector<Ranked>& heads) {
  std::vector<uint32_t> kept_types;
  for (const Ranked& h : heads) {
    auto t = ix.element(L::kTypeIds, h.second);
    if (!t) return t.error();
    kept_types.push_back(static_cast<uint32_t>(*t));
  }
  std::sort(kept_types.begin(), kept_types.end());
  kept_types.erase(std::unique(kept_types.begin(), kept_types.end()), kept_types.end());
  std::vector<NodeIndex> by_node;
  for (const Ranked& h : heads) by_node.push_back(h.second);
  std::sort(by_node.begin(), by_node.end());
  std::vector<uint64_t> count(by_node.size(), 0);
  // Which kept type each object has (kNone: none; kOther: one past the first 254), then which
  // objects fold: two passes in node order, so that neither needs a read of a dominator's type
  // (a piece anywhere in the array) but for the 255th kept type on.
  constexpr uint8_t kNone = 0, kOther = 255;
  std::vector<uint8_t> kept(static_cast<size_t>(ix.nodes()), kNone);
  {
    InOrder type(ix, L::kTypeIds);
    for (uint64_t v = 0; v < ix.nodes(); ++v) {
      uint64_t t = 0;
      if (!type.get(v, t)) return type.error();
      const auto it = std::lower_bound(kept_types.begin(), kept_types.end(), static_cast<uint32_t>(t));
      if (it == kept_types.end() || *it != t) continue;
      kept[v] = static_cast<uint8_t>(std::min<size_t>(static_cast<size_t>(it - kept_types.begin()) + 1, kOther));
    }
  }
  std::vector<bool> folded(static_cast<size_t>(ix.nodes()), false);
  {
    InOrder idom(ix, L::kIdom);
    for (uint64_t v = 0; v < ix.nodes(); ++v) {
      uint64_t d = 0;
      if (!idom.get(v, d)) return idom.error();
      if (kept[v] == kNone || d == kVirtualRoot || d == kNoNode || kept[d] != kept[v]) continue;
      if (kept[v] == kOther) {
        auto tv = ix.element(L::kTypeIds, v);
        if (!tv) return tv.error();
        auto f = folds(ix, *tv, d);
        if (!f) return f.error();
        if (!*f) continue;
      }
      folded[v] = true;
    }
  }
  std::unordered_map<NodeIndex, NodeIndex> head_of;  // folded objects met so far -> their head
  std::vector<NodeIndex> path;
  InOrder idom(ix, L::kIdom);
  for (uint64_t v = 0; v < ix.nodes(); ++v) {
    uint64_t d = 0;
    if (!idom.get(v, d)) return idom.error();
    if (d == kNoNode || kept[v] == kNone) continue;
    NodeIndex u = static_cast<NodeIndex>(v), h = kNoNode;
    uint64_t du = d;
    path.clear();
    while (true) {
      if (auto it = head_of.find(u); it != head_of.end()) {
        h = it->second;
        break;
      }
      if (!folded[u]) {
        h = u;
        break;
      }
      if (path.size() >= ix.nodes()) return make_error(ErrorCode::CorruptSection, "analysis index dominators form a cycle");
      path.push_back(u);
      u = static_cast<NodeIndex>(du);
      auto next = ix.element(L::kIdom, u);
      if (!next) return next.error();
      du = *next;
    }
    for (NodeIndex w : path) head_of.emplace(w, h);
    const auto it = std::lower_bound(by_node.begin(), by_node.end(), h);
    if (it != by_node.end() && *it == h) ++count[static_cast<size_t>(it - by_node.begin())];
  }
  std::vector<uint64_t> out;
  for (const Ranked& h : heads)
    out.push_back(count[static_cast<size_t>(std::lower_bound(by_node.begin(), by_node.end(), h.second) - by_node.begin())]);
  return out;
}

// HEAD's row: its columns, depth and immediate dominator (DominatorTree::depth's bounded walk).
Result<IndexedRetainer> retainer_row(detail::IndexPieces& ix, const Ranked& head, uint64_t chain) {
  IndexedRetainer row;
  auto o = ix.object(head.second);
  if (!o) return o.error();
  row.object = *o;
  row.chain = chain;
  row.retained = head.first;
  auto d = ix.element(L::kIdom, head.second);
  if (!d) return d.error();
  for (uint64_t x = *d; x != kVirtualRoot && x != kNoNode && x < ix.nodes() && row.depth < ix.nodes();) {
    ++row.depth;
    auto up = ix.element(L::kIdom, x);
    if (!up) return up.error();
    x = *up;
  }
  if (*d != kVirtualRoot) {
    auto dominator = ix.object(static_cast<NodeIndex>(*d));
    if (!dominator) return dominator.error();
    row.dominator = *dominator;
  }
  return row;
}

}  // namespace

uint64_t PointIndex::reachable_count() const noexcept { return pieces_->facts().counts.preorder; }
uint64_t PointIndex::reachable_bytes() const noexcept { return pieces_->facts().reachable_bytes; }
uint64_t PointIndex::unreachable_bytes() const noexcept { return pieces_->facts().unreachable_bytes; }

Result<std::vector<IndexedRetainer>> PointIndex::top_retainers(size_t n, std::span<const uint32_t> types, bool fold) try {
  if (n == 0) return make_error(ErrorCode::InvalidArgument, "top_retainers needs a count");
  detail::IndexPieces& ix = *pieces_;
  auto heads = largest_heads(ix, n, types, fold);
  if (!heads) return heads.error();
  std::vector<uint64_t> chains(heads->size(), 1);
  if (fold) {
    auto lengths = chain_lengths(ix, *heads);
    if (!lengths) return lengths.error();
    chains = std::move(lengths).value();
  }
  std::vector<IndexedRetainer> rows;
  for (size_t i = 0; i < heads->size(); ++i) {
    auto row = retainer_row(ix, (*heads)[i], chains[i]);
    if (!row) return row.error();
    rows.push_back(*row);
  }
  return rows;
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

Result<std::vector<uint32_t>> PointIndex::type_ids() try {
  auto records = pieces_->whole_array(L::kTypes);
  if (!records) return records.error();
  std::vector<uint32_t> ids;
  for (size_t at = 0; at + L::kTypeRecord <= records->size(); at += L::kTypeRecord) {
    const uint32_t id = L::load<uint32_t>(records->data() + at + L::kTypeId);
    if (!ids.empty() && id <= ids.back())
      return make_error(ErrorCode::CorruptSection, "analysis index type histogram not sorted");
    ids.push_back(id);
  }
  return ids;
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

}  // namespace gcsnap
