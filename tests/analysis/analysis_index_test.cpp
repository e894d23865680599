// The analysis index (format-spec.md §12): what is read back equals what was computed, and a
// stale, damaged or foreign index is refused (the commands then rebuild it).
#include "gcsnap/analysis_index.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gcsnap/retention.hpp"
#include "analysis_index/index_layout.hpp"
#include "platform/file_io.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

namespace {

struct Fixture {
  TempFile snap{"index"};
  std::vector<ModelGc> model;
  std::unique_ptr<Recording> rec;
  // The first recording from SEED on with a heap walk (not every random GC has one).
  // ROOTED: every root holds an object of its GC (random roots mostly hold none).
  explicit Fixture(uint64_t seed, bool rooted = false) {
    for (;; seed += 1000) {
      model = make_random_gcs(seed, 3, ModelOptions{400, 30});
      if (rooted)
        for (ModelGc& gc : model)
          for (size_t k = 0; k < gc.roots.object_ids.size() && gc.objects.size() != 0; ++k)
            gc.roots.object_ids[k] = gc.objects.addresses[(k * 7919) % gc.objects.size()];
      rec.reset();  // closed first: Windows cannot truncate a file mapped in memory
      REQUIRE(write_model(snap.path(), model, WriterOptions{}).is_ok());
      auto opened = Recording::open(snap.path());
      REQUIRE(opened);
      rec = std::move(opened).value();
      if (rec->last_snapshot()) return;
    }
  }
  ~Fixture() {
    for (const auto& gc : rec->gcs()) std::remove(analysis_index_path(snap.path(), gc.info.gc_number).c_str());
  }
};

template <typename A, typename B>
bool same(const A& a, const B& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

void check_equal(const AnalysisIndex& a, const AnalysisIndex& b) {
  REQUIRE(a.graph.node_count() == b.graph.node_count());
  CHECK(a.graph.edge_count() == b.graph.edge_count());
  for (NodeIndex v = 0; v < a.graph.node_count(); ++v) {
    REQUIRE(same(a.graph.successors(v), b.graph.successors(v)));
    REQUIRE(same(a.graph.predecessors(v), b.graph.predecessors(v)));
    REQUIRE(a.graph.address(v) == b.graph.address(v));
    REQUIRE(a.graph.object_size(v) == b.graph.object_size(v));
    REQUIRE(a.graph.type_id(v) == b.graph.type_id(v));
    REQUIRE(a.generations[v] == b.generations[v]);
    REQUIRE(a.dominators.immediate_dominator(v) == b.dominators.immediate_dominator(v));
    REQUIRE(a.dominators.retained_size(v) == b.dominators.retained_size(v));
  }
  CHECK(same(a.dominators.preorder(), b.dominators.preorder()));
  CHECK(a.dominators.reachable_bytes() == b.dominators.reachable_bytes());
  CHECK(a.dominators.unreachable_bytes() == b.dominators.unreachable_bytes());
  REQUIRE(a.graph.roots().size() == b.graph.roots().size());
  for (size_t r = 0; r < a.graph.roots().size(); ++r) {
    CHECK(a.graph.roots()[r].node == b.graph.roots()[r].node);
    CHECK(a.graph.roots()[r].root_id == b.graph.roots()[r].root_id);
    CHECK(a.graph.roots()[r].root_index == b.graph.roots()[r].root_index);
    CHECK(a.graph.roots()[r].kind == b.graph.roots()[r].kind);
    CHECK(a.graph.roots()[r].flags == b.graph.roots()[r].flags);
  }
  CHECK(same(a.graph.unresolved_roots(), b.graph.unresolved_roots()));
  CHECK(a.graph.stats().references == b.graph.stats().references);
  CHECK(a.graph.stats().unresolved_references == b.graph.stats().unresolved_references);
  REQUIRE(a.type_stats.size() == b.type_stats.size());
  for (size_t t = 0; t < a.type_stats.size(); ++t) {
    CHECK(a.type_stats[t].type_id == b.type_stats[t].type_id);
    CHECK(a.type_stats[t].count == b.type_stats[t].count);
    CHECK(a.type_stats[t].retained_bytes == b.type_stats[t].retained_bytes);
    CHECK(a.type_stats[t].unreachable_count == b.type_stats[t].unreachable_count);
  }
  CHECK(a.has_dependent_handles == b.has_dependent_handles);
  CHECK(same(a.path_parents, b.path_parents));
}

std::vector<char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Same-size contents are written in place: Windows cannot truncate a file mapped in memory,
// and a test may still hold an index read from PATH.
void spit(const std::string& path, const std::vector<char>& bytes) {
  std::error_code ec;
  const bool same_size = std::filesystem::file_size(path, ec) == bytes.size() && !ec;
  std::fstream out(path, std::ios::binary | std::ios::out | (same_size ? std::ios::in : std::ios::trunc));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("an index read back equals the analyses computed from the recording") {
  for (uint64_t seed : {1u, 2u, 3u}) {
    Fixture f(seed);
    for (size_t gc = 0; gc < f.rec->gcs().size(); ++gc) {
      if (!f.rec->gcs()[gc].has_heap_walk()) continue;
      auto built = open_analysis_index(f.snap.path(), *f.rec, gc, true);
      REQUIRE(built);
      CHECK(built->source == IndexSource::BuiltSaved);
      auto again = open_analysis_index(f.snap.path(), *f.rec, gc, true);
      REQUIRE(again);
      CHECK(again->source == IndexSource::Read);
      auto fresh = compute_analysis_index(*f.rec, gc);
      REQUIRE(fresh);
      check_equal(*fresh, again->index);
      // The histogram kept in the index is the one build_type_histogram gives.
      auto hist = build_type_histogram(again->index.graph, &again->index.dominators,
                                       TypeHistogramOptions{TypeOrder::RetainedBytes, 0});
      REQUIRE(hist);
      std::vector<TypeStats> kept = again->index.type_stats;
      sort_type_stats(kept, TypeHistogramOptions{TypeOrder::RetainedBytes, 0});
      REQUIRE(kept.size() == hist->size());
      for (size_t t = 0; t < kept.size(); ++t) CHECK(kept[t].retained_bytes == (*hist)[t].retained_bytes);
      // The kept shortest-path tree is the BFS a full search gives, and gives its paths.
      auto bfs = ShortestPathTree::compute(again->index.graph, RetentionOptions{});
      REQUIRE(bfs);
      CHECK(same(bfs->parents(), again->index.path_parents));
      auto kept_tree = ShortestPathTree::from_parents(again->index.graph, again->index.path_parents,
                                                      bfs->reached_count(), nullptr);
      REQUIRE(kept_tree);
      for (NodeIndex v = 0; v < again->index.graph.node_count(); ++v) {
        const RetentionPath x = bfs->path_to(v), y = kept_tree->path_to(v);
        REQUIRE(same(x.nodes, y.nodes));
        CHECK(x.root == y.root);
      }
    }
  }
}

TEST_CASE("the index a build writes while it computes equals write_analysis_index's, byte for byte") {
  // open_analysis_index writes the arrays on a second thread as they are computed; write_analysis_index
  // writes a computed index at once. Both must give the file of format-spec.md §12.
  for (uint64_t seed : {4u, 5u}) {
    Fixture f(seed);
    for (size_t gc = 0; gc < f.rec->gcs().size(); ++gc) {
      if (!f.rec->gcs()[gc].has_heap_walk()) continue;
      auto built = open_analysis_index(f.snap.path(), *f.rec, gc, true);
      REQUIRE(built);
      REQUIRE(built->source == IndexSource::BuiltSaved);
      auto id = identify_gc(f.snap.path(), *f.rec, gc);
      REQUIRE(id);
      const std::string path = analysis_index_path(f.snap.path(), id->gc_number);
      TempFile other{"index-once"};
      REQUIRE(write_analysis_index(built->index, *id, other.path()));
      CHECK(slurp(path) == slurp(other.path()));
      REQUIRE(read_analysis_index(other.path(), *id));
    }
  }
}

TEST_CASE("a damaged index is refused and rebuilt") {
  Fixture f(7);
  const size_t gc = *f.rec->last_snapshot();
  REQUIRE(open_analysis_index(f.snap.path(), *f.rec, gc, true));
  const std::string path = analysis_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number);
  const std::vector<char> good = slurp(path);
  REQUIRE(good.size() > 512);
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  // A flipped bit anywhere: in the header, in the payload, and the file cut short.
  for (size_t at : {size_t{70}, size_t{300}, good.size() / 2, good.size() - 1}) {
    std::vector<char> bad = good;
    bad[at] ^= 0x10;
    spit(path, bad);
    auto read = read_analysis_index(path, *id);
    REQUIRE_FALSE(read);
    // The structural checks run in the same pass as the checksum, so either may see it first.
    const ErrorCode code = read.error().code;
    CHECK((code == ErrorCode::ChecksumMismatch || code == ErrorCode::CorruptSection));
    auto rebuilt = open_analysis_index(f.snap.path(), *f.rec, gc, true);
    REQUIRE(rebuilt);
    CHECK(rebuilt->source == IndexSource::BuiltSaved);
    CHECK(rebuilt->rejected.code != ErrorCode::Ok);
    CHECK(slurp(path) == good);
  }
  std::vector<char> cut(good.begin(), good.end() - 8);
  spit(path, cut);
  CHECK(read_analysis_index(path, *id).error().code == ErrorCode::Truncated);
  spit(path, std::vector<char>(good.begin(), good.begin() + 100));
  CHECK(read_analysis_index(path, *id).error().code == ErrorCode::Truncated);
}

TEST_CASE("a partial read checks the arrays it maps, a whole read every byte") {
  Fixture f(9);
  const size_t gc = *f.rec->last_snapshot();
  REQUIRE(open_analysis_index(f.snap.path(), *f.rec, gc, true));
  const std::string path = analysis_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number);
  const std::vector<char> good = slurp(path);
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  REQUIRE(read_analysis_index(path, *id, kIndexTypes));
  // The first array (addresses, at the end of the 384-byte header) and the type histogram (the
  // last array but the shortest-path tree, which ends the file).
  uint64_t nodes = 0;
  std::memcpy(&nodes, good.data() + 64, 8);
  const size_t parents_at = good.size() - 4 * nodes;
  size_t in_types = parents_at - 1;
  while (in_types > 384 && good[in_types] == 0) --in_types;  // the padding before the tree
  const size_t in_addresses = 384 + 3;
  std::vector<char> bad = good;
  bad[in_addresses] ^= 0x04;
  spit(path, bad);
  {
    // Released before the rebuild below: Windows cannot replace a file mapped in memory.
    auto types_only = read_analysis_index(path, *id, kIndexTypes);
    REQUIRE(types_only);  // the damage is in an array it does not use
    CHECK_FALSE(types_only->type_stats.empty());
    CHECK(types_only->graph.node_count() == 0);
    CHECK(types_only->root_entries == f.rec->gcs()[gc].root_count);
  }
  CHECK_FALSE(read_analysis_index(path, *id, kIndexObjects | kIndexDominators));
  CHECK_FALSE(read_analysis_index(path, *id));
  CHECK(open_analysis_index(f.snap.path(), *f.rec, gc, true, {}, kIndexObjects)->source == IndexSource::BuiltSaved);
  CHECK(slurp(path) == good);
  bad = good;
  bad[in_types] ^= 0x04;
  spit(path, bad);
  CHECK_FALSE(read_analysis_index(path, *id, kIndexTypes));
  auto objects = read_analysis_index(path, *id, kIndexObjects | kIndexDominators);
  REQUIRE(objects);
  CHECK(objects->type_stats.empty());
  CHECK(objects->graph.node_count() > 0);
  CHECK(objects->unreachable_objects == objects->dominators.unreachable_count());
  CHECK_FALSE(read_analysis_index(path, *id));
  // Padding between arrays is seen by a whole read only.
  std::vector<char> padded = good;
  size_t pad = 0;
  for (size_t i = 384; i + 1 < padded.size() && pad == 0; ++i)
    if (padded[i] == 0 && i % 64 == 63 && padded[i - 1] == 0 && padded[i - 2] == 0 && padded[i - 3] == 0) pad = i;
  if (pad != 0) {
    padded[pad] = 1;
    spit(path, padded);
    auto whole = read_analysis_index(path, *id);
    // Either a padding byte (the whole read says so) or a zero element inside an array
    // (its checksum or rule says so): never accepted.
    CHECK_FALSE(whole);
  }
}

TEST_CASE("an index of a recording that changed is stale and rebuilt") {
  Fixture f(11);
  const size_t gc = *f.rec->last_snapshot();
  REQUIRE(open_analysis_index(f.snap.path(), *f.rec, gc, true));
  const std::string path = analysis_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number);
  // Another modification time: the recording may have been rewritten.
  namespace fs = std::filesystem;
  fs::last_write_time(f.snap.path(), fs::last_write_time(f.snap.path()) + std::chrono::seconds(10));
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  CHECK(read_analysis_index(path, *id).error().code == ErrorCode::InconsistentData);
  auto rebuilt = open_analysis_index(f.snap.path(), *f.rec, gc, true);
  REQUIRE(rebuilt);
  CHECK(rebuilt->source == IndexSource::BuiltSaved);
  CHECK(rebuilt->rejected.code == ErrorCode::InconsistentData);
  CHECK(open_analysis_index(f.snap.path(), *f.rec, gc, true)->source == IndexSource::Read);
  // The index of another GC is not taken for this one.
  for (size_t other = 0; other < f.rec->gcs().size(); ++other) {
    if (other == gc || !f.rec->gcs()[other].has_heap_walk()) continue;
    auto other_id = identify_gc(f.snap.path(), *f.rec, other);
    REQUIRE(other_id);
    CHECK(read_analysis_index(path, *other_id).error().code == ErrorCode::InconsistentData);
  }
}

