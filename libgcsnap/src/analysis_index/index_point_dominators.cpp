// The objects that retain the most, from an analysis index read a piece at a time (PointIndex,
// format-spec.md §12.4 item 7): a pass over the retained sizes in node order with a bounded
// top-N, then the rows' columns by point reads. The same rows as top_retainer_chains and
// DominatorTree::top_retainers over the index read whole. Unfolded, the immediate dominators
// and type ids pass by a piece at a time too; folded, they are held whole, as a chain's steps
// go anywhere in the arrays.
#include <algorithm>
#include <new>
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

// Offer X to HEADS, the N largest so far (a heap whose front is the smallest kept).
void offer(std::vector<Ranked>& heads, size_t n, const Ranked& x) {
  if (heads.size() < n) {
    heads.push_back(x);
    std::push_heap(heads.begin(), heads.end(), larger);
  } else if (larger(x, heads.front())) {
    std::pop_heap(heads.begin(), heads.end(), larger);
    heads.back() = x;
    std::push_heap(heads.begin(), heads.end(), larger);
  }
}

// The N largest objects of TYPES, largest first (--no-fold: every object is a row).
Result<std::vector<Ranked>> largest_objects(detail::IndexPieces& ix, size_t n, std::span<const uint32_t> types) {
  InOrder retained(ix, L::kRetained), idom(ix, L::kIdom), type(ix, L::kTypeIds);
  std::vector<Ranked> heads;
  for (uint64_t v = 0; v < ix.nodes(); ++v) {
    uint64_t d = 0, r = 0, t = 0;
    if (!idom.get(v, d)) return idom.error();
    if (d == kNoNode) continue;
    if (!retained.get(v, r)) return retained.error();
    const Ranked x{r, static_cast<NodeIndex>(v)};
    if (heads.size() == n && !larger(x, heads.front())) continue;
    if (!type.get(v, t)) return type.error();
    if (!types.empty() && !std::binary_search(types.begin(), types.end(), static_cast<uint32_t>(t))) continue;
    offer(heads, n, x);
  }
  std::sort(heads.begin(), heads.end(), larger);
  return heads;
}

// The type ids and immediate dominators held whole (4 B per object each): whether an object
// folds into its dominator (both of one type), and where a chain's head is, are then read from
// memory, never from a piece anywhere in an array.
struct ChainColumns {
  std::vector<uint32_t> type, idom;
};

// The N largest heads (objects that do not fold into their dominator) of TYPES, largest first:
// the retained sizes pass by a piece at a time in node order.
Result<std::vector<Ranked>> largest_heads(detail::IndexPieces& ix, const ChainColumns& c, size_t n,
                                          std::span<const uint32_t> types) {
  InOrder retained(ix, L::kRetained);
  std::vector<Ranked> heads;
  const uint64_t nodes = c.idom.size();
  for (uint64_t v = 0; v < nodes; ++v) {
    const uint32_t d = c.idom[v];
    if (d == kNoNode) continue;
    uint64_t r = 0;
    if (!retained.get(v, r)) return retained.error();
    const Ranked x{r, static_cast<NodeIndex>(v)};
    // Smaller than the smallest of N kept: no result, whatever it folds into.
    if (heads.size() == n && !larger(x, heads.front())) continue;
    const uint32_t t = c.type[v];
    if (d < nodes && c.type[d] == t) continue;  // folds (d: a node, not the roots)
    if (!types.empty() && !std::binary_search(types.begin(), types.end(), t)) continue;
    offer(heads, n, x);
  }
  std::sort(heads.begin(), heads.end(), larger);
  return heads;
}

