#include "gcsnap/object_age.hpp"

#include <algorithm>
#include <new>
#include <numeric>
#include <optional>

#include "gcsnap/object_identity.hpp"

namespace gcsnap {

namespace {

// One GC's ranges, looked up by where objects were after the GC.
class BackwardRanges {
 public:
  explicit BackwardRanges(const RangeTable& r) {
    moved_.reserve(r.moved_new_starts.size());
    for (size_t i = 0; i < r.moved_new_starts.size(); ++i)
      moved_.push_back({r.moved_new_starts[i], r.moved_lengths[i], r.moved_old_starts[i]});
    surviving_.reserve(r.surviving_starts.size());
    for (size_t i = 0; i < r.surviving_starts.size(); ++i)
      surviving_.push_back({r.surviving_starts[i], r.surviving_lengths[i], r.surviving_starts[i]});
    auto by_start = [](const Span& a, const Span& b) { return a.start < b.start; };
    std::sort(moved_.begin(), moved_.end(), by_start);
    std::sort(surviving_.begin(), surviving_.end(), by_start);
  }

  /// The address before the GC of an object at `after` that a range says survived it.
  std::optional<uint64_t> source(uint64_t after) const noexcept {
    if (auto s = find(moved_, after)) return s->source + (after - s->start);
    if (find(surviving_, after)) return after;
    return std::nullopt;
  }

 private:
  struct Span {
    uint64_t start, length, source;
  };
  static const Span* find(const std::vector<Span>& spans, uint64_t x) noexcept {
    auto it = std::upper_bound(spans.begin(), spans.end(), x, [](uint64_t v, const Span& s) { return v < s.start; });
    if (it == spans.begin()) return nullptr;
    --it;
    return x - it->start < it->length ? &*it : nullptr;
  }
  std::vector<Span> moved_, surviving_;
};

}  // namespace

Result<std::vector<ObjectAge>> trace_object_ages(const Recording& recording, size_t gc_pos,
                                                 std::span<const uint64_t> addresses,
                                                 std::span<const Generation> generations) try {
  const auto gcs = recording.gcs();
  if (gc_pos >= gcs.size()) return make_error(ErrorCode::NotFound, "no GC with this index");
  if (!generations.empty() && generations.size() != addresses.size())
    return make_error(ErrorCode::InvalidArgument, "generations are not one per address");
  std::vector<ObjectAge> ages(addresses.size());
  std::vector<uint64_t> at(addresses.begin(), addresses.end());
  std::vector<size_t> pending;
  for (size_t i = 0; i < addresses.size(); ++i) {
    if (!generations.empty() && generations[i] == Generation::NonGcHeap) ages[i] = ObjectAge{gc_pos, true};
    else pending.push_back(i);
  }
  auto stop_all = [&] {
    for (size_t i : pending) ages[i].at_least = true;
    pending.clear();
  };
  // Through the walk's own GC: where each object was before it (it lived through it).
  if (!pending.empty()) {
    if (gcs[gc_pos].drops.ranges) stop_all();
    auto ranges = recording.read_ranges(gc_pos);
    if (!ranges) return ranges.error();
    const BackwardRanges back(*ranges);
    for (size_t i : pending) at[i] = back.source(at[i]).value_or(at[i]);
  }
  for (size_t g = gc_pos; g-- > 0 && !pending.empty();) {
    // at[] holds addresses after GC g only if nothing happened in between that was not recorded.
    if (!has_complete_transition(recording, g + 1) || gcs[g].drops.ranges) {
      stop_all();
      break;
    }
    auto ranges = recording.read_ranges(g);
    if (!ranges) return ranges.error();
    auto bounds = recording.read_generation_bounds(g);
    if (!bounds) return bounds.error();
    if (bounds->empty()) {  // no generation can be told: the count stops here
      stop_all();
      break;
    }
    auto map = GenerationMap::build(*bounds);
    if (!map) return map.error();
    const BackwardRanges back(*ranges);
    std::vector<size_t> still;
    for (size_t i : pending) {
      std::optional<uint64_t> before = back.source(at[i]);
      if (!before) {
        // Untouched by g: a generation g did not collect. In no bound, or in a collected
        // generation and no range: it was not there yet.
        const Generation gen = map->find(at[i]);
        if (gen != Generation::Unknown && !is_condemned(gcs[g].info, gen)) before = at[i];
      }
      if (!before) continue;
      at[i] = *before;
      ++ages[i].gcs;
      still.push_back(i);
    }
    pending = std::move(still);
  }
  stop_all();  // lived through every recorded GC before
  return ages;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "out of memory tracing object ages");
}

}  // namespace gcsnap