TEST_CASE("an index that cannot be written still answers") {
  Fixture f(5);
  const size_t gc = *f.rec->last_snapshot();
  // A directory of the index's name makes the rename fail, as a read-only directory would.
  const std::string path = analysis_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number);
  namespace fs = std::filesystem;
  REQUIRE(fs::create_directory(path));
  auto opened = open_analysis_index(f.snap.path(), *f.rec, gc, true);
  fs::remove(path);
  REQUIRE(opened);
  CHECK(opened->source == IndexSource::BuiltKept);
  CHECK(opened->write_error.code == ErrorCode::IoError);
  CHECK(opened->index.graph.node_count() == f.rec->gcs()[gc].object_count);
  // The temporary file written before the failed rename is gone.
  const std::string tmp = path + ".tmp" + std::to_string(platform::current_process_id());
  CHECK(!fs::exists(tmp));
  // The temporary file cannot even be created (a directory of its name): the build goes on
  // without writing, and its answer is the same.
  REQUIRE(fs::create_directory(tmp));
  auto uncreated = open_analysis_index(f.snap.path(), *f.rec, gc, true);
  fs::remove(tmp);
  REQUIRE(uncreated);
  CHECK(uncreated->source == IndexSource::BuiltKept);
  CHECK(uncreated->write_error.code == ErrorCode::IoError);
  check_equal(uncreated->index, opened->index);
  CHECK(!fs::exists(path));
  // Asked not to write: nothing is tried.
  auto none = open_analysis_index(f.snap.path(), *f.rec, gc, false);
  REQUIRE(none);
  CHECK(none->source == IndexSource::BuiltKept);
  CHECK(none->write_error.code == ErrorCode::Ok);
}

