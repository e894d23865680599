// The object diff with B's columns read a block at a time (ColumnBlocks, as `gcsnap diff` reads
// an analysis index's pieces) against the diff of the columns held whole: the same answer over
// simulated heaps and blocks of every size, each block's buffer reused, and a source that
// fails or runs short or long is told, not answered from.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gcsnap/object_diff.hpp"
#include "gcsnap/object_identity.hpp"
#include "heap_sim.hpp"

namespace gcsnap::test {
namespace {

// B's columns handed out in blocks of the given lengths (the last repeated), through one
// buffer that every block overwrites, as an index's reader reuses its piece buffers.
class VectorBlocks final : public ColumnBlocks {
 public:
  VectorBlocks(std::vector<uint64_t> addresses, std::vector<uint64_t> sizes, std::vector<size_t> lengths)
      : addresses_(std::move(addresses)), sizes_(std::move(sizes)), lengths_(std::move(lengths)) {}
  size_t size() const noexcept override { return claimed_ ? *claimed_ : addresses_.size(); }
  Status next(std::span<const uint64_t>& addresses, std::span<const uint64_t>& sizes) override {
    if (calls_++ == fail_at_) return make_error(ErrorCode::ChecksumMismatch, "test source");
    const size_t len = std::min(lengths_[std::min(block_, lengths_.size() - 1)], addresses_.size() - done_);
    ++block_;
    buffer_a_.assign(addresses_.begin() + static_cast<std::ptrdiff_t>(done_),
                     addresses_.begin() + static_cast<std::ptrdiff_t>(done_ + len));
    buffer_s_.assign(sizes_.begin() + static_cast<std::ptrdiff_t>(done_),
                     sizes_.begin() + static_cast<std::ptrdiff_t>(done_ + len));
    done_ += len;
    addresses = buffer_a_;
    sizes = buffer_s_;
    return Status::ok();
  }
  std::optional<size_t> claimed_;  // a size() other than the columns' length
  size_t fail_at_ = SIZE_MAX;      // the call of next() that fails
  size_t calls_ = 0;

