#include "heap_sim.hpp"

namespace gcsnap::test {

namespace {

// Append (old, new, size) to runs, merging with the last run when both sides are adjacent.
template <typename Run>
void add_run(std::vector<Run>& runs, uint64_t old_start, uint64_t new_start, uint64_t size) {
  if (!runs.empty()) {
    Run& last = runs.back();
    if (last.old_start + last.length == old_start && last.new_start + last.length == new_start) {
      last.length += size;
      return;
    }
  }
  runs.push_back(Run{old_start, new_start, size});
}

}  // namespace

void HeapSim::compact_region(Region& region, std::vector<size_t>& survivors, bool slide,
                             std::vector<Relocation>& moved, std::vector<size_t>& emptied, size_t index) {
  if (slide) {
    uint64_t used = 0;
    for (size_t id : survivors) {
      SimObject& o = objects_[id];
      add_run(moved, o.address, region.start + used, o.size);
      o.address = region.start + used;
      used += o.size;
    }
    region.used = used;
    region.objects = survivors;
    return;
  }
  const Generation target = promote(region.gen);
  size_t& dest = dest_region_[static_cast<size_t>(target)];
  for (size_t id : survivors) {
    SimObject& o = objects_[id];
    const uint64_t to = place(dest, target, o.size, id);
    add_run(moved, o.address, to, o.size);
    o.address = to;
    o.gen = target;
  }
  emptied.push_back(index);
}

void HeapSim::report(const std::vector<Relocation>& moved, const std::vector<Relocation>& surviving, RangeTable& out) {
  auto pieces = [&](const std::vector<Relocation>& runs) {
    std::vector<Relocation> out_runs;
    for (const auto& r : runs) {
      if (options_.split_and_shuffle_ranges && r.length > 8 && pick(0, 4) == 0) {
        const uint64_t cut = 8 * static_cast<uint64_t>(pick(1, static_cast<int>((r.length - 1) / 8)));
        out_runs.push_back(Relocation{r.old_start, r.new_start, cut});
        out_runs.push_back(Relocation{r.old_start + cut, r.new_start + cut, r.length - cut});
      } else {
        out_runs.push_back(r);
      }
    }
    if (options_.split_and_shuffle_ranges) std::shuffle(out_runs.begin(), out_runs.end(), rng_);
    return out_runs;
  };
  for (const auto& r : pieces(moved)) {
    out.moved_old_starts.push_back(r.old_start);
    out.moved_new_starts.push_back(r.new_start);
    out.moved_lengths.push_back(r.length);
  }
  for (const auto& r : pieces(surviving)) {
    out.surviving_starts.push_back(r.old_start);
    out.surviving_lengths.push_back(r.length);
  }
}

const SimGc& HeapSim::collect() {
  const uint64_t n = gcs_.size() + 1;
  const int roll = pick(0, 9);
  const int condemned_gen = roll < 5 ? 0 : roll < 8 ? 1 : 2;
  const bool compacting = pick(0, 1) == 1;
  SimGc gc;
  gc.info.gc_number = n;
  for (int g = 0; g <= condemned_gen; ++g) gc.info.generations_collected |= static_cast<uint8_t>(1u << g);
  if (condemned_gen == 2)
    gc.info.generations_collected = static_cast<uint8_t>(gc.info.generations_collected | generation_bit(Generation::LargeObjectHeap) | generation_bit(Generation::PinnedObjectHeap));
  gc.info.compacted = compacting;

  std::vector<size_t> condemned;
  for (size_t r = 0; r < regions_.size(); ++r) {
    const Region& region = regions_[r];
    if (!region.in_use) continue;
    const bool uoh = region.gen == Generation::LargeObjectHeap || region.gen == Generation::PinnedObjectHeap;
    if (uoh ? condemned_gen == 2 : static_cast<int>(region.gen) <= condemned_gen) condemned.push_back(r);
  }
  std::fill(std::begin(dest_region_), std::end(dest_region_), SIZE_MAX);
  std::vector<Relocation> moved, surviving;
  std::vector<size_t> emptied;
  for (size_t r : condemned) {
    Region& region = regions_[r];
    std::vector<size_t> survivors;
    for (size_t id : region.objects) {
      if (objects_[id].reachable) survivors.push_back(id);
      else objects_[id].died_at = n;
    }
    const bool uoh = region.gen == Generation::LargeObjectHeap || region.gen == Generation::PinnedObjectHeap;
    if (uoh || !compacting) {
      for (size_t id : survivors) add_run(surviving, objects_[id].address, objects_[id].address, objects_[id].size);
      if (!uoh) region.gen = promote(region.gen);
      for (size_t id : survivors) objects_[id].gen = region.gen;
      region.objects = survivors;
    } else if (region.gen == Generation::Gen2) {
      compact_region(region, survivors, true, moved, emptied, r);
    } else if (pick(0, 999) < static_cast<int>(options_.sip_probability * 1000)) {
      // A region kept in place by a compacting GC: reported as zero-relocation moves.
      for (size_t id : survivors) add_run(moved, objects_[id].address, objects_[id].address, objects_[id].size);
      region.gen = promote(region.gen);
      for (size_t id : survivors) objects_[id].gen = region.gen;
      region.objects = survivors;
    } else {
      compact_region(region, survivors, false, moved, emptied, r);
    }
    if (regions_[r].objects.empty() && std::find(emptied.begin(), emptied.end(), r) == emptied.end()) emptied.push_back(r);
  }
  for (size_t r : emptied) {
    regions_[r].in_use = false;
    regions_[r].objects.clear();
    free_.push_back(r);
    for (size_t& a : alloc_region_)
      if (a == r) a = SIZE_MAX;
  }
  alloc_region_[static_cast<size_t>(Generation::Gen0)] = SIZE_MAX;
  report(moved, surviving, gc.ranges);

  for (const Region& region : regions_)
    if (region.in_use) gc.bounds.push_back(GenerationRange{region.gen, region.start, region.used, kRegionSize});
  if (options_.split_and_shuffle_ranges) std::shuffle(gc.bounds.begin(), gc.bounds.end(), rng_);
  gc.address.resize(objects_.size());
  gc.gen.resize(objects_.size());
  for (size_t id = 0; id < objects_.size(); ++id) {
    gc.address[id] = objects_[id].address;
    gc.gen[id] = objects_[id].gen;
    if (!objects_[id].died_at) gc.present.push_back(id);
  }
  std::sort(gc.present.begin(), gc.present.end(), [&](size_t x, size_t y) { return gc.address[x] < gc.address[y]; });
  gcs_.push_back(std::move(gc));
  return gcs_.back();
}

Status write_sim_gc(Writer& w, const HeapSim& sim, const SimGc& g, bool walk, uint64_t number,
                    uint64_t dropped_ranges) {
  GcInfo info = g.info;
  info.gc_number = number;
  info.trigger = walk ? SnapshotTrigger::Policy : SnapshotTrigger::None;
  GCSNAP_RETURN_IF_ERROR(w.begin_gc(info));
  GCSNAP_RETURN_IF_ERROR(w.add_generation_bounds(g.bounds));
  GCSNAP_RETURN_IF_ERROR(w.add_surviving_ranges(g.ranges.surviving_starts, g.ranges.surviving_lengths));
  GCSNAP_RETURN_IF_ERROR(w.add_moved_ranges(g.ranges.moved_old_starts, g.ranges.moved_new_starts, g.ranges.moved_lengths));
  if (walk) {
    const ObjectTable t = sim.walk(g.info.gc_number);
    std::vector<uint8_t> gens;
    for (Generation x : t.generations) gens.push_back(static_cast<uint8_t>(x));
    const std::vector<uint32_t> counts(t.size(), 0);
    GCSNAP_RETURN_IF_ERROR(w.add_objects(t.addresses, t.type_ids, t.sizes, gens, counts, {}));
  }
  if (dropped_ranges) {
    DropCounts drops;
    drops.ranges = dropped_ranges;
    GCSNAP_RETURN_IF_ERROR(w.add_drops(drops));
  }
  return w.end_gc(info);
}

}  // namespace gcsnap::test