TEST_CASE("index bytes not aligned like a mapping are refused, not read") {
  Fixture f(11);
  const size_t gc = *f.rec->last_snapshot();
  REQUIRE(open_analysis_index(f.snap.path(), *f.rec, gc, true));
  const std::vector<char> good = slurp(analysis_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number));
  std::vector<uint64_t> storage(good.size() / 8 + 2);
  auto* base = reinterpret_cast<std::byte*>(storage.data());
  std::memcpy(base, good.data(), good.size());
  REQUIRE(analysis_index_from_bytes({base, good.size()}, nullptr));
  std::memmove(base + 4, base, good.size());
  auto shifted = analysis_index_from_bytes({base + 4, good.size()}, nullptr);
  REQUIRE_FALSE(shifted);
  CHECK(shifted.error().code == ErrorCode::InvalidArgument);
}

TEST_CASE("an index records the hash of the block it was built from, and verify can lean on it") {
  Fixture f(13);
  const size_t gc = *f.rec->last_snapshot();
  auto opened = open_analysis_index(f.snap.path(), *f.rec, gc, true);
  REQUIRE(opened);
  auto now = f.rec->block_hash(gc);
  REQUIRE(now);
  CHECK(*now != 0);
  CHECK(opened->index.block_hash == *now);
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  auto read = read_analysis_index(analysis_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number), *id, kIndexObjects);
  REQUIRE(read);
  CHECK(read->block_hash == *now);
  // Another GC's block hashes differently.
  for (size_t other = 0; other < f.rec->gcs().size(); ++other)
    if (other != gc) CHECK(*f.rec->block_hash(other) != *now);
  CHECK(f.rec->block_hash(f.rec->gcs().size()).error().code == ErrorCode::NotFound);

  // Attested objects: verify_gc checks their types against the declared ones instead of
  // decoding the objects again; a wrong count or an undeclared type is still an error.
  const std::span<const uint32_t> types = read->graph.type_ids();
  CHECK(f.rec->verify_gc(gc, &types).is_ok());
  CHECK(f.rec->verify_gc(gc).is_ok());
  const std::span<const uint32_t> short_by_one = types.first(types.size() - 1);
  CHECK(f.rec->verify_gc(gc, &short_by_one).error().code == ErrorCode::InvalidArgument);
  std::vector<uint32_t> forged(types.begin(), types.end());
  forged[forged.size() / 2] = 0x7FFFFFF0u;  // no such type
  const std::span<const uint32_t> forged_span(forged);
  CHECK(f.rec->verify_gc(gc, &forged_span).error().code == ErrorCode::InconsistentData);
}

