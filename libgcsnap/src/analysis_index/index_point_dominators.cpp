// The objects that retain the most, from an analysis index read a piece at a time (PointIndex,
// format-spec.md §12.4 item 7): a pass over the retained sizes in node order with a bounded
// top-N, then the rows' columns by point reads. The same rows as top_retainer_chains and
// DominatorTree::top_retainers over the index read whole. Unfolded, the immediate dominators
// and type ids pass by a piece at a time too; folded, they are held whole, as a chain's steps
// go anywhere in the arrays.
#include <algorithm>
#include <bit>
#include <memory>
#include <functional>
#include <new>
#include <system_error>
#include <thread>
#include <utility>

#include "analysis_index/index_largest_heads.hpp"
#include "analysis_index/index_pieces.hpp"
#include "gcsnap/analysis_index.hpp"
#include "platform/memory_map.hpp"

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

// The type ids and immediate dominators held whole (4 B per object each): whether an object
// folds into its dominator (both of one type), and where a chain's head is, are then read from
// memory, never from a piece anywhere in an array.
struct ChainColumns {
  std::unique_ptr<uint32_t[]> type_values, idom_values;  // not zeroed: every element is decoded
  std::span<uint32_t> type, idom;
  std::vector<uint64_t> kept, folds;  // bit V: reachable V of a kept type; and it folds
};

bool has_bit(const std::vector<uint64_t>& bits, uint64_t v) { return ((bits[v >> 6] >> (v & 63)) & 1) != 0; }

// Run FIRST on a second thread, if one can be had, while SECOND runs on this one. Neither throws.
template <typename First, typename Second>
void run_both(First& first, Second& second) {
  std::thread helper;
  try {
    helper = std::thread(std::ref(first));
  } catch (const std::system_error&) {
  }
  second();
  if (helper.joinable()) helper.join();
  else first();
}

