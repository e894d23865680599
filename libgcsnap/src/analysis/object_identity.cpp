#include "gcsnap/object_identity.hpp"

#include <algorithm>
#include <numeric>

namespace gcsnap {

const char* fate_name(Fate fate) noexcept {
  switch (fate) {
    case Fate::Moved: return "moved";
    case Fate::Stayed: return "stayed";
    case Fate::NotCondemned: return "not-condemned";
    case Fate::NonGcHeap: return "non-gc-heap";
    case Fate::Died: return "died";
    case Fate::Unknown: return "unknown";
  }
  return "unknown";
}

const char* generation_name(Generation generation) noexcept {
  switch (generation) {
    case Generation::Gen0: return "gen0";
    case Generation::Gen1: return "gen1";
    case Generation::Gen2: return "gen2";
    case Generation::LargeObjectHeap: return "loh";
    case Generation::PinnedObjectHeap: return "poh";
    case Generation::NonGcHeap: return "non-gc-heap";
    case Generation::Unknown: return "unknown";
  }
  return "unknown";
}

namespace {

// Sort parallel columns by the first one; return the permutation applied.
std::vector<size_t> order_by(const std::vector<uint64_t>& keys) {
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  return order;
}

template <typename T>
std::vector<T> permute(const std::vector<T>& values, const std::vector<size_t>& order) {
  std::vector<T> out;
  out.reserve(order.size());
  for (size_t i : order) out.push_back(values[i]);
  return out;
}

// Index of the range holding x in sorted, disjoint [start, start+len) ranges, or npos.
size_t find_range(const std::vector<uint64_t>& starts, const std::vector<uint64_t>& lengths, uint64_t x) {
  auto it = std::upper_bound(starts.begin(), starts.end(), x);
  if (it == starts.begin()) return SIZE_MAX;
  const size_t i = static_cast<size_t>(it - starts.begin()) - 1;
  return x - starts[i] < lengths[i] ? i : SIZE_MAX;
}

bool overlaps_or_wraps(const std::vector<uint64_t>& starts, const std::vector<uint64_t>& lengths) {
  for (size_t i = 0; i < starts.size(); ++i) {
    if (starts[i] + lengths[i] < starts[i]) return true;
    if (i + 1 < starts.size() && starts[i] + lengths[i] > starts[i + 1]) return true;
  }
  return false;
}

}  // namespace

GenerationMap::GenerationMap(std::span<const GenerationRange> ranges) {
  std::vector<GenerationRange> sorted;
  for (const auto& r : ranges)
    if (r.length != 0) sorted.push_back(r);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  for (const auto& r : sorted) {
    starts_.push_back(r.start);
    ends_.push_back(r.start + r.length < r.start ? UINT64_MAX : r.start + r.length);
    generations_.push_back(r.generation);
  }
}

Generation GenerationMap::find(uint64_t address) const noexcept {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), address);
  if (it == starts_.begin()) return Generation::Unknown;
  const size_t i = static_cast<size_t>(it - starts_.begin()) - 1;
  return address < ends_[i] ? generations_[i] : Generation::Unknown;
}

bool is_condemned(const GcInfo& info, Generation g) noexcept {
  const bool gen2 = (info.generations_collected & kGenBit(Generation::Gen2)) != 0;
  switch (g) {
    case Generation::Gen0:
    case Generation::Gen1:
    case Generation::Gen2: return static_cast<int>(g) <= info.condemned_generation();
    case Generation::LargeObjectHeap:
    case Generation::PinnedObjectHeap: return gen2 || (info.generations_collected & kGenBit(g)) != 0;
    case Generation::NonGcHeap: return false;
    case Generation::Unknown: return gen2;
  }
  return gen2;
}

Generation promoted_generation(const GcInfo& info, Generation g) noexcept {
  if (g == Generation::Gen0 || g == Generation::Gen1) {
    if (!is_condemned(info, g)) return g;
    return static_cast<Generation>(static_cast<uint8_t>(g) + 1);
  }
  return g;
}