TEST_CASE("the type ids can be read alone, with the roots") {
  Fixture f(15);
  const size_t gc = *f.rec->last_snapshot();
  auto built = open_analysis_index(f.snap.path(), *f.rec, gc, true);
  REQUIRE(built);
  const std::string path = analysis_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number);
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  auto whole = read_analysis_index(path, *id);
  REQUIRE(whole);
  const std::vector<char> good = slurp(path);
  std::vector<char> bad = good;
  bad[384 + 3] ^= 0x04;  // in the addresses, which a type-ids read does not use
  spit(path, bad);
  auto types = read_analysis_index(path, *id, kIndexTypeIds);
  REQUIRE(types);
  CHECK((types->parts & kIndexObjects) == 0);
  REQUIRE(types->graph.node_count() == whole->graph.node_count());
  CHECK(same(types->graph.type_ids(), whole->graph.type_ids()));
  REQUIRE(types->graph.roots().size() == whole->graph.roots().size());
  for (size_t r = 0; r < whole->graph.roots().size(); ++r) CHECK(types->graph.roots()[r].node == whole->graph.roots()[r].node);
  CHECK(same(types->graph.unresolved_roots(), whole->graph.unresolved_roots()));
  CHECK_FALSE(read_analysis_index(path, *id, kIndexObjects));  // the node columns include the addresses
  spit(path, good);
}

