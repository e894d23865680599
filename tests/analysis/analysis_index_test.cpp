// The analysis index (format-spec.md §12): what is read back equals what was computed, and a
// stale, damaged or foreign index is refused (the commands then rebuild it).
#include "gcsnap/analysis_index.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

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
  explicit Fixture(uint64_t seed) {
    for (;; seed += 1000) {
      model = make_random_gcs(seed, 3, ModelOptions{400, 30});
      REQUIRE(write_model(snap.path(), model, WriterOptions{}).is_ok());
      auto opened = Recording::open(snap.path());
      REQUIRE(opened);
      rec = std::move(opened).value();
      if (rec->last_snapshot()) return;
    }
  }
  ~Fixture() {
    for (const auto& gc : rec->gcs()) std::remove(gc_index_path(snap.path(), gc.info.gc_number).c_str());
  }
};

template <typename A, typename B>
bool same(const A& a, const B& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

void check_equal(const GcIndex& a, const GcIndex& b) {
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
}

std::vector<char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("an index read back equals the analyses computed from the recording") {
  for (uint64_t seed : {1u, 2u, 3u}) {
    Fixture f(seed);
    for (size_t gc = 0; gc < f.rec->gcs().size(); ++gc) {
      if (!f.rec->gcs()[gc].has_heap_walk()) continue;
      auto built = open_gc_index(f.snap.path(), *f.rec, gc, true);
      REQUIRE(built);
      CHECK(built->source == IndexSource::BuiltSaved);
      auto again = open_gc_index(f.snap.path(), *f.rec, gc, true);
      REQUIRE(again);
      CHECK(again->source == IndexSource::Read);
      auto fresh = compute_gc_index(*f.rec, gc);
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
    }
  }
}

TEST_CASE("a damaged index is refused and rebuilt") {
  Fixture f(7);
  const size_t gc = *f.rec->last_snapshot();
  REQUIRE(open_gc_index(f.snap.path(), *f.rec, gc, true));
  const std::string path = gc_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number);
  const std::vector<char> good = slurp(path);
  REQUIRE(good.size() > 512);
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  // A flipped bit anywhere: in the header, in the payload, and the file cut short.
  for (size_t at : {size_t{70}, size_t{300}, good.size() / 2, good.size() - 1}) {
    std::vector<char> bad = good;
    bad[at] ^= 0x10;
    spit(path, bad);
    auto read = read_gc_index(path, *id);
    REQUIRE_FALSE(read);
    // The structural checks run in the same pass as the checksum, so either may see it first.
    const ErrorCode code = read.error().code;
    CHECK((code == ErrorCode::ChecksumMismatch || code == ErrorCode::CorruptSection));
    auto rebuilt = open_gc_index(f.snap.path(), *f.rec, gc, true);
    REQUIRE(rebuilt);
    CHECK(rebuilt->source == IndexSource::BuiltSaved);
    CHECK(rebuilt->rejected.code != ErrorCode::Ok);
    CHECK(slurp(path) == good);
  }
  std::vector<char> cut(good.begin(), good.end() - 8);
  spit(path, cut);
  CHECK(read_gc_index(path, *id).error().code == ErrorCode::Truncated);
  spit(path, std::vector<char>(good.begin(), good.begin() + 100));
  CHECK(read_gc_index(path, *id).error().code == ErrorCode::Truncated);
}

TEST_CASE("a partial read checks the arrays it maps, a whole read every byte") {
  Fixture f(9);
  const size_t gc = *f.rec->last_snapshot();
  REQUIRE(open_gc_index(f.snap.path(), *f.rec, gc, true));
  const std::string path = gc_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number);
  const std::vector<char> good = slurp(path);
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  REQUIRE(read_gc_index(path, *id, kIndexTypes));
  // The first array (addresses, at the end of the 384-byte header) and the last (the type
  // histogram, which ends the file).
  const size_t in_addresses = 384 + 3, in_types = good.size() - 1;
  std::vector<char> bad = good;
  bad[in_addresses] ^= 0x04;
  spit(path, bad);
  auto types_only = read_gc_index(path, *id, kIndexTypes);
  REQUIRE(types_only);  // the damage is in an array it does not use
  CHECK_FALSE(types_only->type_stats.empty());
  CHECK(types_only->graph.node_count() == 0);
  CHECK(types_only->root_entries == f.rec->gcs()[gc].root_count);
  CHECK_FALSE(read_gc_index(path, *id, kIndexObjects | kIndexDominators));
  CHECK_FALSE(read_gc_index(path, *id));
  CHECK(open_gc_index(f.snap.path(), *f.rec, gc, true, {}, kIndexObjects)->source == IndexSource::BuiltSaved);
  CHECK(slurp(path) == good);
  bad = good;
  bad[in_types] ^= 0x04;
  spit(path, bad);
  CHECK_FALSE(read_gc_index(path, *id, kIndexTypes));
  auto objects = read_gc_index(path, *id, kIndexObjects | kIndexDominators);
  REQUIRE(objects);
  CHECK(objects->type_stats.empty());
  CHECK(objects->graph.node_count() > 0);
  CHECK(objects->unreachable_objects == objects->dominators.unreachable_count());
  CHECK_FALSE(read_gc_index(path, *id));
  // Padding between arrays is seen by a whole read only.
  std::vector<char> padded = good;
  size_t pad = 0;
  for (size_t i = 384; i + 1 < padded.size() && pad == 0; ++i)
    if (padded[i] == 0 && i % 64 == 63 && padded[i - 1] == 0 && padded[i - 2] == 0 && padded[i - 3] == 0) pad = i;
  if (pad != 0) {
    padded[pad] = 1;
    spit(path, padded);
    auto whole = read_gc_index(path, *id);
    // Either a padding byte (the whole read says so) or a zero element inside an array
    // (its checksum or rule says so): never accepted.
    CHECK_FALSE(whole);
  }
}

