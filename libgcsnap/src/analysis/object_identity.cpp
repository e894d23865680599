#include "gcsnap/object_identity.hpp"

#include <algorithm>
#include <bit>
#include <new>
#include <numeric>

#include "format/row_order.hpp"
#include "huge_pages.hpp"

namespace gcsnap {

namespace {

// Sort parallel columns by the first one; return the permutation applied.
std::vector<size_t> order_by(const std::vector<uint64_t>& keys) {
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  return order;
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

// Function-try-blocks: every allocation failure of these entry points becomes OutOfMemory
// (docs/library.md "Errors"); nothing else in them throws.
Result<GenerationMap> GenerationMap::build(std::span<const GenerationRange> ranges) try {
  GenerationMap map;
  std::vector<GenerationRange> sorted;
  for (const auto& r : ranges)
    if (r.length != 0) sorted.push_back(r);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  for (const auto& r : sorted) {
    map.starts_.push_back(r.start);
    map.ends_.push_back(r.start + r.length < r.start ? UINT64_MAX : r.start + r.length);
    map.generations_.push_back(r.generation);
  }
  return map;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "sorting generation bounds");
}

Generation GenerationMap::find(uint64_t address) const noexcept {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), address);
  if (it == starts_.begin()) return Generation::Unknown;
  const size_t i = static_cast<size_t>(it - starts_.begin()) - 1;
  return address < ends_[i] ? generations_[i] : Generation::Unknown;
}

