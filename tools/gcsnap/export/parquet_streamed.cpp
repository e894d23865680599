// The objects and references tables from the analysis index, a batch of rows at a time. The
// columns that follow node order (addresses, sizes, types, generations, dominators, retained
// sizes; offsets, targets, slots) are read in order one piece after another; the addresses of
// dominators and targets, which point anywhere, are looked up a batch at a time in node
// order: from every address packed in about 2 bytes an object (PackedAddresses), or failing
// that a batch at a time from the pieces, each piece decoded at most once per batch.
#include "export/parquet_streamed.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "gcsnap/dominators.hpp"
#include "gcsnap/heap_columns.hpp"
#include "errors/cli_error.hpp"

namespace gcsnap::cli {

namespace {

// Rows per batch: the batch's columns (about 40 B a row) and one piece per lookup stay a few MiB.
constexpr size_t kBatchRows = size_t{1} << 17;

std::unique_ptr<HeapColumns> open_columns(const std::string& file, const GcHeap& heap) {
  auto s = HeapColumns::open(heap);
  if (!s) fail_on(file, s.error());
  return std::move(s).value();
}

[[noreturn]] void fail_damaged(const std::string& file, const char* what) {
  throw CliError(fmt::format("{}: the analysis index is damaged ({}); delete it or export with --no-cache", file, what),
                 kExitBadInput);
}

// An error reading the index: damage says so (the index is a cache the user may delete), the
// others (I/O, memory) as any other.
[[noreturn]] void fail_reading(const std::string& file, const Error& error) {
  switch (error.code) {
    case ErrorCode::CorruptSection:
    case ErrorCode::ChecksumMismatch:
    case ErrorCode::Truncated: fail_damaged(file, error.detail);
    default: fail_on(file, error);
  }
}

// One column read element by element in node (or edge) order.
template <typename T>
class Column {
 public:
  Column(const std::string& file, HeapColumns& s, HeapColumn c) : file_(file), cursor_(s, c) {}
  T next() {
    T v;
    if (!cursor_.next(v)) fail_reading(file_, cursor_.error());
    return v;
  }

 private:
  const std::string& file_;
  HeapColumnCursor<T> cursor_;
};

// Set OUT[i] to the address of node NODES[i] (every node < the node count): from KNOWN (every
// node's address, packed) when it has them all, else from the index's pieces, each decoded at
// most once per batch (HeapColumns::find_addresses).
class AddressLookup {
 public:
  AddressLookup(const std::string& file, HeapColumns& s, const PackedAddresses& known)
      : file_(file), s_(s), known_(known.size() == s.counts().nodes ? &known : nullptr) {}
  void find(const std::vector<NodeIndex>& nodes, std::vector<uint64_t>& out) {
    if (known_) {
      out.resize(nodes.size());
      for (size_t i = 0; i < nodes.size(); ++i) out[i] = (*known_)[nodes[i]];
      return;
    }
    Status found = s_.find_addresses(nodes, out);
    if (!found.is_ok()) fail_reading(file_, found.error());
  }

