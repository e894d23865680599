// Following allocation samples through the GCs after them, and their estimates
// (format-spec.md §6.18; the identity rules of object_identity.hpp).

#include <algorithm>
#include <cmath>
#include <new>

#include "gcsnap/alloc_samples.hpp"
#include "gcsnap/object_identity.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap {
namespace {

Generation generation_of(AllocHeap heap) noexcept {
  switch (heap) {
    case AllocHeap::Large: return Generation::LargeObjectHeap;
    case AllocHeap::Pinned: return Generation::PinnedObjectHeap;
    default: return Generation::Gen0;
  }
}

struct Tracked {
  size_t index;       // into the output
  Generation generation;
};

// Apply GC POS to every alive sample in TRACKED (sorted by address here), dropping the dead;
// the last FRESH of TRACKED are the samples of POS's own block.
Status apply_gc(const Recording& recording, size_t pos, std::vector<FollowedSample>& out, std::vector<Tracked>& tracked,
                size_t fresh) {
  auto transition = read_transition(recording, pos);
  if (!transition) return transition.status();
  // TRACKED is the followed samples in address order (the invariant this function keeps), then
  // this block's (FRESH of them): sort those and merge. After the GC the samples that kept their
  // address stay in order; the moved ones are sorted apart and merged back, so a GC costs
  // O(alive + moved log moved), not a sort of every followed sample.
  const auto by_address = [&](const Tracked& a, const Tracked& b) { return out[a.index].address < out[b.index].address; };
  const auto middle = tracked.end() - static_cast<ptrdiff_t>(fresh);
  std::sort(middle, tracked.end(), by_address);
  std::inplace_merge(tracked.begin(), middle, tracked.end(), by_address);
  GcTransition::Cursor cursor(*transition);
  const GcInfo& info = recording.gcs()[pos].info;
  std::vector<Tracked> moved;
  size_t kept = 0;
  for (const Tracked& t : tracked) {
    FollowedSample& f = out[t.index];
    const auto step = cursor.next(f.address, t.generation);
    if (step.fate == Fate::Died) {
      f.alive = false;
      f.died_gc = info.gc_number;
      continue;
    }
    const Generation before = step.generation_before != Generation::Unknown ? step.generation_before : t.generation;
    const Tracked next{t.index, promoted_generation(info, before)};
    if (step.address != f.address) {
      f.address = step.address;
      moved.push_back(next);
    } else {
      tracked[kept++] = next;
    }
  }
  tracked.resize(kept);
  std::sort(moved.begin(), moved.end(), by_address);
  tracked.insert(tracked.end(), moved.begin(), moved.end());
  std::inplace_merge(tracked.begin(), tracked.begin() + static_cast<ptrdiff_t>(kept), tracked.end(), by_address);
  return {};
}

}  // namespace

double estimated_bytes(const AllocSample& s) noexcept {
  if (s.kind == AllocSampleKind::Tick) return double(s.scale) * double(s.amount);
  const double p = -std::expm1(double(s.size) * std::log1p(-kAllocSampleRate));  // 1 - q^s
  return double(s.scale) * double(s.size) / p;
}

double estimated_objects(const AllocSample& s) noexcept {
  if (s.kind == AllocSampleKind::Tick) return double(s.scale) * double(s.amount) / double(s.size);
  const double p = -std::expm1(double(s.size) * std::log1p(-kAllocSampleRate));
  return double(s.scale) / p;
}

Result<std::vector<FollowedSample>> follow_alloc_samples(const Recording& recording, size_t first_pos,
                                                         size_t last_pos) try {
  const auto gcs = recording.gcs();
  if (first_pos > last_pos || last_pos >= gcs.size()) return make_error(ErrorCode::NotFound, "no such GC index");
  std::vector<FollowedSample> out;
  std::vector<Tracked> tracked;
  for (size_t pos = first_pos; pos <= last_pos; ++pos) {
    if (pos > first_pos && !has_complete_transition(recording, pos)) {
      // The GCs in the gap may have moved or freed them: no longer followed, not counted live.
      for (const Tracked& t : tracked) out[t.index].alive = false, out[t.index].lost = true;
      tracked.clear();
    }
    auto samples = read_alloc_samples(recording, pos);
    if (!samples) return samples.status();
    const size_t fresh = samples->size();
    for (const AllocSample& s : *samples) {
      tracked.push_back(Tracked{out.size(), generation_of(s.heap)});
      out.push_back(FollowedSample{s, static_cast<uint32_t>(pos), true, false, s.address, 0});
    }
    if (gcs[pos].drops.ranges != 0) {
      for (const Tracked& t : tracked) out[t.index].alive = false, out[t.index].lost = true;
      tracked.clear();
      continue;
    }
    if (!tracked.empty()) GCSNAP_RETURN_IF_ERROR(apply_gc(recording, pos, out, tracked, fresh));
  }
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "following allocation samples");
}

}  // namespace gcsnap