// How many objects each head's chain holds (top_retainer_chains): every reachable object of a
// head's type walks up the dominators while they fold, to its head, and the dominator of each
// object walked over is then set to that head (path compression: it still folds into an object
// of its type, of the same chain), so that each object is walked over about once. Changes IDOM.
Result<std::vector<uint64_t>> chain_lengths(ChainColumns& c, const std::vector<Ranked>& heads) {
  const std::vector<uint32_t>& type = c.type;
  std::vector<uint32_t>& idom = c.idom;
  const uint64_t nodes = idom.size();
  std::vector<uint32_t> kept_types;
  for (const Ranked& h : heads) kept_types.push_back(type[h.second]);
  std::sort(kept_types.begin(), kept_types.end());
  kept_types.erase(std::unique(kept_types.begin(), kept_types.end()), kept_types.end());
  // A first look by the low 16 bits of the type id: most objects are of no kept type.
  std::vector<uint64_t> maybe(1024, 0);
  for (uint32_t t : kept_types) maybe[(t & 0xFFFF) >> 6] |= uint64_t{1} << (t & 63);
  std::vector<NodeIndex> by_node;
  for (const Ranked& h : heads) by_node.push_back(h.second);
  std::sort(by_node.begin(), by_node.end());
  std::vector<uint64_t> count(by_node.size(), 0);
  for (uint64_t v = 0; v < nodes; ++v) {
    if (idom[v] == kNoNode) continue;
    const uint32_t t = type[v];
    if (((maybe[(t & 0xFFFF) >> 6] >> (t & 63)) & 1) == 0) continue;
    if (!std::binary_search(kept_types.begin(), kept_types.end(), t)) continue;
    uint64_t h = v, steps = 0;
    for (uint32_t up = idom[h]; up < nodes && type[up] == t; up = idom[h]) {
      h = up;
      if (++steps > nodes) return make_error(ErrorCode::CorruptSection, "analysis index dominators form a cycle");
    }
    for (uint64_t w = v; w != h;) {
      const uint32_t next = idom[w];
      idom[w] = static_cast<uint32_t>(h);
      w = next;
    }
    const auto it = std::lower_bound(by_node.begin(), by_node.end(), static_cast<NodeIndex>(h));
    if (it != by_node.end() && *it == h) ++count[static_cast<size_t>(it - by_node.begin())];
  }
  std::vector<uint64_t> out;
  for (const Ranked& h : heads)
    out.push_back(count[static_cast<size_t>(std::lower_bound(by_node.begin(), by_node.end(), h.second) - by_node.begin())]);
  return out;
}

// HEAD's row: its columns, depth and immediate dominator (DominatorTree::depth's bounded walk),
// the dominators read from IDOM when it is given (held whole), else from pieces.
Result<IndexedRetainer> retainer_row(detail::IndexPieces& ix, const Ranked& head, uint64_t chain,
                                     std::span<const uint32_t> idom) {
  auto dominator_of = [&](uint64_t x) -> Result<uint64_t> {
    if (!idom.empty()) return uint64_t{idom[x]};
    return ix.element(L::kIdom, x);
  };
  IndexedRetainer row;
  auto o = ix.object(head.second);
  if (!o) return o.error();
  row.object = *o;
  row.chain = chain;
  row.retained = head.first;
  auto d = dominator_of(head.second);
  if (!d) return d.error();
  for (uint64_t x = *d; x != kVirtualRoot && x != kNoNode && x < ix.nodes() && row.depth < ix.nodes();) {
    ++row.depth;
    auto up = dominator_of(x);
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

// The folded rows: heads ranked, their rows read (before chain_lengths changes the dominators),
// then the chains counted.
Result<std::vector<IndexedRetainer>> folded_rows(detail::IndexPieces& ix, size_t n, std::span<const uint32_t> types) {
  ChainColumns c;
  auto type = ix.whole_u32(L::kTypeIds);
  if (!type) return type.error();
  c.type = std::move(type).value();
  auto idom = ix.whole_u32(L::kIdom);
  if (!idom) return idom.error();
  c.idom = std::move(idom).value();
  if (c.type.size() != c.idom.size()) return make_error(ErrorCode::CorruptSection, "analysis index array length");
  auto heads = largest_heads(ix, c, n, types);
  if (!heads) return heads.error();
  std::vector<IndexedRetainer> rows;
  for (const Ranked& h : *heads) {
    auto row = retainer_row(ix, h, 1, c.idom);
    if (!row) return row.error();
    rows.push_back(*row);
  }
  auto lengths = chain_lengths(c, *heads);
  if (!lengths) return lengths.error();
  for (size_t i = 0; i < rows.size(); ++i) rows[i].chain = (*lengths)[i];
  return rows;
}

}  // namespace

uint64_t PointIndex::reachable_count() const noexcept { return pieces_->facts().counts.preorder; }
uint64_t PointIndex::reachable_bytes() const noexcept { return pieces_->facts().reachable_bytes; }
uint64_t PointIndex::unreachable_bytes() const noexcept { return pieces_->facts().unreachable_bytes; }

Result<std::vector<IndexedRetainer>> PointIndex::top_retainers(size_t n, std::span<const uint32_t> types, bool fold) try {
  if (n == 0) return make_error(ErrorCode::InvalidArgument, "top_retainers needs a count");
  detail::IndexPieces& ix = *pieces_;
  if (fold) return folded_rows(ix, n, types);
  auto heads = largest_objects(ix, n, types);
  if (!heads) return heads.error();
  std::vector<IndexedRetainer> rows;
  for (const Ranked& h : *heads) {
    auto row = retainer_row(ix, h, 1, {});
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
