// Reading an analysis index a piece at a time (format-spec.md §12.4 item 7).
#include "analysis_index/index_pieces.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "format/xxh3_wide.hpp"

#include "analysis_index/index_array_rules.hpp"
#include "analysis_index/index_codec.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/retention.hpp"

namespace gcsnap::detail {

namespace L = index_layout;

namespace {

uint64_t load_width(const unsigned char* p, size_t width) noexcept {
  switch (width) {
    case 8: return L::load<uint64_t>(p);
    case 4: return L::load<uint32_t>(p);
    default: return *p;
  }
}

Error damaged(ErrorCode code, const char* detail) { return make_error(code, detail); }

}  // namespace

size_t IndexPieces::width(size_t which) const noexcept {
  return L::coding(which, facts_.place.wide).width;
}

// The rules of §12.3 that hold within one piece: the pieces a point query reads are checked
// as far as they can be without the rest of their array.
Status IndexPieces::check_piece(size_t which, size_t index, std::span<const unsigned char> bytes) const {
  const uint64_t n = facts_.counts.nodes;
  bool ok = true;
  switch (which) {
    case L::kAddresses: {
      for (size_t at = 8; at < bytes.size(); at += 8) ok = ok && L::load<uint64_t>(&bytes[at]) > L::load<uint64_t>(&bytes[at - 8]);
      if (!ok) return damaged(ErrorCode::CorruptSection, index_rules::kAddressRule);
      break;
    }
    case L::kGenerations:
      for (unsigned char g : bytes) ok = ok && index_rules::is_generation(g);
      if (!ok) return damaged(ErrorCode::CorruptSection, index_rules::kGenerationRule);
      break;
    case L::kIdom:
      for (size_t at = 0; at < bytes.size(); at += 4) {
        const uint32_t d = L::load<uint32_t>(&bytes[at]);
        ok = ok && index_rules::is_dominator(d, n);
      }
      if (!ok) return damaged(ErrorCode::CorruptSection, index_rules::kDominatorRule);
      break;
    case L::kForwardOffsets:
    case L::kReverseOffsets: {
      const size_t w = width(which);
      uint64_t last = 0;
      for (size_t at = 0; at + w <= bytes.size(); at += w) {
        const uint64_t o = load_width(&bytes[at], w);
        ok = ok && o >= last && o <= facts_.counts.edges;
        last = o;
      }
      if (!ok) return damaged(ErrorCode::CorruptSection, "analysis index offsets out of order");
      break;
    }
    case L::kForwardTargets:
    case L::kReverseSources:
      for (size_t at = 0; at < bytes.size(); at += 4) ok = ok && L::load<uint32_t>(&bytes[at]) < n;
      if (!ok) return damaged(ErrorCode::CorruptSection, "analysis index edge out of range");
      break;
    case L::kPathParents:
      for (size_t at = 0; at < bytes.size(); at += 4) {
        const uint32_t p = L::load<uint32_t>(&bytes[at]);
        ok = ok && index_rules::is_path_parent(p, n);
      }
      if (!ok) return damaged(ErrorCode::CorruptSection, index_rules::kPathParentRule);
      break;
    default: break;
  }
  (void)index;
  return Status();
}

Result<std::span<const unsigned char>> IndexPieces::piece(size_t which, size_t index) {
  ++tick_;
  for (Cached& c : cache_)
    if (c.which == which && c.index == index) {
      c.used = tick_;
      return std::span<const unsigned char>(c.bytes);
    }
  Cached* slot = nullptr;
  if (cache_.size() < kCachedPieces) {
    slot = &cache_.emplace_back();
  } else {
    slot = &*std::min_element(cache_.begin(), cache_.end(), [](const Cached& a, const Cached& b) { return a.used < b.used; });
  }
  slot->which = L::kArrayCount;  // never matches until it holds the piece
  slot->used = 0;
  if (Status s = read_piece(which, index, slot->bytes); !s.is_ok()) return s.error();
  slot->which = which;
  slot->index = index;
  slot->used = tick_;
  return std::span<const unsigned char>(slot->bytes);
}

Status IndexPieces::locate(size_t which) {
  if (which >= L::kArrayCount) return damaged(ErrorCode::CorruptSection, "analysis index piece out of range");
  auto& frames = frames_[which];
  if (!frames) {
    frames = split_frames(facts_.coded[which], facts_.place.bytes[which]);
    if (!frames) return damaged(ErrorCode::CorruptSection, "analysis index array frames do not match its length");
  }
  return Status();
}

Status IndexPieces::read_piece(size_t which, size_t index, std::vector<unsigned char>& out) {
  if (Status s = locate(which); !s.is_ok()) return s;
  const auto& frames = frames_[which];
  if (index >= frames->size()) return damaged(ErrorCode::CorruptSection, "analysis index piece out of range");
  const uint64_t from = uint64_t{index} * kFrameBytes;
  out.resize(static_cast<size_t>(std::min<uint64_t>(kFrameBytes, facts_.place.bytes[which] - from)));
  if (!decode_frame((*frames)[index], index, L::coding(which, facts_.place.wide), out))
    return damaged(ErrorCode::ChecksumMismatch, "analysis index array does not decode");
  ++decoded_;
  return check_piece(which, index, out);
}

Result<uint64_t> IndexPieces::element(size_t which, uint64_t i) {
  const size_t w = width(which);
  if (which >= L::kArrayCount || i >= facts_.place.bytes[which] / w)
    return damaged(ErrorCode::CorruptSection, "analysis index element out of range");
  const uint64_t byte = i * w;
  auto bytes = piece(which, static_cast<size_t>(byte / kFrameBytes));
  if (!bytes) return bytes.error();
  const size_t at = static_cast<size_t>(byte % kFrameBytes);
  if (at + w > bytes->size()) return damaged(ErrorCode::CorruptSection, "analysis index element out of range");
  return load_width(bytes->data() + at, w);
}

Result<std::pair<uint64_t, uint64_t>> IndexPieces::edge_range(bool forward, uint64_t v) {
  const size_t which = forward ? L::kForwardOffsets : L::kReverseOffsets;
  auto from = element(which, v);
  if (!from) return from.error();
  auto to = element(which, v + 1);
  if (!to) return to.error();
  // Each piece is checked in order; two pieces meet here.
  if (*from > *to) return damaged(ErrorCode::CorruptSection, "analysis index offsets out of order");
  return std::pair{*from, *to};
}

Result<std::span<const std::pair<NodeIndex, NodeIndex>>> IndexPieces::dependent_edges() {
  if (!dependent_) {
    auto records = whole_array(L::kDependentEdges);
    if (!records) return records.error();
    std::vector<std::pair<NodeIndex, NodeIndex>> edges;
    edges.reserve(records->size() / L::kDependentRecord);
    for (size_t at = 0; at + L::kDependentRecord <= records->size(); at += L::kDependentRecord) {
      const std::pair<NodeIndex, NodeIndex> e{L::load<uint32_t>(records->data() + at + L::kDependentPrimary),
                                              L::load<uint32_t>(records->data() + at + L::kDependentSecondary)};
      if (e.first >= nodes() || e.second >= nodes() || (!edges.empty() && !(edges.back() < e)))
        return damaged(ErrorCode::CorruptSection, "analysis index dependent edges out of order");
      edges.push_back(e);
    }
    dependent_ = std::move(edges);
  }
  return std::span<const std::pair<NodeIndex, NodeIndex>>(*dependent_);
}

Result<uint64_t> IndexPieces::first_address(size_t piece_index) {
  return element(L::kAddresses, uint64_t{piece_index} * (kFrameBytes / 8));
}

Result<std::optional<NodeIndex>> IndexPieces::find_containing(uint64_t address) {
  const uint64_t n = nodes();
  if (n == 0) return std::optional<NodeIndex>();
  constexpr uint64_t kPerPiece = kFrameBytes / 8;
  const size_t pieces = static_cast<size_t>((n + kPerPiece - 1) / kPerPiece);
  // The last piece whose first address is at or below ADDRESS (pieces are in address order):
  // a binary search over the pieces, each probe decoding one piece.
  size_t lo = 0, hi = pieces;  // first(lo) <= address unless lo == 0; first(hi) > address or hi == pieces
  auto first = first_address(0);
  if (!first) return first.error();
  if (*first > address) return std::optional<NodeIndex>();
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    auto f = first_address(mid);
    if (!f) return f.error();
    if (*f <= address) lo = mid;
    else hi = mid;
  }
  auto bytes = piece(L::kAddresses, lo);
  if (!bytes) return bytes.error();
  const size_t count = bytes->size() / 8;
  // The last element at or below ADDRESS within the piece (its first one is).
  size_t a = 0, b = count;  // element a <= address, element b > address (or the end)
  while (b - a > 1) {
    const size_t mid = a + (b - a) / 2;
    if (L::load<uint64_t>(bytes->data() + 8 * mid) <= address) a = mid;
    else b = mid;
  }
  const uint64_t row = uint64_t{lo} * kPerPiece + a;
  const uint64_t start = L::load<uint64_t>(bytes->data() + 8 * a);
  auto size = element(L::kSizes, row);
  if (!size) return size.error();
  // As ObjectTable::find_containing: max(size, 1) gives a zero-size object its own start.
  if (address - start >= std::max<uint64_t>(*size, 1)) return std::optional<NodeIndex>();
  return std::optional<NodeIndex>(static_cast<NodeIndex>(row));
}