bool is_condemned(const GcInfo& info, Generation g) noexcept {
  const bool gen2 = (info.generations_collected & generation_bit(Generation::Gen2)) != 0;
  // A background GC (format-spec.md §5.2: gen2 collected, gen0 not) condemns neither young
  // generation: they are collected by the GCs that run inside it, recorded before it.
  const bool background = info.background();
  switch (g) {
    case Generation::Gen0:
    case Generation::Gen1: return !background && static_cast<int>(g) <= info.condemned_generation();
    case Generation::Gen2: return static_cast<int>(g) <= info.condemned_generation();
    case Generation::LargeObjectHeap:
    case Generation::PinnedObjectHeap: return gen2 || (info.generations_collected & generation_bit(g)) != 0;
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
                                         std::span<const GenerationRange> bounds_before) try {
  GcTransition t;
  t.info_ = info;
  std::vector<uint64_t> old_starts, new_starts, lengths;
  old_starts.reserve(ranges.moved_old_starts.size());
  new_starts.reserve(ranges.moved_old_starts.size());
  lengths.reserve(ranges.moved_old_starts.size());
  for (size_t i = 0; i < ranges.moved_old_starts.size(); ++i) {
    if (ranges.moved_lengths[i] == 0) continue;
    old_starts.push_back(ranges.moved_old_starts[i]);
    new_starts.push_back(ranges.moved_new_starts[i]);
    lengths.push_back(ranges.moved_lengths[i]);
  }
  // Ranges reported in address order (the usual case) are taken as they are: sorting a
  // permutation of millions of ranges costs more than the rest of the build.
  if (std::is_sorted(old_starts.begin(), old_starts.end())) {
    t.moved_old_ = std::move(old_starts);
    t.moved_new_ = std::move(new_starts);
    t.moved_len_ = std::move(lengths);
  } else {
    const auto order = order_by(old_starts);
    t.moved_old_ = format::gather_rows(old_starts, order);
    t.moved_new_ = format::gather_rows(new_starts, order);
    t.moved_len_ = format::gather_rows(lengths, order);
  }
  std::vector<uint64_t> starts, slens;
  starts.reserve(ranges.surviving_starts.size());
  slens.reserve(ranges.surviving_starts.size());
  for (size_t i = 0; i < ranges.surviving_starts.size(); ++i) {
    if (ranges.surviving_lengths[i] == 0) continue;
    starts.push_back(ranges.surviving_starts[i]);
    slens.push_back(ranges.surviving_lengths[i]);
  }
  if (std::is_sorted(starts.begin(), starts.end())) {
    t.surv_start_ = std::move(starts);
    t.surv_len_ = std::move(slens);
  } else {
    const auto order = order_by(starts);
    t.surv_start_ = format::gather_rows(starts, order);
    t.surv_len_ = format::gather_rows(slens, order);
  }
  if (overlaps_or_wraps(t.moved_old_, t.moved_len_))
    return make_error(ErrorCode::InconsistentData, "moved ranges of one GC overlap");
  if (overlaps_or_wraps(t.surv_start_, t.surv_len_))
    return make_error(ErrorCode::InconsistentData, "surviving ranges of one GC overlap");
  for (size_t i = 0; i < t.moved_new_.size(); ++i)
    if (t.moved_new_[i] + t.moved_len_[i] < t.moved_new_[i])
      return make_error(ErrorCode::InconsistentData, "a moved range wraps around the address space");
  auto bounds_map = GenerationMap::build(bounds_before);
  if (!bounds_map) return bounds_map.error();
  t.bounds_before_ = std::move(bounds_map).value();
  std::vector<GenerationRange> sorted(bounds_before.begin(), bounds_before.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  for (const auto& r : sorted) {
    if (r.length == 0) continue;
    t.bound_starts_.push_back(r.start);
    t.bound_ends_.push_back(r.start + r.length < r.start ? UINT64_MAX : r.start + r.length);
    t.bound_gens_.push_back(r.generation);
  }
  return t;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "sorting a GC's ranges");
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

GcTransition::Step GcTransition::Cursor::next(uint64_t x, Generation hint) noexcept {
  const GcTransition& t = *t_;
  while (m_ < t.moved_old_.size() && t.moved_old_[m_] + t.moved_len_[m_] <= x) ++m_;
  while (s_ < t.surv_start_.size() && t.surv_start_[s_] + t.surv_len_[s_] <= x) ++s_;
  while (b_ < t.bound_starts_.size() && t.bound_ends_[b_] <= x) ++b_;
  const Generation from_bounds =
      b_ < t.bound_starts_.size() && t.bound_starts_[b_] <= x ? t.bound_gens_[b_] : Generation::Unknown;
  const Generation before = from_bounds != Generation::Unknown ? from_bounds : hint;
  if (m_ < t.moved_old_.size() && t.moved_old_[m_] <= x) {
    const uint64_t to = t.moved_new_[m_] + (x - t.moved_old_[m_]);
    return Step{to == x ? Fate::Stayed : Fate::Moved, to, before};
  }
  if (s_ < t.surv_start_.size() && t.surv_start_[s_] <= x) return Step{Fate::Stayed, x, before};
  return t.classify(x, hint, from_bounds);
}

void GcTransition::follow_sorted(std::span<const uint64_t> addresses, std::span<const Generation> hints,
                                 std::span<Step> out) const noexcept {
  Cursor cursor(*this);
  for (size_t i = 0; i < addresses.size(); ++i)
    out[i] = cursor.next(addresses[i], hints.empty() ? Generation::Unknown : hints[i]);
}

Result<BulkMapper> BulkMapper::create(std::span<const uint64_t> addresses,
                                      std::span<const Generation> generations) try {
  if (addresses.size() >= UINT32_MAX)
    return make_error(ErrorCode::LimitExceeded, "too many objects to follow (2^32)");
  std::vector<Generation> own_generations;
  if (generations.size() == addresses.size()) own_generations.assign(generations.begin(), generations.end());
  return create(std::vector<uint64_t>(addresses.begin(), addresses.end()), std::move(own_generations));
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "out of memory creating an object mapper");
}

Result<BulkMapper> BulkMapper::create(std::vector<uint64_t>&& addresses, std::vector<Generation>&& generations) try {
  if (addresses.size() >= UINT32_MAX)
    return make_error(ErrorCode::LimitExceeded, "too many objects to follow (2^32)");
  BulkMapper m;
  m.addresses_ = std::move(addresses);
  const size_t n = m.addresses_.size();
  m.alive_bits_.assign((n + 63) / 64, ~uint64_t{0});
  if (n % 64) m.alive_bits_.back() = (uint64_t{1} << (n % 64)) - 1;
  if (generations.size() == m.addresses_.size()) m.generations_ = std::move(generations);
  else m.generations_.assign(m.addresses_.size(), Generation::Unknown);
  m.alive_ = m.addresses_.size();
  const auto& a = m.addresses_;
  // Callers often pass a sorted table (a walk's objects): then no permutation is needed.
  const size_t prefix = static_cast<size_t>(std::is_sorted_until(a.begin(), a.end()) - a.begin());
  if (prefix == a.size()) {
    m.in_own_order_ = true;
    return m;
  }
  m.order_.resize(a.size());
  std::iota(m.order_.begin(), m.order_.end(), uint32_t{0});
  // Sort only the unsorted tail and merge it in (a sorted table followed by a few others).
  auto by_address = [&](uint32_t x, uint32_t y) { return a[x] < a[y]; };
  const auto middle = m.order_.begin() + static_cast<std::ptrdiff_t>(prefix);
  std::stable_sort(middle, m.order_.end(), by_address);
  std::inplace_merge(m.order_.begin(), middle, m.order_.end(), by_address);
  return m;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "following objects in bulk");
}