 private:
  const std::string& file_;
  HeapColumns& s_;
  const PackedAddresses* known_;
};

int64_t as_i64(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

void add_index_lineage(const std::string& file, const GcHeap& heap, const Recording& rec, size_t gc_pos,
                       ObjectLineage& lineage) {
  auto s = open_columns(file, heap);
  const uint64_t n = s->counts().nodes;
  Column<uint64_t> address(file, *s, HeapColumn::Addresses);
  Column<uint8_t> generation(file, *s, HeapColumn::Generations);
  uint64_t v = 0;
  Status status = lineage.next_walk(rec, gc_pos, [&](uint64_t& a, Generation& g) {
    if (v == n) return false;
    ++v;
    a = address.next();
    g = static_cast<Generation>(generation.next());
    return true;
  });
  if (!status.is_ok()) fail_on(file, status.error());
}

PackedAddresses read_index_addresses(const std::string& file, const GcHeap& heap) {
  auto s = open_columns(file, heap);
  const uint64_t n = s->counts().nodes;
  PackedAddresses addresses;
  for (;;) {
    auto piece = s->next_piece(HeapColumn::Addresses);
    if (!piece) fail_reading(file, piece.error());
    if (piece->empty()) break;
    if (piece->size() % sizeof(uint64_t) != 0 || addresses.size() + piece->size() / sizeof(uint64_t) > n)
      fail_damaged(file, "another address count than the header's");
    for (size_t at = 0; at < piece->size(); at += sizeof(uint64_t)) {
      uint64_t a;
      std::memcpy(&a, piece->data() + at, sizeof a);
      addresses.push_back(a);
    }
  }
  if (addresses.size() != n) fail_damaged(file, "another address count than the header's");
  addresses.finish();
  return addresses;
}

void write_index_objects(const std::string& file, const GcHeap& heap, int64_t gc, const PackedAddresses& addresses,
                         const ObjectLineage& lineage, parquet::ParquetWriter& w) {
  auto s = open_columns(file, heap);
  const size_t n = static_cast<size_t>(s->counts().nodes);
  if (lineage.size() != n) fail_damaged(file, "another object count than the lineage's");
  Column<uint64_t> address(file, *s, HeapColumn::Addresses), size(file, *s, HeapColumn::Sizes),
      retained(file, *s, HeapColumn::RetainedSizes);
  Column<uint32_t> type(file, *s, HeapColumn::TypeIds), idom(file, *s, HeapColumn::ImmediateDominators);
  Column<uint8_t> generation(file, *s, HeapColumn::Generations);
  AddressLookup lookup(file, *s, addresses);
  ObjectLineage::Origins origins = lineage.origins();
  std::vector<NodeIndex> dominators;
  std::vector<uint64_t> dominator_address;
  struct Row {
    uint64_t address, size, retained;
    uint32_t type, idom;
    uint8_t generation;
  };
  std::vector<Row> rows;
  for (size_t first = 0; first < n; first += kBatchRows) {
    const size_t count = std::min(kBatchRows, n - first);
    rows.resize(count);
    dominators.clear();
    for (Row& r : rows) {
      r = Row{address.next(), size.next(), retained.next(), type.next(), idom.next(), generation.next()};
      if (r.idom < n) dominators.push_back(r.idom);
      else if (r.idom != kNoNode && r.idom != kVirtualRoot) fail_damaged(file, "a dominator out of range");
    }
    lookup.find(dominators, dominator_address);
    size_t next_dominator = 0;
    for (size_t i = 0; i < count; ++i) {
      const Row& r = rows[i];
      w.add_int64(0, gc);
      w.add_int64(1, as_i64(r.address));
      w.add_string(2, heap.names.type_name(r.type));
      w.add_int64(3, as_i64(r.size));
      w.add_string(4, generation_name(static_cast<Generation>(r.generation)));
      w.add_bool(5, r.idom != kNoNode);
      w.add_int64(6, as_i64(r.idom != kNoNode ? r.retained : 0));
      // 0: held by roots directly (the virtual root dominates it) or not reachable.
      w.add_int64(7, r.idom < n ? as_i64(dominator_address[next_dominator++]) : 0);
      const ObjectLineage::Origin o = origins.next();
      w.add_int64(8, as_i64(o.first_gc));
      w.add_int64(9, as_i64(o.first_address));
      w.end_row();
    }
  }
}

namespace {

// The references of one node: its successors and their slots, and how many of the last ones
// are dependent-handle edges (format-spec.md §12.4: they come after the node's references).
struct NodeEdges {
  std::vector<NodeIndex> targets;
  std::vector<uint32_t> slots;
  std::vector<NodeIndex> dependent;  // secondaries of its dependent edges, sorted
};

// Whether edge J of E is a dependent-handle edge, as HeapGraph::edge_kind tells it: among the
// last ones, to a target that no reference of the node's reaches too.
bool is_dependent_edge(const NodeEdges& e, size_t j) {
  const size_t references = e.targets.size() - std::min(e.dependent.size(), e.targets.size());
  if (j < references) return false;
  const NodeIndex to = e.targets[j];
  if (std::find(e.targets.begin(), e.targets.begin() + static_cast<ptrdiff_t>(references), to) !=
      e.targets.begin() + static_cast<ptrdiff_t>(references))
    return false;
  return std::binary_search(e.dependent.begin(), e.dependent.end(), to);
}

}  // namespace

void write_index_references(const std::string& file, const GcHeap& heap, int64_t gc,
                            const PackedAddresses& addresses, parquet::ParquetWriter& w) {
  auto s = open_columns(file, heap);
  const HeapColumnCounts c = s->counts();
  const size_t n = static_cast<size_t>(c.nodes);
  Column<uint64_t> address(file, *s, HeapColumn::Addresses), wide(file, *s, HeapColumn::ForwardOffsets);
  Column<uint32_t> narrow(file, *s, HeapColumn::ForwardOffsets), type(file, *s, HeapColumn::TypeIds),
      target(file, *s, HeapColumn::ForwardTargets), slot(file, *s, HeapColumn::Slots),
      dependent(file, *s, HeapColumn::DependentEdges);
  auto offset = [&] { return c.wide_offsets ? wide.next() : uint64_t{narrow.next()}; };
  const EdgeNamer namer = heap.edge_namer();
  AddressLookup lookup(file, *s, addresses);
  uint64_t dependent_left = c.dependent_edges;
  std::pair<NodeIndex, NodeIndex> next_dependent{kNoNode, kNoNode};
  auto pull_dependent = [&] {
    if (dependent_left == 0) return next_dependent = {kNoNode, kNoNode};
    --dependent_left;
    const NodeIndex primary = dependent.next();
    return next_dependent = {primary, dependent.next()};
  };
  pull_dependent();
  struct Edge {
    uint64_t from;
    NodeIndex to;
    bool dependent;
    std::string field;
  };
  std::vector<Edge> batch;
  std::vector<NodeIndex> targets;
  std::vector<uint64_t> target_address;
  auto flush = [&] {
    targets.clear();
    for (const Edge& e : batch) targets.push_back(e.to);
    lookup.find(targets, target_address);
    for (size_t i = 0; i < batch.size(); ++i) {
      w.add_int64(0, gc);
      w.add_int64(1, as_i64(batch[i].from));
      w.add_int64(2, as_i64(target_address[i]));
      w.add_string(3, batch[i].field);
      w.add_string(4, batch[i].dependent ? "dependent-handle" : "reference");
      w.end_row();
    }
    batch.clear();
  };
  NodeEdges e;
  uint64_t at = offset();
  if (at != 0) fail_damaged(file, "forward offsets do not start at 0");
  for (size_t v = 0; v < n; ++v) {
    const uint64_t from = address.next();
    const uint32_t from_type = type.next();
    const uint64_t end = offset();
    if (end < at || end > c.edges) fail_damaged(file, "forward offsets out of order");
    e.targets.clear();
    e.slots.clear();
    e.dependent.clear();
    for (; at < end; ++at) {
      const NodeIndex to = target.next();
      if (to >= n) fail_damaged(file, "an edge's target out of range");
      e.targets.push_back(to);
      e.slots.push_back(c.has_slots ? slot.next() : kUnknownSlot);
    }
    while (next_dependent.first == v) {
      e.dependent.push_back(next_dependent.second);
      pull_dependent();
    }
    for (size_t j = 0; j < e.targets.size(); ++j) {
      const bool dep = is_dependent_edge(e, j);
      std::string field;
      if (!dep)
        field = namer
                    .name_slot_at(from, from_type, e.slots[j],
                                  c.has_slots ? UnnamedReason::SlotUnknown : UnnamedReason::NoSlots)
                    .text;
      batch.push_back(Edge{from, e.targets[j], dep, std::move(field)});
    }
    if (batch.size() >= kBatchRows) flush();
  }
  flush();
  if (next_dependent.first != kNoNode) fail_damaged(file, "dependent edges out of order");
}

}  // namespace gcsnap::cli