Result<std::optional<IndexedObject>> IndexPieces::find_object(uint64_t address) {
  auto node = find_containing(address);
  if (!node) return node.error();
  if (!*node) return std::optional<IndexedObject>();
  auto o = object(**node);
  if (!o) return o.error();
  return std::optional<IndexedObject>(*o);
}

Result<IndexedObject> IndexPieces::object(NodeIndex v) {
  IndexedObject o;
  o.node = v;
  // One piece of each node column and of the dominators, in the order of §12.3.
  const size_t arrays[] = {L::kAddresses, L::kSizes, L::kTypeIds, L::kGenerations, L::kIdom};
  uint64_t e[5] = {};
  for (size_t k = 0; k < 5; ++k) {
    auto got = element(arrays[k], v);
    if (!got) return got.error();
    e[k] = *got;
  }
  o.address = e[0];
  o.size = e[1];
  o.type_id = static_cast<uint32_t>(e[2]);
  o.generation = static_cast<Generation>(e[3]);
  o.reachable = e[4] != kNoNode;
  return o;
}

Status IndexPieces::decode_pieces(size_t which, size_t first, size_t last, std::span<unsigned char> out) {
  if (Status s = locate(which); !s.is_ok()) return s;
  const auto& frames = frames_[which];
  if (out.size() != facts_.place.bytes[which] || last > frames->size())
    return damaged(ErrorCode::InvalidArgument, "analysis index pieces out of range");
  for (size_t f = first; f < last; ++f) {
    const size_t from = f * kFrameBytes;
    const std::span<unsigned char> piece(out.data() + from, std::min(kFrameBytes, out.size() - from));
    if (!decode_frame((*frames)[f], f, L::coding(which, facts_.place.wide), piece))
      return damaged(ErrorCode::ChecksumMismatch, "analysis index array does not decode");
    decoded_.fetch_add(1, std::memory_order_relaxed);
  }
  return Status();
}