 private:
  std::vector<uint64_t> addresses_, sizes_;
  std::vector<size_t> lengths_;
  size_t block_ = 0, done_ = 0;
  std::vector<uint64_t> buffer_a_, buffer_s_;
};

GcTransition transition(const HeapSim& sim, uint64_t n) {
  const auto& g = sim.gcs()[n - 1];
  std::vector<GenerationRange> before;
  if (n > 1) before = sim.gcs()[n - 2].bounds;
  auto t = GcTransition::build(g.info, g.ranges, before);
  REQUIRE(t.is_ok());
  return std::move(t).value();
}

}  // namespace

TEST_CASE("object diff from blocks equals the diff of whole columns", "[diff][objects][sim]") {
  size_t compared = 0;
  for (uint64_t seed = 3000; seed < 3040; ++seed) {
    HeapSim sim(seed);
    for (int i = 0; i < 8; ++i) {
      sim.mutate();
      sim.collect();
    }
    std::mt19937_64 rng(seed);
    const uint64_t gcs = sim.gcs().size();
    const uint64_t a_gc = std::uniform_int_distribution<uint64_t>(1, gcs)(rng);
    const uint64_t b_gc = std::uniform_int_distribution<uint64_t>(a_gc, gcs)(rng);
    const ObjectTable a = sim.walk(a_gc), b = sim.walk(b_gc);
    auto mapper = BulkMapper::create(a.addresses, a.generations);
    REQUIRE(mapper);
    for (uint64_t n = a_gc + 1; n <= b_gc; ++n) REQUIRE(mapper->apply(transition(sim, n)).is_ok());
    auto whole = diff_objects(a.sizes, b.addresses, b.sizes, mapper->addresses(), AliveBits{mapper->alive_bits()}, false);
    REQUIRE(whole);
    for (const std::vector<size_t>& lengths : {std::vector<size_t>{1}, std::vector<size_t>{3, 1, 7},
                                               std::vector<size_t>{b.size() + 1}}) {
      INFO("seed " << seed << ", first block " << lengths[0]);
      VectorBlocks blocks(b.addresses, b.sizes, lengths);
      auto streamed = diff_objects(a.sizes, blocks, mapper->addresses(), AliveBits{mapper->alive_bits()});
      REQUIRE(streamed);
      CHECK(streamed->new_objects == whole->new_objects);
      CHECK(streamed->dead_objects == whole->dead_objects);
      CHECK(streamed->missing_in_b == whole->missing_in_b);
      CHECK(streamed->surviving_count == whole->surviving_count);
      CHECK(streamed->surviving_bytes_a == whole->surviving_bytes_a);
      CHECK(streamed->surviving_bytes_b == whole->surviving_bytes_b);
      CHECK(streamed->new_bytes == whole->new_bytes);
      CHECK(streamed->dead_bytes == whole->dead_bytes);
      CHECK(streamed->b_index_of_a.empty());
      REQUIRE(streamed->new_sizes.size() == streamed->new_objects.size());
      for (size_t k = 0; k < streamed->new_objects.size(); ++k)
        REQUIRE(streamed->new_sizes[k] == b.sizes[streamed->new_objects[k]]);
      compared += streamed->new_objects.size() > 0 && whole->surviving_count > 0;
    }
  }
  CHECK(compared > 20);  // most pairs had both survivors and new objects to compare
}

TEST_CASE("object diff from alive bits equals the diff from died-at GC numbers", "[diff][objects][sim]") {
  size_t compared = 0;
  for (uint64_t seed = 3100; seed < 3130; ++seed) {
    HeapSim sim(seed);
    for (int i = 0; i < 8; ++i) {
      sim.mutate();
      sim.collect();
    }
    std::mt19937_64 rng(seed);
    const uint64_t gcs = sim.gcs().size();
    const uint64_t a_gc = std::uniform_int_distribution<uint64_t>(1, gcs)(rng);
    const uint64_t b_gc = std::uniform_int_distribution<uint64_t>(a_gc, gcs)(rng);
    const ObjectTable a = sim.walk(a_gc), b = sim.walk(b_gc);
    // Half the seeds give the objects out of address order (the mapper's permutation).
    std::vector<size_t> order(a.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = seed % 2 ? order.size() - 1 - k : k;
    std::vector<uint64_t> addresses, sizes;
    std::vector<Generation> generations;
    for (size_t k : order) {
      addresses.push_back(a.addresses[k]);
      sizes.push_back(a.sizes[k]);
      generations.push_back(a.generations[k]);
    }
    auto mapper = BulkMapper::create(addresses, generations);
    REQUIRE(mapper);
    for (uint64_t n = a_gc + 1; n <= b_gc; ++n) REQUIRE(mapper->apply(transition(sim, n)).is_ok());
    std::vector<uint64_t> died(a.size());
    for (size_t k = 0; k < died.size(); ++k) {
      died[k] = mapper->died_at(k);
      REQUIRE((died[k] == 0) == mapper->is_alive(k));
      REQUIRE((died[k] == 0 || (died[k] > a_gc && died[k] <= b_gc)));
    }
    INFO("seed " << seed);
    auto from_numbers = diff_objects(sizes, b.addresses, b.sizes, mapper->addresses(), died);
    auto from_bits = diff_objects(sizes, b.addresses, b.sizes, mapper->addresses(), AliveBits{mapper->alive_bits()});
    REQUIRE(from_numbers);
    REQUIRE(from_bits);
    CHECK(from_bits->new_objects == from_numbers->new_objects);
    CHECK(from_bits->dead_objects == from_numbers->dead_objects);
    CHECK(from_bits->b_index_of_a == from_numbers->b_index_of_a);
    CHECK(from_bits->missing_in_b == from_numbers->missing_in_b);
    CHECK(from_bits->surviving_count == from_numbers->surviving_count);
    CHECK(from_bits->surviving_bytes_a == from_numbers->surviving_bytes_a);
    CHECK(from_bits->new_bytes == from_numbers->new_bytes);
    CHECK(from_bits->dead_bytes == from_numbers->dead_bytes);
    compared += !from_bits->dead_objects.empty() && from_bits->surviving_count > 0;
  }
  CHECK(compared > 10);
  // Too few words for A's objects.
  const std::vector<uint64_t> words(1, ~uint64_t{0}), none;
  const std::vector<uint64_t> at_b(65, 0x1000);
  CHECK(diff_objects({}, none, none, at_b, AliveBits{words}).error().code == ErrorCode::InvalidArgument);
}

TEST_CASE("object diff from blocks tells a source that fails, runs short or runs long", "[diff][objects]") {
  const std::vector<uint64_t> a_sizes = {16, 16, 32};
  const std::vector<uint64_t> at_b = {0x1100, 0x1200, 0x1300};
  const std::vector<uint64_t> died = {0, 0, 0};
  const std::vector<uint64_t> b_addresses = {0x1000, 0x1100, 0x1200, 0x1300, 0x1400};
  const std::vector<uint64_t> b_sizes = {1, 2, 4, 8, 16};
  for (size_t fail_at = 0; fail_at < 7; ++fail_at) {
    INFO("call " << fail_at << " fails");
    VectorBlocks blocks(b_addresses, b_sizes, {1});
    blocks.fail_at_ = fail_at;
    auto diff = diff_objects(a_sizes, blocks, at_b, died);
    // Five blocks of one and the end: any of the six calls failing fails the diff.
    if (fail_at < 6) {
      REQUIRE(!diff);
      CHECK(diff.error().code == ErrorCode::ChecksumMismatch);
    } else {
      REQUIRE(diff);
      CHECK(diff->new_objects == std::vector<size_t>{0, 4});
      CHECK(diff->new_sizes == std::vector<uint64_t>{1, 16});
      CHECK(diff->surviving_bytes_b == 2 + 4 + 8);
    }
  }
  for (size_t claimed : {size_t{4}, size_t{6}, size_t{0}}) {
    INFO("the source claims " << claimed << " objects of 5");
    VectorBlocks blocks(b_addresses, b_sizes, {2});
    blocks.claimed_ = claimed;
    auto diff = diff_objects(a_sizes, blocks, at_b, died);
    REQUIRE(!diff);
    CHECK(diff.error().code == ErrorCode::CorruptSection);
  }
  VectorBlocks blocks(b_addresses, b_sizes, {2});
  CHECK(diff_objects(a_sizes, blocks, std::vector<uint64_t>{1}, died).error().code == ErrorCode::InvalidArgument);
}

TEST_CASE("groups of listed members equal the groups of whole columns", "[diff][objects]") {
  // TypeRecord names are views: the strings they view outlive the records.
  std::vector<std::string> type_names;
  for (uint32_t id = 1; id <= 6; ++id) type_names.push_back(id == 6 ? "T1" : "T" + std::to_string(id));
  std::vector<TypeRecord> records;
  for (uint32_t id = 1; id <= 6; ++id) records.push_back(TypeRecord{id, 0, type_names[id - 1], ""});
  auto names = NameTable::from_records(std::move(records));
  REQUIRE(names);
  std::mt19937_64 rng(11);
  std::vector<uint32_t> type_ids(500);
  std::vector<uint64_t> sizes(500);
  for (size_t i = 0; i < 500; ++i) {
    type_ids[i] = 1 + static_cast<uint32_t>(rng() % 6);
    sizes[i] = 8 + rng() % 100;
  }
  std::vector<size_t> rows;
  for (size_t i = 0; i < 500; i += 1 + rng() % 3) rows.push_back(i);
  std::vector<uint32_t> listed_types;
  std::vector<uint64_t> listed_sizes;
  for (size_t i : rows) {
    listed_types.push_back(type_ids[i]);
    listed_sizes.push_back(sizes[i]);
  }
  for (const GroupSelection& selection :
       {GroupSelection{}, GroupSelection{2, {}}, GroupSelection{0, [](std::string_view n) { return n != "T3"; }}}) {
    const auto whole = group_by_type(type_ids, sizes, *names, rows, selection).value();
    const auto listed = group_listed_by_type(listed_types, listed_sizes, *names, rows, selection).value();
    REQUIRE(listed.size() == whole.size());
    for (size_t g = 0; g < whole.size(); ++g) {
      CHECK(listed[g].name == whole[g].name);
      CHECK(listed[g].count == whole[g].count);
      CHECK(listed[g].bytes == whole[g].bytes);
      CHECK(listed[g].members == whole[g].members);
    }
  }
  CHECK(group_listed_by_type(listed_types, sizes, *names, rows).error().code == ErrorCode::InvalidArgument);
}

}  // namespace gcsnap::test