// Nodes [FROM, TO): the N largest heads (nodes that do not fold into their dominator) of TYPES
// into HEADS. The retained sizes pass by a piece at a time in node order.
Status rank_heads(detail::IndexPieces& ix, const ChainColumns& c, uint64_t from, uint64_t to, size_t n,
                  std::span<const uint32_t> types, std::vector<Ranked>& heads) try {
  InOrder retained(ix, L::kRetained);
  const uint64_t nodes = c.idom.size();
  for (uint64_t v = from; v < to; ++v) {
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
  return Status();
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

// The N largest of NODES by RANK(from, to, kept) over two halves on two threads, largest first.
// Split at a piece of the retained sizes, so that no piece of them is decoded twice.
template <typename Rank>
Result<std::vector<Ranked>> rank_in_halves(uint64_t nodes, size_t n, Rank rank) try {
  constexpr uint64_t kPerPiece = detail::kFrameBytes / 8;
  const uint64_t mid = std::min(nodes, (nodes / 2 + kPerPiece / 2) / kPerPiece * kPerPiece);
  std::vector<Ranked> low, high;
  Status low_status, high_status;
  auto first = [&] { high_status = rank(mid, nodes, high); };
  auto second = [&] { low_status = rank(0, mid, low); };
  run_both(first, second);
  if (!low_status.is_ok()) return low_status.error();
  if (!high_status.is_ok()) return high_status.error();
  low.insert(low.end(), high.begin(), high.end());
  std::sort(low.begin(), low.end(), larger);
  if (low.size() > n) low.resize(n);
  return low;
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

// The N largest heads of TYPES, largest first.
Result<std::vector<Ranked>> largest_heads(detail::IndexPieces& ix, const ChainColumns& c, size_t n,
                                          std::span<const uint32_t> types) {
  if (Status s = ix.locate(L::kRetained); !s.is_ok()) return s.error();
  return rank_in_halves(c.idom.size(), n, [&](uint64_t from, uint64_t to, std::vector<Ranked>& heads) {
    return rank_heads(ix, c, from, to, n, types, heads);
  });
}

// Nodes [FROM, TO): the N largest objects of TYPES into HEADS (--no-fold: every object is a
// row). The retained sizes pass a piece at a time; an object too small to be kept is never
// looked at further, so the dominators' and types' pieces are read only around candidates
// (unreachable objects retain 0 and are told apart by their dominator).
Status rank_objects(detail::IndexPieces& ix, uint64_t from, uint64_t to, size_t n, std::span<const uint32_t> types,
                    std::vector<Ranked>& heads) try {
  InOrder retained(ix, L::kRetained), idom(ix, L::kIdom), type(ix, L::kTypeIds);
  for (uint64_t v = from; v < to; ++v) {
    uint64_t d = 0, r = 0, t = 0;
    if (!retained.get(v, r)) return retained.error();
    const Ranked x{r, static_cast<NodeIndex>(v)};
    if (heads.size() == n && !larger(x, heads.front())) continue;
    if (!idom.get(v, d)) return idom.error();
    if (d == kNoNode) continue;
    if (!type.get(v, t)) return type.error();
    if (!types.empty() && !std::binary_search(types.begin(), types.end(), static_cast<uint32_t>(t))) continue;
    offer(heads, n, x);
  }
  return Status();
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

// The N largest objects of TYPES, largest first.
Result<std::vector<Ranked>> largest_objects(detail::IndexPieces& ix, size_t n, std::span<const uint32_t> types) {
  for (size_t which : {L::kRetained, L::kIdom, L::kTypeIds})
    if (Status s = ix.locate(which); !s.is_ok()) return s.error();
  return rank_in_halves(ix.nodes(), n, [&](uint64_t from, uint64_t to, std::vector<Ranked>& heads) {
    return rank_objects(ix, from, to, n, types, heads);
  });
}

// Which type ids are kept, by their low 16 bits: the one kept type with those bits, or a search
// when two share them. Looked up without a branch for most objects (of no kept type).
struct KeptTypes {
  struct Slot {
    uint32_t type = 0;
    uint32_t state = 0;  // 0: no kept type, 1: TYPE, 2: several (search)
  };
  std::vector<uint32_t> sorted;
  std::vector<Slot> slots = std::vector<Slot>(65536);

  explicit KeptTypes(std::vector<uint32_t> types) : sorted(std::move(types)) {
    for (uint32_t t : sorted) {
      Slot& s = slots[t & 0xFFFF];
      s.state = s.state == 0 ? 1 : 2;
      s.type = t;
    }
  }
  uint64_t kept(uint32_t t) const {
    const Slot& s = slots[t & 0xFFFF];
    if (s.state == 2) return std::binary_search(sorted.begin(), sorted.end(), t) ? 1 : 0;
    return static_cast<uint64_t>(s.state == 1) & static_cast<uint64_t>(s.type == t);
  }
};

// Nodes [FROM, TO) (FROM a multiple of 64): the bits of C.kept, a pass in node order.
void mark_kept(ChainColumns& c, uint64_t from, uint64_t to, const KeptTypes& kept) {
  for (uint64_t word = from >> 6; word < (to + 63) >> 6; ++word) {
    uint64_t bits = 0;
    const uint64_t last = std::min(to, (word + 1) * 64);
    for (uint64_t v = word * 64; v < last; ++v)
      bits |= (kept.kept(c.type[v]) & static_cast<uint64_t>(c.idom[v] != kNoNode)) << (v & 63);
    c.kept[word] = bits;
  }
}

// Nodes [FROM, TO) (FROM a multiple of 64): the bits of C.folds, once C.kept is whole. A kept
// node folds only into a kept node (of its type), so the dominator's bit (8 B per 64 objects,
// mostly in cache) is looked at first and its type (anywhere in 4 B per object) seldom.
void mark_folds(ChainColumns& c, uint64_t from, uint64_t to) {
  const uint64_t nodes = c.idom.size();
  for (uint64_t word = from >> 6; word < (to + 63) >> 6; ++word) {
    for (uint64_t bits = c.kept[word]; bits != 0; bits &= bits - 1) {
      const uint64_t v = word * 64 + static_cast<uint64_t>(std::countr_zero(bits));
      const uint32_t d = c.idom[v];  // d: a node, not the roots
      if (d < nodes && has_bit(c.kept, d) && c.type[d] == c.type[v]) c.folds[word] |= uint64_t{1} << (v & 63);
    }
  }
}

// How many objects each head's chain holds (top_retainer_chains): every reachable object of a
// head's type (marked on two threads) walks up the dominators while they fold, to its head, and
// the dominator of each object walked over is then set to that head (path compression: it still
// folds into an object of its type, of the same chain), so that each is walked over about once.
// Changes C.idom.
Result<std::vector<uint64_t>> chain_lengths(ChainColumns& c, const std::vector<Ranked>& heads) try {
  const uint64_t nodes = c.idom.size();
  std::vector<uint32_t> kept_types;
  for (const Ranked& h : heads) kept_types.push_back(c.type[h.second]);
  std::sort(kept_types.begin(), kept_types.end());
  kept_types.erase(std::unique(kept_types.begin(), kept_types.end()), kept_types.end());
  const KeptTypes kept(kept_types);
  c.kept.assign(static_cast<size_t>((nodes + 63) / 64), 0);
  c.folds.assign(c.kept.size(), 0);
  const uint64_t mid = nodes / 2 / 64 * 64;
  auto first = [&]() noexcept { mark_kept(c, mid, nodes, kept); };
  auto second = [&]() noexcept { mark_kept(c, 0, mid, kept); };
  run_both(first, second);
  auto first_folds = [&]() noexcept { mark_folds(c, mid, nodes); };
  auto second_folds = [&]() noexcept { mark_folds(c, 0, mid); };
  run_both(first_folds, second_folds);
  std::vector<NodeIndex> by_node;
  for (const Ranked& h : heads) by_node.push_back(h.second);
  std::sort(by_node.begin(), by_node.end());
  std::vector<uint64_t> count(by_node.size(), 0);
  for (size_t word = 0; word < c.kept.size(); ++word) {
    for (uint64_t bits = c.kept[word]; bits != 0; bits &= bits - 1) {
      const uint64_t v = uint64_t{word} * 64 + static_cast<uint64_t>(std::countr_zero(bits));
      uint64_t h = v;
      for (uint64_t steps = 0; has_bit(c.folds, h); h = c.idom[h])  // a folding node's dominator is a node
        if (++steps > nodes) return make_error(ErrorCode::CorruptSection, "analysis index dominators form a cycle");
      for (uint64_t w = v; w != h;) {
        const uint32_t next = c.idom[w];
        c.idom[w] = static_cast<uint32_t>(h);
        w = next;
      }
      const auto it = std::lower_bound(by_node.begin(), by_node.end(), static_cast<NodeIndex>(h));
      if (it != by_node.end() && *it == h) ++count[static_cast<size_t>(it - by_node.begin())];
    }
  }
  std::vector<uint64_t> out;
  for (const Ranked& h : heads)
    out.push_back(count[static_cast<size_t>(std::lower_bound(by_node.begin(), by_node.end(), h.second) - by_node.begin())]);
  return out;
} catch (const std::bad_alloc&) {
  return out_of_memory();
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
  const uint64_t nodes = ix.nodes();
  const size_t arrays[2] = {L::kTypeIds, L::kIdom};
  for (size_t which : arrays) {
    if (Status s = ix.locate(which); !s.is_ok()) return s.error();
    if (ix.facts().place.bytes[which] != 4 * nodes) return make_error(ErrorCode::CorruptSection, "analysis index array length");
  }
  c.type_values = std::make_unique_for_overwrite<uint32_t[]>(static_cast<size_t>(nodes));
  c.idom_values = std::make_unique_for_overwrite<uint32_t[]>(static_cast<size_t>(nodes));
  // Fresh and written whole: faulted in by one call each, not a trap per page.
  platform::prefault_for_write(c.type_values.get(), static_cast<size_t>(4 * nodes));
  platform::prefault_for_write(c.idom_values.get(), static_cast<size_t>(4 * nodes));
  c.type = {c.type_values.get(), static_cast<size_t>(nodes)};
  c.idom = {c.idom_values.get(), static_cast<size_t>(nodes)};
  auto bytes = [&](size_t which) {  // decoded in place: indexes are read on little-endian hosts only
    return std::span<unsigned char>(reinterpret_cast<unsigned char*>(which == L::kIdom ? c.idom.data() : c.type.data()),
                                    static_cast<size_t>(4 * nodes));
  };
  // Both arrays decoded on two threads, each the first or the second half of each array's
  // pieces, each piece checked as it is decoded (a point lookup's checks, §12.4 item 7: no
  // second pass over 8 B per object to hash them whole).
  Status part[2];
  auto decode = [&](int half) noexcept {
    for (size_t which : arrays) {
      const size_t pieces = ix.piece_count(which), split = pieces / 2;
      if (part[half].is_ok())
        part[half] = ix.decode_checked_pieces(which, half == 0 ? 0 : split, half == 0 ? split : pieces, bytes(which));
    }
  };
  auto decode_high = [&]() noexcept { decode(1); };
  auto decode_low = [&]() noexcept { decode(0); };
  run_both(decode_high, decode_low);
  for (const Status& s : part)
    if (!s.is_ok()) return s.error();
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
  if (fold) {
    // From the largest heads (minor 3) when they hold the answer: 32 KB, not 16 B per object.
    auto heads = largest_heads();
    if (!heads) return heads.error();
    if (*heads) {
      auto rows = detail::retainers_from_heads(ix, **heads, n, types);
      if (!rows) return rows.error();
      if (*rows) return std::move(**rows);
    }
    return folded_rows(ix, n, types);
  }
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
