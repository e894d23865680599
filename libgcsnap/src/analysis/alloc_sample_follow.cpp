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

// Apply GC POS to every alive sample in TRACKED (sorted by address here), dropping the dead.
Status apply_gc(const Recording& recording, size_t pos, std::vector<FollowedSample>& out, std::vector<Tracked>& tracked) {
  auto transition = read_transition(recording, pos);
  if (!transition) return transition.status();
  std::sort(tracked.begin(), tracked.end(),
            [&](const Tracked& a, const Tracked& b) { return out[a.index].address < out[b.index].address; });
  GcTransition::Cursor cursor(*transition);
  const GcInfo& info = recording.gcs()[pos].info;
  size_t kept = 0;
  for (const Tracked& t : tracked) {
    FollowedSample& f = out[t.index];
    const auto step = cursor.next(f.address, t.generation);
    if (step.fate == Fate::Died) {
      f.alive = false;
      f.died_gc = info.gc_number;
      continue;
    }
    f.address = step.address;
    const Generation before = step.generation_before != Generation::Unknown ? step.generation_before : t.generation;
    tracked[kept++] = Tracked{t.index, promoted_generation(info, before)};
  }
  tracked.resize(kept);
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
    for (const AllocSample& s : *samples) {
      tracked.push_back(Tracked{out.size(), generation_of(s.heap)});
      out.push_back(FollowedSample{s, static_cast<uint32_t>(pos), true, false, s.address, 0});
    }
    if (gcs[pos].drops.ranges != 0) {
      for (const Tracked& t : tracked) out[t.index].alive = false, out[t.index].lost = true;
      tracked.clear();
      continue;
    }
    if (!tracked.empty()) GCSNAP_RETURN_IF_ERROR(apply_gc(recording, pos, out, tracked));
  }
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "following allocation samples");
}

}  // namespace gcsnap