Result<GcTransition> GcTransition::build(const GcInfo& info, const RangeTable& ranges,
                                         std::span<const GenerationRange> bounds_before) {
  GcTransition t;
  t.info_ = info;
  std::vector<uint64_t> old_starts, new_starts, lengths;
  for (size_t i = 0; i < ranges.moved_old_starts.size(); ++i) {
    if (ranges.moved_lengths[i] == 0) continue;
    old_starts.push_back(ranges.moved_old_starts[i]);
    new_starts.push_back(ranges.moved_new_starts[i]);
    lengths.push_back(ranges.moved_lengths[i]);
  }
  auto order = order_by(old_starts);
  t.moved_old_ = permute(old_starts, order);
  t.moved_new_ = permute(new_starts, order);
  t.moved_len_ = permute(lengths, order);
  std::vector<uint64_t> starts, slens;
  for (size_t i = 0; i < ranges.surviving_starts.size(); ++i) {
    if (ranges.surviving_lengths[i] == 0) continue;
    starts.push_back(ranges.surviving_starts[i]);
    slens.push_back(ranges.surviving_lengths[i]);
  }
  order = order_by(starts);
  t.surv_start_ = permute(starts, order);
  t.surv_len_ = permute(slens, order);
  if (overlaps_or_wraps(t.moved_old_, t.moved_len_))
    return make_error(ErrorCode::InconsistentData, "moved ranges of one GC overlap");
  if (overlaps_or_wraps(t.surv_start_, t.surv_len_))
    return make_error(ErrorCode::InconsistentData, "surviving ranges of one GC overlap");
  for (size_t i = 0; i < t.moved_new_.size(); ++i)
    if (t.moved_new_[i] + t.moved_len_[i] < t.moved_new_[i])
      return make_error(ErrorCode::InconsistentData, "a moved range wraps around the address space");
  t.bounds_before_ = GenerationMap(bounds_before);
  std::vector<GenerationRange> sorted(bounds_before.begin(), bounds_before.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  for (const auto& r : sorted) {
    if (r.length == 0) continue;
    t.bound_starts_.push_back(r.start);
    t.bound_ends_.push_back(r.start + r.length < r.start ? UINT64_MAX : r.start + r.length);
    t.bound_gens_.push_back(r.generation);
  }
  return t;
}

GcTransition::Step GcTransition::classify(uint64_t address, Generation hint, Generation from_bounds) const noexcept {
  Step step;
  step.address = address;
  step.generation_before = from_bounds != Generation::Unknown ? from_bounds : hint;
  if (step.generation_before == Generation::NonGcHeap) step.fate = Fate::NonGcHeap;
  else if (step.generation_before == Generation::Unknown && !is_condemned(info_, Generation::Unknown)) step.fate = Fate::Unknown;
  else if (!is_condemned(info_, step.generation_before)) step.fate = Fate::NotCondemned;
  else step.fate = Fate::Died;
  return step;
}

GcTransition::Step GcTransition::follow(uint64_t address, Generation hint) const noexcept {
  const size_t m = find_range(moved_old_, moved_len_, address);
  const Generation from_bounds = bounds_before_.find(address);
  if (m != SIZE_MAX) {
    const uint64_t to = moved_new_[m] + (address - moved_old_[m]);
    return Step{to == address ? Fate::Stayed : Fate::Moved, to, from_bounds != Generation::Unknown ? from_bounds : hint};
  }
  if (find_range(surv_start_, surv_len_, address) != SIZE_MAX)
    return Step{Fate::Stayed, address, from_bounds != Generation::Unknown ? from_bounds : hint};
  return classify(address, hint, from_bounds);
}

void GcTransition::follow_sorted(std::span<const uint64_t> addresses, std::span<const Generation> hints,
                                 std::span<Step> out) const noexcept {
  size_t m = 0, s = 0, b = 0;
  for (size_t i = 0; i < addresses.size(); ++i) {
    const uint64_t x = addresses[i];
    const Generation hint = hints.empty() ? Generation::Unknown : hints[i];
    while (m < moved_old_.size() && moved_old_[m] + moved_len_[m] <= x) ++m;
    while (s < surv_start_.size() && surv_start_[s] + surv_len_[s] <= x) ++s;
    while (b < bound_starts_.size() && bound_ends_[b] <= x) ++b;
    const Generation from_bounds =
        b < bound_starts_.size() && bound_starts_[b] <= x ? bound_gens_[b] : Generation::Unknown;
    const Generation before = from_bounds != Generation::Unknown ? from_bounds : hint;
    if (m < moved_old_.size() && moved_old_[m] <= x) {
      const uint64_t to = moved_new_[m] + (x - moved_old_[m]);
      out[i] = Step{to == x ? Fate::Stayed : Fate::Moved, to, before};
    } else if (s < surv_start_.size() && surv_start_[s] <= x) {
      out[i] = Step{Fate::Stayed, x, before};
    } else {
      out[i] = classify(x, hint, from_bounds);
    }
  }
}

BulkMapper::BulkMapper(std::span<const uint64_t> addresses, std::span<const Generation> generations)
    : addresses_(addresses.begin(), addresses.end()), died_at_(addresses.size(), 0) {
  if (generations.size() == addresses.size()) generations_.assign(generations.begin(), generations.end());
  else generations_.assign(addresses.size(), Generation::Unknown);
  order_.resize(addresses_.size());
  std::iota(order_.begin(), order_.end(), size_t{0});
  if (!std::is_sorted(addresses_.begin(), addresses_.end()))
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return addresses_[a] < addresses_[b]; });
  alive_ = addresses_.size();
}

void BulkMapper::apply(const GcTransition& gc) {
  // order_ holds the alive objects sorted by address, so one merge pass answers them all.
  std::vector<uint64_t> sorted(order_.size());
  std::vector<Generation> hints(order_.size());
  for (size_t k = 0; k < order_.size(); ++k) {
    sorted[k] = addresses_[order_[k]];
    hints[k] = generations_[order_[k]];
  }
  std::vector<GcTransition::Step> steps(order_.size());
  gc.follow_sorted(sorted, hints, steps);
  std::vector<size_t> next;
  next.reserve(order_.size());
  bool still_sorted = true;
  for (size_t k = 0; k < order_.size(); ++k) {
    const size_t i = order_[k];
    const auto& step = steps[k];
    if (step.fate == Fate::Died) {
      died_at_[i] = gc.info().gc_number;
      --alive_;
      continue;
    }
    if (!next.empty() && addresses_[next.back()] > step.address) still_sorted = false;
    addresses_[i] = step.address;
    const Generation before = step.generation_before;
    const bool in_place = step.fate == Fate::NotCondemned || step.fate == Fate::NonGcHeap || step.fate == Fate::Unknown;
    generations_[i] = in_place ? before : promoted_generation(gc.info(), before);
    next.push_back(i);
  }
  if (!still_sorted)
    std::sort(next.begin(), next.end(), [&](size_t a, size_t b) { return addresses_[a] < addresses_[b]; });
  order_ = std::move(next);
}

}  // namespace gcsnap