uint64_t BulkMapper::died_at(size_t i) const noexcept {
  if (is_alive(i)) return 0;
  size_t begin = 0;
  for (const auto& [end, gc_number] : deaths_) {
    if (std::binary_search(dead_.begin() + static_cast<std::ptrdiff_t>(begin),
                           dead_.begin() + static_cast<std::ptrdiff_t>(end), static_cast<uint32_t>(i)))
      return gc_number;
    begin = end;
  }
  return 0;
}

template <typename Visit>
void BulkMapper::for_each_alive(Visit&& visit) {
  if (in_own_order_) {
    for (size_t w = 0; w < alive_bits_.size(); ++w) {
      uint64_t bits = alive_bits_[w], kept = bits;
      while (bits != 0) {
        const size_t bit = static_cast<size_t>(std::countr_zero(bits));
        bits &= bits - 1;
        if (!visit(w * 64 + bit)) kept &= ~(uint64_t{1} << bit);
      }
      alive_bits_[w] = kept;
    }
    return;
  }
  size_t kept = 0;
  for (size_t k = 0; k < order_.size(); ++k) {
    const uint32_t i = order_[k];
    if (visit(i)) order_[kept++] = i;
    else alive_bits_[i / 64] &= ~(uint64_t{1} << (i % 64));
  }
  order_.resize(kept);
}

// One merge pass over the alive objects in address order answers them all. The first GC that
// reorders objects kept in their own order makes the permutation (the only allocation).
Status BulkMapper::apply(const GcTransition& gc) try {
  GcTransition::Cursor cursor(gc);
  bool still_sorted = true, any_alive = false;
  uint64_t previous = 0;
  // Room for every alive object to die: address space only, the pages come as deaths fill them.
  const size_t first_dead = dead_.size();
  detail::reserve_huge(dead_, first_dead + alive_);
  for_each_alive([&](size_t i) {
    const auto step = cursor.next(addresses_[i], generations_[i]);
    if (step.fate == Fate::Died) {
      dead_.push_back(static_cast<uint32_t>(i));
      --alive_;
      return false;
    }
    if (any_alive && previous > step.address) still_sorted = false;
    any_alive = true;
    previous = step.address;
    addresses_[i] = step.address;
    const bool in_place = step.fate == Fate::NotCondemned || step.fate == Fate::NonGcHeap || step.fate == Fate::Unknown;
    generations_[i] = in_place ? step.generation_before : promoted_generation(gc.info(), step.generation_before);
    return true;
  });
  // Objects in their own order die in it; those of the permutation in address order.
  const auto run = dead_.begin() + static_cast<std::ptrdiff_t>(first_dead);
  if (!in_own_order_) std::sort(run, dead_.end());
  if (dead_.size() != first_dead) deaths_.emplace_back(dead_.size(), gc.info().gc_number);
  if (still_sorted) return Status::ok();
  if (in_own_order_) {
    order_.reserve(alive_);
    for (size_t i = 0; i < addresses_.size(); ++i)
      if (is_alive(i)) order_.push_back(static_cast<uint32_t>(i));
    in_own_order_ = false;
  }
  std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) { return addresses_[a] < addresses_[b]; });
  return Status::ok();
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "following objects in bulk");
}

std::string_view fate_name(Fate fate) noexcept {
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

}  // namespace gcsnap
