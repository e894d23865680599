// The analysis index (format-spec.md §12): what is read back equals what was computed, and a
// stale, damaged or foreign index is refused (the commands then rebuild it).
#include "gcsnap/analysis_index.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gcsnap/retainer_chains.hpp"
#include "gcsnap/retention.hpp"
#include "analysis_index/index_codec.hpp"
#include "analysis_index/index_layout.hpp"
#include "platform/file_io.hpp"
#include "file_bytes.hpp"
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

// Where array WHICH's coded bytes start in index file BYTES (format-spec.md §12.3: the arrays
// follow the directory one after another; the holder table, not in the directory, last).
size_t array_at(const std::vector<char>& bytes, size_t which) {
  namespace L = index_layout;
  uint64_t at = L::kFirstArray;
  for (size_t a = 0; a < which; ++a) {
    uint64_t len = 0;
    std::memcpy(&len, bytes.data() + L::kDirectoryOffset + 8 * a, 8);
    at += len;
  }
  return static_cast<size_t>(at);
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

TEST_CASE("ensure_analysis_index writes the bytes open_analysis_index writes, and then reads them") {
  // ensure_analysis_index frees each array once written (the index command's build); the file
  // must not depend on which build made it (random recordings of the model, their roots mostly
  // unresolved).
  for (uint64_t seed : {4u, 5u, 7u}) {
    Fixture f(seed);
    for (size_t gc = 0; gc < f.rec->gcs().size(); ++gc) {
      if (!f.rec->gcs()[gc].has_heap_walk()) continue;
      auto id = identify_gc(f.snap.path(), *f.rec, gc);
      REQUIRE(id);
      const std::string path = analysis_index_path(f.snap.path(), id->gc_number);
      auto built = open_analysis_index(f.snap.path(), *f.rec, gc, true);
      REQUIRE(built);
      REQUIRE(built->source == IndexSource::BuiltSaved);
      const std::vector<char> expected = slurp(path);
      REQUIRE(std::remove(path.c_str()) == 0);
      auto ensured = ensure_analysis_index(f.snap.path(), *f.rec, gc);
      REQUIRE(ensured);
      CHECK(ensured->source == IndexSource::BuiltSaved);
      CHECK(ensured->objects == built->index.graph.node_count());
      CHECK(slurp(path) == expected);
      auto again = ensure_analysis_index(f.snap.path(), *f.rec, gc);
      REQUIRE(again);
      CHECK(again->source == IndexSource::Read);
      CHECK(again->objects == built->index.graph.node_count());
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
  // Inside the first array (addresses, after its first frame's length) and inside the type
  // histogram.
  namespace L = index_layout;
  const size_t in_addresses = array_at(good, L::kAddresses) + 6;
  const size_t in_types = array_at(good, L::kTypes) + 6;
  REQUIRE(in_types < array_at(good, L::kPathParents));
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
  // Every byte belongs to the header, the directory or an array: one more is refused.
  std::vector<char> longer = good;
  longer.push_back(0);
  spit(path, longer);
  auto whole = read_analysis_index(path, *id, kIndexTypes);
  REQUIRE_FALSE(whole);
  CHECK(whole.error().code == ErrorCode::Truncated);
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

TEST_CASE("index bytes at any alignment in memory read the same (they are decoded)") {
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
  REQUIRE(shifted);
  auto aligned = read_analysis_index(analysis_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number),
                                     *identify_gc(f.snap.path(), *f.rec, gc));
  REQUIRE(aligned);
  CHECK(same(shifted->graph.addresses(), aligned->graph.addresses()));
  CHECK(same(shifted->dominators.retained_sizes(), aligned->dominators.retained_sizes()));
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

  // The same a piece at a time (verify_gc_attested), as `gcsnap verify` reads the index's pieces.
  const auto pieces_of = [](std::span<const uint32_t> ids, size_t size) {
    return [ids, size, at = size_t{0}]() mutable -> Result<std::span<const uint32_t>> {
      const std::span<const uint32_t> piece = ids.subspan(at, std::min(size, ids.size() - at));
      at += piece.size();
      return piece;
    };
  };
  REQUIRE(types.size() > 3);
  const size_t piece = types.size() / 3;
  CHECK(f.rec->verify_gc_attested(gc, pieces_of(types, piece)).is_ok());
  CHECK(f.rec->verify_gc_attested(gc, pieces_of(short_by_one, piece)).error().code == ErrorCode::InvalidArgument);
  CHECK(f.rec->verify_gc_attested(gc, pieces_of(forged_span, piece)).error().code == ErrorCode::InconsistentData);
  std::vector<uint32_t> longer(types.begin(), types.end());
  longer.push_back(types[0]);
  CHECK(f.rec->verify_gc_attested(gc, pieces_of(longer, piece)).error().code == ErrorCode::InvalidArgument);
  // The source's own error is told as is.
  int calls = 0;
  const Status failed = f.rec->verify_gc_attested(gc, [&]() -> Result<std::span<const uint32_t>> {
    if (calls++ == 0) return types.first(piece);
    return make_error(ErrorCode::ChecksumMismatch, "piece");
  });
  CHECK(failed.error().code == ErrorCode::ChecksumMismatch);
  // Its mapped pages given back, the block reads again from the file.
  f.rec->release_block_pages(gc);
  f.rec->release_block_pages(f.rec->gcs().size());  // no such GC: nothing
  CHECK(f.rec->verify_gc(gc).is_ok());
  CHECK(*f.rec->block_hash(gc) == *now);
}

TEST_CASE("verify can lean on an index's block hash and type counts") {
  // verify_gc_counted: the block hashed in the pass over its object sections must equal the
  // index's hash, the counts add up to the GC's objects and every counted type be declared.
  Fixture f(13);
  const size_t gc = *f.rec->last_snapshot();
  REQUIRE(open_analysis_index(f.snap.path(), *f.rec, gc, true));  // builds it
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  auto read = read_analysis_index(analysis_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number), *id, kIndexTypes);
  REQUIRE(read);
  REQUIRE(read->type_stats.size() > 1);
  std::vector<Recording::AttestedTypeCount> counts;
  for (const TypeStats& t : read->type_stats) counts.push_back({t.type_id, t.count});
  CHECK(f.rec->verify_gc_counted(gc, read->block_hash, counts).is_ok());
  CHECK(*f.rec->block_hash(gc) == read->block_hash);
  // Another block's hash: not the bytes the counts were taken from.
  CHECK(f.rec->verify_gc_counted(gc, read->block_hash ^ 1, counts).error().code == ErrorCode::InvalidArgument);
  auto fewer = counts;
  fewer.back().count -= 1;
  CHECK(f.rec->verify_gc_counted(gc, read->block_hash, fewer).error().code == ErrorCode::InvalidArgument);
  auto more = counts;
  more.front().count += 1;
  CHECK(f.rec->verify_gc_counted(gc, read->block_hash, more).error().code == ErrorCode::InvalidArgument);
  auto undeclared = counts;
  undeclared.push_back({0x7FFFFFF0u, 1});  // no such type
  undeclared.front().count -= 1;
  CHECK(f.rec->verify_gc_counted(gc, read->block_hash, undeclared).error().code == ErrorCode::InconsistentData);
  // A type counted with no objects is not checked; it adds nothing.
  auto empty_type = counts;
  empty_type.push_back({0x7FFFFFF0u, 0});
  CHECK(f.rec->verify_gc_counted(gc, read->block_hash, empty_type).is_ok());
}

TEST_CASE("a mapped block is hashed a slice at a time to the same hash as its bytes") {
  // Blocks over the 8 MiB slice are hashed through XXH3's streaming state with each slice's
  // pages given back; the hash must be the one-shot hash of the same bytes (from_bytes).
  TempFile snap("bighash");
  const auto model = make_random_gcs(77, 1, ModelOptions{2500000, 30});
  REQUIRE(write_model(snap.path(), model, WriterOptions{}).is_ok());
  auto mapped = Recording::open(snap.path());
  REQUIRE(mapped);
  const std::vector<char> bytes = slurp(snap.path());
  REQUIRE(bytes.size() > (size_t{8} << 20) + (size_t{1} << 20));  // more than one slice
  auto in_memory = Recording::from_bytes({reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()});
  REQUIRE(in_memory);
  REQUIRE((*mapped)->gcs().size() == 1);
  auto sliced = (*mapped)->block_hash(0);
  auto whole = (*in_memory)->block_hash(0);
  REQUIRE(sliced);
  REQUIRE(whole);
  CHECK(*sliced == *whole);
  CHECK(*(*mapped)->block_hash(0) == *whole);  // its pages given back, read again from the file
  CHECK((*mapped)->verify_gc(0).is_ok());
  // The pass that hashes the block and checks its object sections, slices given back as it goes.
  auto objects = (*mapped)->read_objects(0, ObjectReadOptions{true});
  REQUIRE(objects);
  std::map<uint32_t, uint64_t> by_type;
  for (uint32_t t : objects->type_ids) ++by_type[t];
  std::vector<Recording::AttestedTypeCount> counts;
  for (const auto& [type, count] : by_type) counts.push_back({type, count});
  CHECK((*mapped)->verify_gc_counted(0, *whole, counts).is_ok());
  CHECK((*in_memory)->verify_gc_counted(0, *whole, counts).is_ok());
  CHECK((*mapped)->verify_gc_counted(0, *whole + 1, counts).error().code == ErrorCode::InvalidArgument);
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
  bad[array_at(good, index_layout::kAddresses) + 6] ^= 0x04;  // in the addresses, which a type-ids read does not use
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

// An index file's bytes with the shortest-path tree decoded, to edit; reseal() codes it again
// and fixes the directory and the checksums (a forged index, as opposed to a damaged one).
struct IndexBytes {
  std::vector<char> bytes;
  std::vector<uint32_t> tree;
  // DECODE false: bytes only (a damaged tree need not decode).
  explicit IndexBytes(const std::vector<char>& file, bool decode = true) : bytes(file) {
    if (!decode) return;
    namespace L = index_layout;
    uint64_t nodes = 0;
    std::memcpy(&nodes, bytes.data() + L::kOffNodes, 8);
    tree.resize(static_cast<size_t>(nodes));
    const auto* at = reinterpret_cast<const unsigned char*>(bytes.data()) + array_at(bytes, L::kPathParents);
    const std::span<const unsigned char> coded(at, array_at(bytes, L::kHolders) - array_at(bytes, L::kPathParents));
    auto frames = detail::split_frames(coded, 4 * nodes);
    REQUIRE(frames);
    auto* out = reinterpret_cast<unsigned char*>(tree.data());
    for (size_t k = 0; k < frames->size(); ++k) {
      const size_t from = k * detail::kFrameBytes;
      const size_t len = std::min(detail::kFrameBytes, 4 * tree.size() - from);
      REQUIRE(detail::decode_frame((*frames)[k], k, L::coding(L::kPathParents, false), {out + from, len}));
    }
  }
  uint32_t* parents(uint64_t) { return tree.data(); }
  void reseal(uint64_t) {
    namespace L = index_layout;
    const std::span<const unsigned char> raw(reinterpret_cast<const unsigned char*>(tree.data()), 4 * tree.size());
    std::vector<unsigned char> coded;
    REQUIRE(detail::encode_array(raw, L::coding(L::kPathParents, false), coded));
    const std::vector<char> holders(bytes.begin() + static_cast<std::ptrdiff_t>(array_at(bytes, L::kHolders)), bytes.end());
    bytes.resize(array_at(bytes, L::kPathParents));
    bytes.insert(bytes.end(), coded.begin(), coded.end());
    bytes.insert(bytes.end(), holders.begin(), holders.end());  // array 18 follows (§12.3)
    const uint64_t len = coded.size();
    std::memcpy(bytes.data() + L::kDirectoryOffset + 8 * L::kPathParents, &len, 8);
    const uint64_t dir = XXH3_64bits(bytes.data() + L::kDirectoryOffset, L::kDirectorySize);
    std::memcpy(bytes.data() + L::kOffDirectoryHash, &dir, 8);
    const uint64_t hash = XXH3_64bits(raw.data(), raw.size());
    std::memcpy(bytes.data() + L::hash_offset(L::kPathParents), &hash, 8);
    const uint64_t header = XXH3_64bits(bytes.data(), L::kOffHeaderHash);
    std::memcpy(bytes.data() + L::kOffHeaderHash, &header, 8);
  }
  std::span<const std::byte> view() { return {reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}; }
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
  flipped[array_at(good, index_layout::kHolders) - 2] ^= 0x01;  // the tree's last byte (array 18 follows)
  IndexBytes damaged(flipped, false);
  auto refused = analysis_index_from_bytes(damaged.view(), nullptr, kIndexPathTree);
  REQUIRE_FALSE(refused);
  CHECK((refused.error().code == ErrorCode::ChecksumMismatch || refused.error().code == ErrorCode::CorruptSection));
  CHECK(analysis_index_from_bytes(damaged.view(), nullptr, kIndexTypes));
}

TEST_CASE("a point lookup decodes only the pieces it reads and answers as a whole read") {
  namespace L = index_layout;
  TempFile snap{"pieces"};
  std::unique_ptr<Recording> rec;
  // One GC with enough objects for several 1 MiB pieces of addresses (131,072 per piece).
  for (uint64_t seed = 1;; ++seed) {
    auto model = make_random_gcs(seed, 1, ModelOptions{420000, 30});
    if (model[0].objects.size() < 300000) continue;
    REQUIRE(write_model(snap.path(), model, WriterOptions{}).is_ok());
    auto opened = Recording::open(snap.path());
    REQUIRE(opened);
    rec = std::move(opened).value();
    if (rec->last_snapshot()) break;
    rec.reset();
  }
  const size_t gc = *rec->last_snapshot();
  REQUIRE(open_analysis_index(snap.path(), *rec, gc, true));
  const std::string path = analysis_index_path(snap.path(), rec->gcs()[gc].info.gc_number);
  struct RemoveIndex {
    std::string path;
    ~RemoveIndex() { std::remove(path.c_str()); }
  } remove_index{path};
  auto id = identify_gc(snap.path(), *rec, gc);
  REQUIRE(id);
  auto whole = read_analysis_index(path, *id, kIndexObjects | kIndexDominators);
  REQUIRE(whole);
  const HeapGraph& g = whole->graph;
  const size_t n = g.node_count();
  REQUIRE(n >= 300000);
  const size_t address_pieces = (8 * n + detail::kFrameBytes - 1) / detail::kFrameBytes;
  REQUIRE(address_pieces >= 3);
  size_t log_pieces = 0;
  while ((size_t{1} << log_pieces) < address_pieces) ++log_pieces;

  std::vector<uint64_t> queries = {0, 1, g.address(0) - 1, ~uint64_t{0}};
  for (NodeIndex v = 0; v < n; v += 7919) {
    queries.push_back(g.address(v));
    queries.push_back(g.address(v) + 1);
    queries.push_back(g.address(v) - 1);
  }
  queries.push_back(g.address(static_cast<NodeIndex>(n - 1)));
  for (uint64_t q : queries) {
    auto found = find_object_in_analysis_index(path, *id, q);
    REQUIRE(found);
    const auto expected = g.find_containing(q);
    REQUIRE(found->object.has_value() == expected.has_value());
    CHECK(found->root_entries == whole->root_entries);
    CHECK(found->has_dependent_handles == whole->has_dependent_handles);
    if (!expected) continue;
    const IndexedObject& o = *found->object;
    REQUIRE(o.node == *expected);
    CHECK(o.address == g.address(o.node));
    CHECK(o.size == g.object_size(o.node));
    CHECK(o.type_id == g.type_id(o.node));
    CHECK(o.generation == whole->generations[o.node]);
    CHECK(o.reachable == whole->dominators.is_reachable(o.node));
    // The binary search over the pieces' first addresses, the piece found, and one piece of
    // each of the sizes, type ids, generations and dominators: O(log n), never the arrays.
    CHECK(found->pieces_decoded <= log_pieces + 1 + 4);
  }

  // The roots, decoded whole, and node type ids a piece at a time, as the whole read has them.
  auto point = PointIndex::open(path, *id);
  REQUIRE(point);
  auto roots = point->roots();
  REQUIRE(roots);
  REQUIRE(roots->first.size() == g.roots().size());
  for (size_t r = 0; r < roots->first.size(); ++r) {
    CHECK(roots->first[r].node == g.roots()[r].node);
    CHECK(roots->first[r].root_index == g.roots()[r].root_index);
    CHECK(roots->first[r].root_id == g.roots()[r].root_id);
    CHECK(roots->first[r].kind == g.roots()[r].kind);
    CHECK(roots->first[r].flags == g.roots()[r].flags);
  }
  CHECK(same(roots->second, g.unresolved_roots()));
  const size_t before = point->pieces_decoded();
  for (NodeIndex v = 0; v < n; v += 4999) {
    auto type = point->type_id(v);
    REQUIRE(type);
    CHECK(*type == g.type_id(v));
  }
  // In node order, each piece of the type ids is decoded once.
  CHECK(point->pieces_decoded() - before == (4 * n + detail::kFrameBytes - 1) / detail::kFrameBytes);
  CHECK_FALSE(point->type_id(static_cast<NodeIndex>(n)));

  // The nearest objects of some types and their tree paths, as the whole read's tree gives
  // them (run_type's ranking: fewest hops, node order among equals), through the pieces (a
  // few targets) and through the parents decoded whole (many).
  {
    auto full = read_analysis_index(path, *id, kIndexObjects | kIndexForward | kIndexPathTree);
    REQUIRE(full);
    auto tree = kept_path_tree(*full, full->graph);
    REQUIRE(tree);
    auto types = point->type_ids();
    REQUIRE(types);
    REQUIRE(types->size() >= 2);
    const std::vector<std::vector<uint32_t>> asks = {{types->front()}, {(*types)[types->size() / 2]}, *types,
                                                     {types->back() + 1}};
    bool saw_few = false, saw_many = false;
    for (const auto& ask : asks) {
      auto nodes = point->nodes_of_types(ask);
      REQUIRE(nodes);
      std::vector<NodeIndex> expected_nodes;
      for (NodeIndex v = 0; v < n; ++v)
        if (std::binary_search(ask.begin(), ask.end(), full->graph.type_id(v))) expected_nodes.push_back(v);
      REQUIRE(*nodes == expected_nodes);
      std::vector<std::pair<size_t, NodeIndex>> ranked;
      for (NodeIndex v : expected_nodes)
        if (const size_t hops = tree->hops_to(v); hops != SIZE_MAX) ranked.emplace_back(hops, v);
      std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      // Sub-ranges of the targets cross the threshold between the two ways of reading parents.
      for (size_t count : {std::min<size_t>(expected_nodes.size(), 200), std::min<size_t>(expected_nodes.size(), 3000),
                           expected_nodes.size()}) {
        const std::span<const NodeIndex> targets(expected_nodes.data(), count);
        (count > PointIndex::kChaseThroughPieces ? saw_many : saw_few) = true;
        std::vector<std::pair<size_t, NodeIndex>> want;
        for (const auto& r : ranked)
          if (std::binary_search(targets.begin(), targets.end(), r.second)) want.push_back(r);
        for (size_t limit : {size_t{0}, size_t{1}, size_t{3}, size_t{50}}) {
          if (limit == 0 && count > 3000) continue;  // every path of 300,000 objects: slow, and no new case
          auto got = point->nearest_tree_paths(targets, limit);
          REQUIRE(got);
          CHECK(got->reached == want.size());
          const size_t shown = limit == 0 ? want.size() : std::min(limit, want.size());
          REQUIRE(got->paths.size() == shown);
          for (size_t i = 0; i < shown; ++i) {
            const RetentionPath expected = tree->path_to(want[i].second);
            CHECK(got->paths[i].nodes == expected.nodes);
            CHECK(got->paths[i].root == expected.root);
            REQUIRE(got->paths[i].edges.size() == expected.edges.size());
            for (size_t e = 0; e < expected.edges.size(); ++e) CHECK(got->paths[i].edges[e].kind == expected.edges[e].kind);
          }
        }
      }
    }
    CHECK(saw_few);
    CHECK(saw_many);
    CHECK_FALSE(point->nearest_tree_paths(std::vector<NodeIndex>{static_cast<NodeIndex>(n)}, 1));
  }

  // A damaged piece stops the lookups that read it, not the ones that do not.
  const std::vector<char> good = slurp(path);
  std::vector<char> bad = good;
  const size_t last_piece_end = array_at(good, L::kAddresses + 1);
  bad[last_piece_end - 20] ^= 0x40;
  spit(path, bad);
  auto last = find_object_in_analysis_index(path, *id, g.address(static_cast<NodeIndex>(n - 1)));
  REQUIRE_FALSE(last);
  CHECK((last.error().code == ErrorCode::ChecksumMismatch || last.error().code == ErrorCode::CorruptSection));
  auto below_all = find_object_in_analysis_index(path, *id, g.address(0) - 1);
  REQUIRE(below_all);
  CHECK_FALSE(below_all->object);
  // A stale index is refused before any piece is read.
  IndexIdentity other = *id;
  other.mtime_ns += 1;
  CHECK(find_object_in_analysis_index(path, other, g.address(0)).error().code == ErrorCode::InconsistentData);
}

TEST_CASE("folded top retainers read from pieces equal top_retainer_chains over the whole index") {
  // Random recordings whose objects have two types (and every root holds an object), so that
  // chains of one type are common; the rows with N and a type filter, head by head.
  size_t chained = 0, compared = 0;
  for (uint64_t seed = 301; seed < 341; ++seed) {
    TempFile snap{"fold"};
    auto model = make_random_gcs(seed, 3, ModelOptions{400, 30});
    for (ModelGc& gc : model) {
      for (uint32_t& t : gc.objects.type_ids) t %= 2;
      for (size_t k = 0; k < gc.roots.object_ids.size() && gc.objects.size() != 0; ++k)
        gc.roots.object_ids[k] = gc.objects.addresses[(k * 7919) % gc.objects.size()];
    }
    REQUIRE(write_model(snap.path(), model, WriterOptions{}).is_ok());
    auto rec = Recording::open(snap.path());
    REQUIRE(rec);
    if (!(*rec)->last_snapshot()) continue;
    const size_t gc = *(*rec)->last_snapshot();
    REQUIRE(open_analysis_index(snap.path(), **rec, gc, true));
    const std::string path = analysis_index_path(snap.path(), (*rec)->gcs()[gc].info.gc_number);
    struct RemoveIndex {
      std::string path;
      ~RemoveIndex() { std::remove(path.c_str()); }
    } remove_index{path};
    auto id = identify_gc(snap.path(), **rec, gc);
    REQUIRE(id);
    auto whole = read_analysis_index(path, *id, kIndexObjects | kIndexDominators);
    REQUIRE(whole);
    auto point = PointIndex::open(path, *id);
    REQUIRE(point);
    const std::vector<uint32_t> no_filter, type_one = {1};
    for (size_t n : {size_t{1}, size_t{3}, size_t{50}}) {
      for (const auto* filter : {&no_filter, &type_one}) {
        auto want = top_retainer_chains(whole->graph, whole->dominators, n, *filter);
        REQUIRE(want);
        auto got = point->top_retainers(n, *filter, true);
        REQUIRE(got);
        REQUIRE(got->size() == want->size());
        for (size_t i = 0; i < want->size(); ++i) {
          const NodeIndex h = (*want)[i].head;
          CHECK((*got)[i].object.node == h);
          CHECK((*got)[i].chain == (*want)[i].length);
          CHECK((*got)[i].retained == whole->dominators.retained_size(h));
          CHECK((*got)[i].depth == whole->dominators.depth(h));
          const NodeIndex d = whole->dominators.immediate_dominator(h);
          REQUIRE((*got)[i].dominator.has_value() == (d != kVirtualRoot));
          if (d != kVirtualRoot) CHECK((*got)[i].dominator->node == d);
          chained += (*want)[i].length > 1;
          ++compared;
        }
      }
    }
  }
  CHECK(compared > 100);
  CHECK(chained > 20);  // the recordings do exercise folding
}