TEST_CASE("an index of a recording that changed is stale and rebuilt") {
  Fixture f(11);
  const size_t gc = *f.rec->last_snapshot();
  REQUIRE(open_gc_index(f.snap.path(), *f.rec, gc, true));
  const std::string path = gc_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number);
  // Another modification time: the recording may have been rewritten.
  struct stat st {};
  REQUIRE(::stat(f.snap.path().c_str(), &st) == 0);
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  times[1].tv_sec += 10;
  REQUIRE(::utimensat(AT_FDCWD, f.snap.path().c_str(), times, 0) == 0);
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  CHECK(read_gc_index(path, *id).error().code == ErrorCode::InconsistentData);
  auto rebuilt = open_gc_index(f.snap.path(), *f.rec, gc, true);
  REQUIRE(rebuilt);
  CHECK(rebuilt->source == IndexSource::BuiltSaved);
  CHECK(rebuilt->rejected.code == ErrorCode::InconsistentData);
  CHECK(open_gc_index(f.snap.path(), *f.rec, gc, true)->source == IndexSource::Read);
  // The index of another GC is not taken for this one.
  for (size_t other = 0; other < f.rec->gcs().size(); ++other) {
    if (other == gc || !f.rec->gcs()[other].has_heap_walk()) continue;
    auto other_id = identify_gc(f.snap.path(), *f.rec, other);
    REQUIRE(other_id);
    CHECK(read_gc_index(path, *other_id).error().code == ErrorCode::InconsistentData);
  }
}

TEST_CASE("an index that cannot be written still answers") {
  Fixture f(5);
  const size_t gc = *f.rec->last_snapshot();
  // A directory of the index's name makes the rename fail, as a read-only directory would.
  const std::string path = gc_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number);
  REQUIRE(::mkdir(path.c_str(), 0755) == 0);
  auto opened = open_gc_index(f.snap.path(), *f.rec, gc, true);
  ::rmdir(path.c_str());
  REQUIRE(opened);
  CHECK(opened->source == IndexSource::BuiltKept);
  CHECK(opened->write_error.code == ErrorCode::IoError);
  CHECK(opened->index.graph.node_count() == f.rec->gcs()[gc].object_count);
  // Asked not to write: nothing is tried.
  auto none = open_gc_index(f.snap.path(), *f.rec, gc, false);
  REQUIRE(none);
  CHECK(none->source == IndexSource::BuiltKept);
  CHECK(none->write_error.code == ErrorCode::Ok);
}

TEST_CASE("index bytes not aligned like a mapping are refused, not read") {
  Fixture f(11);
  const size_t gc = *f.rec->last_snapshot();
  REQUIRE(open_gc_index(f.snap.path(), *f.rec, gc, true));
  const std::vector<char> good = slurp(gc_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number));
  std::vector<uint64_t> storage(good.size() / 8 + 2);
  auto* base = reinterpret_cast<std::byte*>(storage.data());
  std::memcpy(base, good.data(), good.size());
  REQUIRE(gc_index_from_bytes({base, good.size()}, nullptr));
  std::memmove(base + 4, base, good.size());
  auto shifted = gc_index_from_bytes({base + 4, good.size()}, nullptr);
  REQUIRE_FALSE(shifted);
  CHECK(shifted.error().code == ErrorCode::InvalidArgument);
}

TEST_CASE("an index records the hash of the block it was built from, and verify can lean on it") {
  Fixture f(13);
  const size_t gc = *f.rec->last_snapshot();
  auto opened = open_gc_index(f.snap.path(), *f.rec, gc, true);
  REQUIRE(opened);
  auto now = f.rec->block_hash(gc);
  REQUIRE(now);
  CHECK(*now != 0);
  CHECK(opened->index.block_hash == *now);
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  auto read = read_gc_index(gc_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number), *id, kIndexObjects);
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
  auto built = open_gc_index(f.snap.path(), *f.rec, gc, true);
  REQUIRE(built);
  const std::string path = gc_index_path(f.snap.path(), f.rec->gcs()[gc].info.gc_number);
  auto id = identify_gc(f.snap.path(), *f.rec, gc);
  REQUIRE(id);
  auto whole = read_gc_index(path, *id);
  REQUIRE(whole);
  const std::vector<char> good = slurp(path);
  std::vector<char> bad = good;
  bad[384 + 3] ^= 0x04;  // in the addresses, which a type-ids read does not use
  spit(path, bad);
  auto types = read_gc_index(path, *id, kIndexTypeIds);
  REQUIRE(types);
  CHECK((types->parts & kIndexObjects) == 0);
  REQUIRE(types->graph.node_count() == whole->graph.node_count());
  CHECK(same(types->graph.type_ids(), whole->graph.type_ids()));
  REQUIRE(types->graph.roots().size() == whole->graph.roots().size());
  for (size_t r = 0; r < whole->graph.roots().size(); ++r) CHECK(types->graph.roots()[r].node == whole->graph.roots()[r].node);
  CHECK(same(types->graph.unresolved_roots(), whole->graph.unresolved_roots()));
  CHECK_FALSE(read_gc_index(path, *id, kIndexObjects));  // the node columns include the addresses
  spit(path, good);
}