Status IndexPieces::decode_checked_pieces(size_t which, size_t first, size_t last, std::span<unsigned char> out) {
  for (size_t f = first; f < last; ++f) {
    if (Status s = decode_pieces(which, f, f + 1, out); !s.is_ok()) return s;
    const size_t from = f * kFrameBytes;
    if (Status s = check_piece(which, f, out.subspan(from, std::min(kFrameBytes, out.size() - from))); !s.is_ok()) return s;
  }
  return Status();
}

Status IndexPieces::check_whole(size_t which, std::span<const unsigned char> out) const {
  if (which >= L::kArrayCount || out.size() != facts_.place.bytes[which])
    return damaged(ErrorCode::InvalidArgument, "analysis index array out of range");
  if (format::xxh3_64(out.data(), out.size()) != facts_.hashes[which])
    return damaged(ErrorCode::ChecksumMismatch, "analysis index array checksum");
  return check_piece(which, 0, out);
}

size_t IndexPieces::piece_count(size_t which) const noexcept {
  return which < L::kArrayCount ? static_cast<size_t>((facts_.place.bytes[which] + kFrameBytes - 1) / kFrameBytes) : 0;
}

Result<std::vector<unsigned char>> IndexPieces::whole_array(size_t which) {
  if (which >= L::kArrayCount) return damaged(ErrorCode::CorruptSection, "analysis index piece out of range");
  // Its frames found first: a length no frames in the file can hold is damage, not an allocation.
  if (Status s = locate(which); !s.is_ok()) return s.error();
  std::vector<unsigned char> out(static_cast<size_t>(facts_.place.bytes[which]));
  if (Status s = decode_pieces(which, 0, piece_count(which), out); !s.is_ok()) return s.error();
  if (format::xxh3_64(out.data(), out.size()) != facts_.hashes[which])
    return damaged(ErrorCode::ChecksumMismatch, "analysis index array checksum");
  return out;
}

