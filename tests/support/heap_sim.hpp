#pragma once
// A simulated regions-based GC heap that keeps explicit address bookkeeping: every object
// has an id, an address per GC and the GC it died at. Each GC reports the moved/surviving
// ranges and generation bounds the CoreCLR runtime would report, so identity and diffs
// computed from the ranges alone can be checked against the simulation's ground truth.

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/writer.hpp"

namespace gcsnap::test {

struct SimObject {
  uint64_t address = 0, size = 0;
  uint32_t type = 0;
  Generation gen = Generation::Gen0;
  bool reachable = true;
  uint64_t died_at = 0;  // GC number; 0 while present
};

/// What GC n reported, and the truth after it.
struct SimGc {
  GcInfo info;
  RangeTable ranges;
  std::vector<GenerationRange> bounds;  // recorded at the end of this GC
  std::vector<size_t> present;          // ids of present objects, sorted by address
  std::vector<uint64_t> address;        // per id (ids allocated so far)
  std::vector<Generation> gen;          // per id
};

struct SimOptions {
  bool split_and_shuffle_ranges = true;  // report ranges in pieces and in random order
  bool free_regions_reused = true;       // pick free regions at random (address reuse)
  double sip_probability = 0.15;         // compacting GC keeps a region in place
};

class HeapSim {
 public:
  static constexpr uint64_t kRegionSize = 0x10000;
  static constexpr uint64_t kBase = 0x200000000;
  static constexpr uint64_t kNonGcBase = 0x100000000;
  static constexpr size_t kRegions = 2048;

  explicit HeapSim(uint64_t seed, SimOptions options = {}) : rng_(seed), options_(options) {
    regions_.resize(kRegions);
    for (size_t i = 0; i < kRegions; ++i) {
      regions_[i].start = kBase + i * kRegionSize;
      free_.push_back(i);
    }
  }

  /// Allocate some objects and drop references to some others.
  void mutate() {
    const int count = pick(0, 150);
    for (int i = 0; i < count; ++i) {
      const int kind = pick(0, 99);
      const auto type = static_cast<uint32_t>(pick(1, 8));
      if (kind < 90) allocate(Generation::Gen0, 8u * static_cast<uint64_t>(pick(3, 64)), type);
      else if (kind < 95) allocate(Generation::LargeObjectHeap, 0x1000u * static_cast<uint64_t>(pick(1, 3)), type + 10);
      else if (kind < 98) allocate(Generation::PinnedObjectHeap, 8u * static_cast<uint64_t>(pick(3, 16)), type + 20);
      else allocate_non_gc(type + 30);
    }
    for (auto& o : objects_) {
      if (o.died_at || !o.reachable || o.gen == Generation::NonGcHeap) continue;
      const int per_mille = o.gen == Generation::Gen0 ? 300 : o.gen == Generation::Gen1 ? 100 : 30;
      if (pick(0, 999) < per_mille) o.reachable = false;
    }
  }

  /// Run the next GC and return what it reported.
  const SimGc& collect();

  const std::vector<SimGc>& gcs() const { return gcs_; }
  const std::vector<SimObject>& objects() const { return objects_; }

  /// The heap walk after GC n (all present objects, reachable or not), with no references.
  ObjectTable walk(uint64_t gc_number) const {
    const SimGc& g = gcs_[gc_number - 1];
    ObjectTable t;
    for (size_t id : g.present) {
      t.addresses.push_back(g.address[id]);
      t.type_ids.push_back(objects_[id].type);
      t.sizes.push_back(objects_[id].size);
      t.generations.push_back(g.gen[id]);
    }
    t.reference_offsets.assign(t.addresses.size() + 1, 0);
    return t;
  }

 private:
  struct Region {
    uint64_t start = 0, used = 0;
    Generation gen = Generation::Gen0;
    bool in_use = false;
    std::vector<size_t> objects;  // address order
  };

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  size_t take_region(Generation gen) {
    const size_t k = options_.free_regions_reused ? static_cast<size_t>(pick(0, static_cast<int>(free_.size()) - 1)) : 0;
    const size_t r = free_[k];
    free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(k));
    regions_[r] = Region{regions_[r].start, 0, gen, true, {}};
    return r;
  }

  // Place an object at the end of region `*r`, opening a new region when it is full.
  uint64_t place(size_t& r, Generation gen, uint64_t size, size_t id) {
    if (r == SIZE_MAX || regions_[r].used + size > kRegionSize) r = take_region(gen);
    Region& region = regions_[r];
    const uint64_t address = region.start + region.used;
    region.used += size;
    region.objects.push_back(id);
    return address;
  }

  void allocate(Generation gen, uint64_t size, uint32_t type) {
    const size_t id = objects_.size();
    objects_.push_back(SimObject{0, size, type, gen, true, 0});
    objects_[id].address = place(alloc_region_[static_cast<size_t>(gen)], gen, size, id);
  }

  void allocate_non_gc(uint32_t type) {
    objects_.push_back(SimObject{kNonGcBase + non_gc_used_, 32, type, Generation::NonGcHeap, true, 0});
    non_gc_used_ += 32;
  }

  static Generation promote(Generation g) { return g == Generation::Gen0 ? Generation::Gen1 : Generation::Gen2; }

  struct Relocation {
    uint64_t old_start, new_start, length;
  };
  void compact_region(Region& region, std::vector<size_t>& survivors, bool slide, std::vector<Relocation>& moved,
                      std::vector<size_t>& emptied, size_t index);
  void report(const std::vector<Relocation>& moved, const std::vector<Relocation>& surviving, RangeTable& out);

  std::mt19937_64 rng_;
  SimOptions options_;
  std::vector<Region> regions_;
  std::vector<size_t> free_;
  size_t alloc_region_[5] = {SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};
  size_t dest_region_[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
  uint64_t non_gc_used_ = 0;
  std::vector<SimObject> objects_;
  std::vector<SimGc> gcs_;
};

/// Write what GC g of the simulation reported as GC `number` of w's recording: bounds and
/// ranges, the heap walk (objects without references) when `walk`, and `dropped_ranges`
/// lost ranges when non-zero (a gap in what was recorded).
Status write_sim_gc(Writer& w, const HeapSim& sim, const SimGc& g, bool walk, uint64_t number,
                    uint64_t dropped_ranges = 0);

}  // namespace gcsnap::test
