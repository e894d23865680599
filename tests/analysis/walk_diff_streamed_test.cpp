// diff_walks with the earlier GC's four columns read a block at a time (WalkView::objects, as
// `gcsnap diff` reads an analysis index's pieces when B is the GC right after A), each object
// followed through that GC as it comes, against the diff of A held whole (BulkMapper): the same
// answer over simulated heaps whose GCs reorder objects, blocks of every size, roots at objects'
// starts, inside them and between them; a source that fails is told, not answered from.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gcsnap/object_identity.hpp"
#include "gcsnap/walk_diff.hpp"
#include "gcsnap/writer.hpp"
#include "heap_sim.hpp"
#include "temp_path.hpp"

namespace gcsnap::test {
namespace {

// A's columns handed out in blocks of the given lengths (the last repeated), through buffers
// that every block overwrites, as an index's reader reuses its own.
class VectorObjectBlocks final : public ObjectBlocks {
 public:
  VectorObjectBlocks(const ObjectTable& t, std::vector<size_t> lengths) : t_(t), lengths_(std::move(lengths)) {}
  size_t size() const noexcept override { return t_.size(); }
  Status next(Block& block) override {
    if (calls_++ == fail_at_) return make_error(ErrorCode::ChecksumMismatch, "test source");
    const size_t len = std::min(lengths_[std::min(block_, lengths_.size() - 1)], t_.size() - done_);
    ++block_;
    copy(t_.addresses, addresses_, len);
    copy(t_.sizes, sizes_, len);
    copy(t_.type_ids, type_ids_, len);
    copy(t_.generations, generations_, len);
    done_ += len;
    block = Block{addresses_, sizes_, type_ids_, generations_};
    return Status::ok();
  }
  size_t fail_at_ = SIZE_MAX;  // the call of next() that fails
  size_t calls_ = 0;