namespace {

// Index bytes in aligned storage, with array WHICH's checksum and the header's recomputed after
// an edit (a forged index, as opposed to a damaged one).
struct IndexBytes {
  std::vector<uint64_t> storage;
  size_t size = 0;
  explicit IndexBytes(const std::vector<char>& bytes) : storage(bytes.size() / 8 + 1), size(bytes.size()) {
    std::memcpy(storage.data(), bytes.data(), bytes.size());
  }
  unsigned char* data() { return reinterpret_cast<unsigned char*>(storage.data()); }
  uint32_t* parents(uint64_t nodes) { return reinterpret_cast<uint32_t*>(data() + size - 4 * nodes); }
  void reseal(uint64_t nodes) {
    namespace L = index_layout;
    const uint64_t hash = XXH3_64bits(data() + size - 4 * nodes, 4 * nodes);
    std::memcpy(data() + L::hash_offset(L::kPathParents), &hash, 8);
    const uint64_t header = XXH3_64bits(data(), L::kOffHeaderHash);
    std::memcpy(data() + L::kOffHeaderHash, &header, 8);
  }
  std::span<const std::byte> view() { return {reinterpret_cast<const std::byte*>(data()), size}; }
};

}  // namespace

TEST_CASE("a forged shortest-path tree is refused, or at worst gives no path, never a hang") {
  // The first random recording with two reached objects that are not roots' objects.
  std::unique_ptr<Fixture> f;
  std::vector<char> good;
  std::vector<NodeIndex> inner;
  NodeIndex unreached = kNoNode;  // one that no strong root reaches, if any
  uint64_t n = 0;
  for (uint64_t seed = 17; seed < 40 && inner.size() < 2; ++seed) {
    f = std::make_unique<Fixture>(seed, true);
    const size_t gc = *f->rec->last_snapshot();
    REQUIRE(open_analysis_index(f->snap.path(), *f->rec, gc, true));
    good = slurp(analysis_index_path(f->snap.path(), f->rec->gcs()[gc].info.gc_number));
    IndexBytes base(good);
    auto whole = analysis_index_from_bytes(base.view(), nullptr, kIndexObjects | kIndexPathTree);
    REQUIRE(whole);
    CHECK((whole->parts & kIndexForward) != 0);  // a path's hops are told from the forward graph
    n = whole->graph.node_count();
    inner.clear();
    for (NodeIndex v = 0; v < n; ++v) {
      const NodeIndex p = whole->path_parents[v];
      if (p != kNoNode && p != ShortestPathTree::kRootMark) inner.push_back(v);
      if (p == kNoNode) unreached = v;
    }
  }
  REQUIRE(inner.size() >= 2);

  IndexBytes out_of_range(good);
  out_of_range.parents(n)[inner[0]] = static_cast<uint32_t>(n);
  out_of_range.reseal(n);
  CHECK(analysis_index_from_bytes(out_of_range.view(), nullptr, kIndexPathTree).error().code == ErrorCode::CorruptSection);

  // A root mark on an object no strong root holds.
  IndexBytes false_root(good);
  false_root.parents(n)[inner[0]] = ShortestPathTree::kRootMark;
  false_root.reseal(n);
  CHECK(analysis_index_from_bytes(false_root.view(), nullptr, kIndexPathTree).error().code == ErrorCode::CorruptSection);

  // More reached objects than the dominator tree says.
  if (unreached != kNoNode) {
    IndexBytes extra(good);
    extra.parents(n)[unreached] = inner[0];
    extra.reseal(n);
    CHECK(analysis_index_from_bytes(extra.view(), nullptr, kIndexPathTree).error().code == ErrorCode::CorruptSection);
  }

  // A cycle keeps every rule the reader can check cheaply: it is read, and its paths are empty.
  IndexBytes cycle(good);
  cycle.parents(n)[inner[0]] = inner[1];
  cycle.parents(n)[inner[1]] = inner[0];
  cycle.reseal(n);
  auto forged = analysis_index_from_bytes(cycle.view(), nullptr, kIndexPathTree);
  REQUIRE(forged);
  auto tree = ShortestPathTree::from_parents(forged->graph, forged->path_parents, n, nullptr);
  REQUIRE(tree);
  CHECK(tree->path_to(inner[0]).nodes.empty());
  CHECK(tree->path_to(inner[1]).nodes.empty());
  // Damage (not resealed) in the tree stops the reads that use it, and only those.
  std::vector<char> flipped = good;
  flipped[good.size() - 2] ^= 0x01;
  IndexBytes damaged(flipped);
  auto refused = analysis_index_from_bytes(damaged.view(), nullptr, kIndexPathTree);
  REQUIRE_FALSE(refused);
  CHECK((refused.error().code == ErrorCode::ChecksumMismatch || refused.error().code == ErrorCode::CorruptSection));
  CHECK(analysis_index_from_bytes(damaged.view(), nullptr, kIndexTypes));
}