// The roots with the rules of §12.3 (the whole read's, index_read_checks.cpp), decoded whole: they
// are few, and their count ties the index to the GC's root table.
Result<std::pair<std::vector<GraphRoot>, std::vector<uint32_t>>> IndexPieces::roots() {
  auto records = whole_array(L::kRoots);
  if (!records) return records.error();
  auto unresolved = whole_array(L::kUnresolved);
  if (!unresolved) return unresolved.error();
  std::pair<std::vector<GraphRoot>, std::vector<uint32_t>> out;
  out.first.reserve(records->size() / L::kRootRecord);
  for (size_t at = 0; at + L::kRootRecord <= records->size(); at += L::kRootRecord) {
    const unsigned char* r = records->data() + at;
    GraphRoot root;
    root.node = L::load<uint32_t>(r + L::kRootNode);
    root.root_index = L::load<uint32_t>(r + L::kRootIndex);
    root.root_id = L::load<uint64_t>(r + L::kRootId);
    const uint8_t kind = r[L::kRootKind];
    root.flags = r[L::kRootFlags];
    bool ok = root.node < nodes() && kind <= static_cast<uint8_t>(RootKind::Handle) &&
              root.root_index < facts_.root_entries;
    for (size_t k = L::kRootZeroFrom; k < L::kRootRecord; ++k) ok = ok && r[k] == 0;
    if (!ok) return damaged(ErrorCode::CorruptSection, index_rules::kRootRule);
    root.kind = static_cast<RootKind>(kind);
    out.first.push_back(root);
  }
  for (size_t at = 0; at + 4 <= unresolved->size(); at += 4) {
    const uint32_t r = L::load<uint32_t>(unresolved->data() + at);
    if (r >= facts_.root_entries) return damaged(ErrorCode::CorruptSection, index_rules::kUnresolvedRootRule);
    out.second.push_back(r);
  }
  return out;
}

}  // namespace gcsnap::detail

namespace gcsnap {

namespace L = index_layout;

PointIndex::PointIndex(std::unique_ptr<detail::IndexPieces> pieces) noexcept : pieces_(std::move(pieces)) {}
PointIndex::PointIndex(PointIndex&&) noexcept = default;
PointIndex& PointIndex::operator=(PointIndex&&) noexcept = default;
PointIndex::~PointIndex() = default;

Result<PointIndex> PointIndex::from_bytes(std::span<const std::byte> bytes, const IndexIdentity* expected,
                                          std::shared_ptr<const void> keep) {
  try {
    auto facts = detail::read_index_header(bytes, expected);
    if (!facts) return facts.error();
    return PointIndex(std::make_unique<detail::IndexPieces>(std::move(*facts), std::move(keep)));
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory reading the analysis index");
  }
}

Result<PointIndex> PointIndex::open(const std::string& path, const IndexIdentity& expected) {
  auto mapped = detail::map_index_file(path, expected);
  if (!mapped) return mapped.error();
  const auto bytes = mapped->bytes;
  return from_bytes(bytes, &expected, std::move(mapped->keep));
}

uint64_t PointIndex::node_count() const noexcept { return pieces_->nodes(); }
uint64_t PointIndex::root_entries() const noexcept { return pieces_->facts().root_entries; }
bool PointIndex::has_dependent_handles() const noexcept { return pieces_->facts().has_dependent_handles; }
uint16_t PointIndex::minor_version() const noexcept { return pieces_->facts().minor; }
size_t PointIndex::pieces_decoded() const noexcept { return pieces_->pieces_decoded(); }

Result<std::optional<IndexedObject>> PointIndex::find_object(uint64_t address) {
  try {
    return pieces_->find_object(address);
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory reading the analysis index");
  }
}

Result<uint32_t> PointIndex::type_id(NodeIndex v) {
  try {
    auto t = pieces_->element(L::kTypeIds, v);
    if (!t) return t.error();
    return static_cast<uint32_t>(*t);
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory reading the analysis index");
  }
}

Result<std::pair<std::vector<GraphRoot>, std::vector<uint32_t>>> PointIndex::roots() {
  try {
    return pieces_->roots();
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory reading the analysis index");
  }
}

Result<IndexedLookup> find_object_in_analysis_index(const std::string& path, const IndexIdentity& expected,
                                                    uint64_t address) {
  auto index = PointIndex::open(path, expected);
  if (!index) return index.error();
  IndexedLookup out;
  out.has_dependent_handles = index->has_dependent_handles();
  out.root_entries = index->root_entries();
  auto object = index->find_object(address);
  if (!object) return object.error();
  out.object = *object;
  out.pieces_decoded = index->pieces_decoded();
  return out;
}

}  // namespace gcsnap