 private:
  template <typename T>
  void copy(const std::vector<T>& from, std::vector<T>& to, size_t len) const {
    to.assign(from.begin() + static_cast<std::ptrdiff_t>(done_),
              from.begin() + static_cast<std::ptrdiff_t>(done_ + len));
  }
  const ObjectTable& t_;
  std::vector<size_t> lengths_;
  size_t block_ = 0, done_ = 0;
  std::vector<uint64_t> addresses_, sizes_;
  std::vector<uint32_t> type_ids_;
  std::vector<Generation> generations_;
};

// Roots at some of T's objects: at their start, inside them, and just past the last one.
RootTable roots_of(const ObjectTable& t, std::mt19937_64& rng) {
  RootTable roots;
  auto add = [&](uint64_t object) {
    roots.object_ids.push_back(object);
    roots.kinds.push_back(RootKind::Handle);
    roots.flags.push_back(0);
    roots.root_ids.push_back(roots.size());
  };
  for (size_t k = 0; k < t.size(); k += 1 + rng() % 7) add(t.addresses[k] + (rng() % 2 ? t.sizes[k] / 2 : 0));
  if (t.size()) add(t.addresses.back() + t.sizes.back() + 8);
  add(0);
  return roots;
}

void check_same(const WalkDiff& streamed, const WalkDiff& whole) {
  CHECK(streamed.new_count == whole.new_count);
  CHECK(streamed.new_bytes == whole.new_bytes);
  CHECK(streamed.dead_count == whole.dead_count);
  CHECK(streamed.dead_bytes == whole.dead_bytes);
  CHECK(streamed.surviving_count == whole.surviving_count);
  CHECK(streamed.surviving_bytes == whole.surviving_bytes);
  CHECK(streamed.missing_count == whole.missing_count);
  CHECK(streamed.missing_bytes == whole.missing_bytes);
  CHECK(streamed.roots.added == whole.roots.added);
  CHECK(streamed.roots.removed == whole.roots.removed);
  CHECK(streamed.roots.unchanged == whole.roots.unchanged);
  for (auto groups :
       {std::pair{&streamed.new_groups, &whole.new_groups}, std::pair{&streamed.dead_groups, &whole.dead_groups}}) {
    REQUIRE(groups.first->size() == groups.second->size());
    for (size_t g = 0; g < groups.first->size(); ++g) {
      CHECK((*groups.first)[g].name == (*groups.second)[g].name);
      CHECK((*groups.first)[g].bytes == (*groups.second)[g].bytes);
      CHECK((*groups.first)[g].members == (*groups.second)[g].members);
    }
  }
}

}  // namespace

TEST_CASE("a diff following A's objects in blocks equals the diff of A held whole", "[diff][objects][sim]") {
  size_t compared = 0, reordered = 0;
  for (uint64_t seed = 3200; seed < 3230; ++seed) {
    HeapSim sim(seed);
    for (int i = 0; i < 8; ++i) {
      sim.mutate();
      sim.collect();
    }
    TempFile file("walk-diff-streamed-" + std::to_string(seed));
    {
      auto w = Writer::create(file.path());
      REQUIRE(w.is_ok());
      for (const auto& g : sim.gcs()) REQUIRE(write_sim_gc(**w, sim, g, true, g.info.gc_number).is_ok());
      REQUIRE((*w)->close().is_ok());
    }
    auto rec = Recording::open(file.path());
    REQUIRE(rec.is_ok());
    std::mt19937_64 rng(seed);
    const size_t a_pos = std::uniform_int_distribution<size_t>(0, sim.gcs().size() - 2)(rng);
    auto a = read_heap_walk(**rec, a_pos);
    auto b = read_heap_walk(**rec, a_pos + 1);
    REQUIRE(a.is_ok());
    REQUIRE(b.is_ok());
    a->roots = roots_of(a->objects, rng);
    b->roots = roots_of(b->objects, rng);
    auto whole = diff_walks(**rec, *a, *b, WalkDiffOptions{});
    REQUIRE(whole.is_ok());
    // The GC moved some of A's survivors below others: the merge's strays were exercised.
    auto mapper = BulkMapper::create(a->objects.addresses, a->objects.generations);
    REQUIRE(mapper.is_ok());
    BulkMapper* one[] = {&*mapper};
    REQUIRE(map_objects(**rec, a_pos, a_pos + 1, one).is_ok());
    std::vector<uint64_t> at_b;
    for (size_t i = 0; i < a->objects.size(); ++i)
      if (mapper->is_alive(i)) at_b.push_back(mapper->addresses()[i]);
    reordered += !std::is_sorted(at_b.begin(), at_b.end());
    for (const std::vector<size_t>& lengths :
         {std::vector<size_t>{1}, std::vector<size_t>{3, 1, 7}, std::vector<size_t>{a->objects.size() + 1}}) {
      INFO("seed " << seed << ", A = GC " << a->gc_number << ", first block " << lengths[0]);
      VectorObjectBlocks blocks(a->objects, lengths);
      WalkView view_a = view_of(*a);
      view_a.addresses = view_a.sizes = {};
      view_a.type_ids = {};
      view_a.generations = {};
      view_a.objects = &blocks;
      auto streamed = diff_walks(**rec, view_a, view_of(*b), WalkDiffOptions{});
      REQUIRE(streamed.is_ok());
      check_same(*streamed, *whole);
      compared += whole->surviving_count > 0 && whole->new_count > 0 && whole->dead_count > 0;
    }
  }
  CHECK(compared > 30);
  CHECK(reordered > 3);
}

TEST_CASE("a diff following A's objects in blocks tells a source that fails, and a GC too far",
          "[diff][objects][sim]") {
  HeapSim sim(3300);
  for (int i = 0; i < 4; ++i) {
    sim.mutate();
    sim.collect();
  }
  TempFile file("walk-diff-streamed-fail");
  {
    auto w = Writer::create(file.path());
    REQUIRE(w.is_ok());
    for (const auto& g : sim.gcs()) REQUIRE(write_sim_gc(**w, sim, g, true, g.info.gc_number).is_ok());
    REQUIRE((*w)->close().is_ok());
  }
  auto rec = Recording::open(file.path());
  REQUIRE(rec.is_ok());
  auto a = read_heap_walk(**rec, 0);
  auto b = read_heap_walk(**rec, 1);
  auto c = read_heap_walk(**rec, 2);
  REQUIRE((a.is_ok() && b.is_ok() && c.is_ok()));
  REQUIRE(a->objects.size() > 2);
  const size_t blocks_then_end = (a->objects.size() + 1) / 2 + 1;
  for (size_t fail_at = 0; fail_at <= blocks_then_end; ++fail_at) {
    INFO("call " << fail_at << " fails");
    VectorObjectBlocks blocks(a->objects, {2});
    blocks.fail_at_ = fail_at;
    WalkView view_a = view_of(*a);
    view_a.addresses = view_a.sizes = {};
    view_a.type_ids = {};
    view_a.generations = {};
    view_a.objects = &blocks;
    auto diff = diff_walks(**rec, view_a, view_of(*b), WalkDiffOptions{});
    if (fail_at < blocks_then_end) {
      REQUIRE(!diff);
      CHECK(diff.error().code == ErrorCode::ChecksumMismatch);
    } else {
      CHECK(diff.is_ok());
    }
    if (fail_at == 0) {
      // Two GCs on: the blocks are only for the GC right after A.
      CHECK(diff_walks(**rec, view_a, view_of(*c), WalkDiffOptions{}).error().code == ErrorCode::InvalidArgument);
    }
  }
}

}  // namespace gcsnap::test
