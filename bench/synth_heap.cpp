#include "synth_heap.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace synth {

namespace {

constexpr uint64_t kRegion = 4ull << 20;
constexpr uint64_t kBase = 0x7f0000000000ull;
constexpr uint32_t kTypes = 3000;
constexpr size_t kHubs = 256;

struct TypeModel {
  std::vector<double> cdf;          // Zipf-like over type ranks
  std::vector<uint64_t> fixed_size; // 0 = array/string: size varies per instance
};

TypeModel make_types(std::mt19937_64& rng, std::vector<std::string>& names) {
  TypeModel m;
  m.cdf.resize(kTypes);
  m.fixed_size.resize(kTypes);
  double sum = 0;
  for (uint32_t k = 0; k < kTypes; ++k) {
    sum += 1.0 / std::pow(static_cast<double>(k + 1), 1.1);
    m.cdf[k] = sum;
  }
  for (double& c : m.cdf) c /= sum;
  names.clear();
  for (uint32_t k = 0; k < kTypes; ++k) {
    const bool array = k == 0 || k == 1 || k == 4 || (k > 6 && rng() % 5 == 0);
    if (array) {
      m.fixed_size[k] = 0;
      names.push_back(k == 0 ? "System.String" : k == 1 ? "System.Object[]" : "App.Model.Item" + std::to_string(k) + "[]");
    } else {
      const unsigned r = static_cast<unsigned>(rng() % 100);
      m.fixed_size[k] = r < 35 ? 24 : r < 55 ? 32 : r < 70 ? 40 : r < 95 ? 48 + 8 * (rng() % 7) : 104 + 8 * (rng() % 40);
      names.push_back("App.Model.Type" + std::to_string(k));
    }
  }
  return m;
}

uint32_t sample_type(const TypeModel& m, std::mt19937_64& rng) {
  const double u = std::uniform_real_distribution<double>(0, 1)(rng);
  return static_cast<uint32_t>(std::lower_bound(m.cdf.begin(), m.cdf.end(), u) - m.cdf.begin());
}

uint64_t sample_size(const TypeModel& m, uint32_t type_rank, std::mt19937_64& rng) {
  if (m.fixed_size[type_rank] != 0) return m.fixed_size[type_rank];
  const unsigned r = static_cast<unsigned>(rng() % 1000);
  const uint64_t slots = r < 700 ? rng() % 10 : r < 960 ? 10 + rng() % 120 : r < 998 ? 130 + rng() % 2000 : 2130 + rng() % 8000;
  return 24 + 8 * slots;
}

unsigned out_degree(std::mt19937_64& rng) {
  const unsigned r = static_cast<unsigned>(rng() % 1000);
  if (r < 350) return 0;
  if (r < 600) return 1;
  if (r < 800) return 2;
  if (r < 920) return 3 + static_cast<unsigned>(rng() % 3);
  if (r < 995) return 6 + static_cast<unsigned>(rng() % 11);
  return 20 + static_cast<unsigned>(rng() % 180);
}

// One reference target (index) for object i of n: near, random, or a hub.
size_t pick_target(size_t i, size_t n, std::mt19937_64& rng) {
  const unsigned r = static_cast<unsigned>(rng() % 100);
  if (r < 75) {
    const int64_t delta = static_cast<int64_t>(rng() % 56) - 8;  // mostly forward, a few back
    const int64_t t = static_cast<int64_t>(i) + (delta >= 0 ? delta + 1 : delta);
    return static_cast<size_t>(std::clamp<int64_t>(t, 0, static_cast<int64_t>(n) - 1));
  }
  if (r < 90) return static_cast<size_t>(rng() % n);
  return (rng() % kHubs) * (n / kHubs);
}

void add_root(Walk& w, size_t node, std::mt19937_64& rng) {
  const unsigned r = static_cast<unsigned>(rng() % 100);
  uint8_t kind = r < 60 ? 3 : r < 90 ? 1 : r < 95 ? 2 : 0;  // Handle, Stack, Finalizer, Other
  uint8_t flags = 0;
  const unsigned f = static_cast<unsigned>(rng() % 100);
  if (kind == 3 && f < 5) flags = gcsnap::root_flags::kWeakRef;
  else if (f < 7) flags = gcsnap::root_flags::kPinning;
  w.root_objects.push_back(w.addresses[node]);
  w.root_kinds.push_back(kind);
  w.root_flags.push_back(flags);
  w.root_ids.push_back(kind == 1 ? 0x7f1200000000ull + 64 * (rng() % 500) : 0x7f3400000000ull + 8 * node);
}

// Lay out `count` new objects from `cursor`, opening 4 MiB regions as needed.
// FIXED_TYPE (a type id, 0: none): every object of that type and FIXED_SIZE, nothing sampled.
void allocate(Walk& w, size_t count, uint64_t& cursor, const TypeModel& tm, std::mt19937_64& rng,
              gcsnap::Generation gen, uint32_t fixed_type = 0, uint64_t fixed_size = 0) {
  uint64_t region = cursor & ~(kRegion - 1);
  uint64_t region_first = cursor;
  auto close_region = [&](uint64_t end) {
    if (end > region_first)
      w.bounds.push_back({gen, region_first, end - region_first, kRegion - (region_first - region)});
  };
  for (size_t k = 0; k < count; ++k) {
    const uint32_t rank = fixed_type != 0 ? fixed_type - 1 : sample_type(tm, rng);
    const uint64_t size = fixed_type != 0 ? fixed_size : sample_size(tm, rank, rng);
    if (cursor + size > region + kRegion) {
      close_region(cursor);
      region += kRegion * (1 + (rng() % 8 == 0 ? 1 : 0));  // now and then a gap between regions
      cursor = region_first = region;
    }
    w.addresses.push_back(cursor);
    w.sizes.push_back(size);
    w.type_ids.push_back(rank + 1);
    w.generations.push_back(static_cast<uint8_t>(gen));
    cursor += size;
  }
  close_region(cursor);
  // Next allocation starts in a fresh region.
  cursor = (cursor + kRegion) & ~(kRegion - 1);
}

void fill_references(Walk& w, const std::vector<uint32_t>& targets) {
  w.references.resize(targets.size());
  for (size_t k = 0; k < targets.size(); ++k) w.references[k] = w.addresses[targets[k]];
}


// A walk taken right after a full GC holds live objects only: every object must be reachable
// from a root. Attach each unreachable object to the nearest reachable object below it (an
// extra reference), or make it a root when there is none, then rebuild the CSR.
void make_reachable(Walk& w, std::vector<uint32_t>& targets, std::mt19937_64& rng) {
  const size_t n = w.size();
  std::vector<uint64_t> offsets(n + 1, 0);
  for (size_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + w.reference_counts[i];
  std::vector<uint8_t> reached(n, 0);
  std::vector<uint32_t> stack;
  auto visit = [&](size_t s) {
    if (reached[s]) return;
    reached[s] = 1;
    stack.push_back(static_cast<uint32_t>(s));
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      stack.pop_back();
      for (uint64_t k = offsets[v]; k < offsets[v + 1]; ++k)
        if (!reached[targets[k]]) { reached[targets[k]] = 1; stack.push_back(targets[k]); }
    }
  };
  for (uint64_t a : w.root_objects)
    visit(static_cast<size_t>(std::lower_bound(w.addresses.begin(), w.addresses.end(), a) - w.addresses.begin()));
  std::vector<std::pair<uint32_t, uint32_t>> added;
  size_t last_reached = SIZE_MAX;
  for (size_t i = 0; i < n; ++i) {
    if (reached[i]) { last_reached = i; continue; }
    if (last_reached == SIZE_MAX) add_root(w, i, rng);
    else added.emplace_back(static_cast<uint32_t>(last_reached), static_cast<uint32_t>(i));
    visit(i);
    last_reached = i;
  }
  if (added.empty()) return;
  std::vector<uint32_t> out;
  out.reserve(targets.size() + added.size());
  size_t q = 0;
  for (size_t i = 0; i < n; ++i) {
    out.insert(out.end(), targets.begin() + static_cast<std::ptrdiff_t>(offsets[i]),
               targets.begin() + static_cast<std::ptrdiff_t>(offsets[i + 1]));
    while (q < added.size() && added[q].first == i) {
      out.push_back(added[q++].second);
      ++w.reference_counts[i];
    }
  }
  targets.swap(out);
}

}  // namespace

uint64_t Walk::raw_bytes() const {
  return size() * (8 + 4 + 8 + 1 + 4) + references.size() * 8 + root_objects.size() * (8 + 1 + 1 + 8) +
         (surviving_starts.size() * 2 + moved_old.size() * 3) * 8;
}

namespace {

// Walk A: N objects from CURSOR, references (TARGETS: indices into A) and roots, all reachable.
void first_walk(Walk& a, std::vector<uint32_t>& a_targets, size_t n, uint64_t& cursor, const TypeModel& tm,
                std::mt19937_64& rng) {
  allocate(a, n, cursor, tm, rng, gcsnap::Generation::Gen2);
  a_targets.reserve(n * 5 / 2 + 1024);
  a.reference_counts.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const unsigned d = out_degree(rng);
    a.reference_counts[i] = d;
    for (unsigned k = 0; k < d; ++k) a_targets.push_back(static_cast<uint32_t>(pick_target(i, n, rng)));
  }
  const size_t roots = std::max<size_t>(n / 100, 1);
  for (size_t k = 0; k < roots; ++k) add_root(a, k < roots * 3 / 10 ? rng() % std::max<size_t>(n / 100, 1) : rng() % n, rng);
  make_reachable(a, a_targets, rng);
  fill_references(a, a_targets);
}

// Runs of live objects (mean 30) and dead ones (mean 4): ~12 % die; hubs and KEEP live.
std::vector<uint8_t> pick_survivors(size_t n, const std::vector<uint32_t>& keep, std::mt19937_64& rng) {
  std::vector<uint8_t> alive(n);
  size_t i = 0;
  bool live = true;
  std::geometric_distribution<size_t> live_run(1.0 / 30), dead_run(1.0 / 4);
  while (i < n) {
    const size_t len = 1 + (live ? live_run(rng) : dead_run(rng));
    for (size_t k = i; k < std::min(n, i + len); ++k) alive[k] = live ? 1 : 0;
    i += len;
    live = !live;
  }
  for (size_t h = 0; h < kHubs; ++h) alive[h * (n / kHubs)] = 1;
  for (uint32_t k : keep) alive[k] = 1;
  return alive;
}

// Survivors of A, region by region, compacted in 30 % of the regions, into B (with the
// ranges that say so); returns B's index of each of A's objects (UINT32_MAX: dead).
std::vector<uint32_t> move_survivors(const Walk& a, const std::vector<uint8_t>& alive, Walk& b, std::mt19937_64& rng) {
  const size_t n = a.size();
  std::vector<uint32_t> b_index_of_a(n, UINT32_MAX);
  size_t i = 0;
  while (i < n) {
    const uint64_t region = a.addresses[i] & ~(kRegion - 1);
    size_t end = i;
    while (end < n && (a.addresses[end] & ~(kRegion - 1)) == region) ++end;
    const bool compact = rng() % 10 < 3;
    uint64_t dest = region;
    uint64_t first_live = 0, last_end = 0;
    size_t k = i;
    while (k < end) {
      if (!alive[k]) { ++k; continue; }
      size_t r = k;
      uint64_t len = 0;
      // A run is contiguous in memory too: after a GC that did not compact, dead objects left gaps.
      while (r < end && alive[r] && (r == k || a.addresses[r] == a.addresses[r - 1] + a.sizes[r - 1])) len += a.sizes[r++];
      const uint64_t old_start = a.addresses[k];
      const uint64_t new_start = compact ? dest : old_start;
      if (compact) {
        b.moved_old.push_back(old_start);
        b.moved_new.push_back(new_start);
        b.moved_lengths.push_back(len);
        dest += len;
      } else {
        b.surviving_starts.push_back(old_start);
        b.surviving_lengths.push_back(len);
      }
      if (first_live == 0) first_live = new_start;
      for (size_t q = k; q < r; ++q) {
        b_index_of_a[q] = static_cast<uint32_t>(b.addresses.size());
        b.addresses.push_back(new_start + (a.addresses[q] - old_start));
        b.sizes.push_back(a.sizes[q]);
        b.type_ids.push_back(a.type_ids[q]);
        b.generations.push_back(static_cast<uint8_t>(gcsnap::Generation::Gen2));
      }
      last_end = new_start + len;
      k = r;
    }
    if (first_live != 0)
      b.bounds.push_back({gcsnap::Generation::Gen2, compact ? region : first_live, last_end - (compact ? region : first_live), kRegion});
    i = end;
  }
  return b_index_of_a;
}

// References of B: survivors keep theirs (retargeted when the target died); new objects (from
// SURVIVORS on) get new ones: each other nearby, and old objects at random.
void link_next(const Walk& a, const std::vector<uint32_t>& a_targets, const std::vector<uint32_t>& b_index_of_a,
               size_t survivors, Walk& b, std::vector<uint32_t>& b_targets, std::mt19937_64& rng) {
  const size_t n = a.size(), nb = b.addresses.size();
  b_targets.reserve(nb * 5 / 2 + 1024);
  b.reference_counts.reserve(nb);
  size_t off = 0;
  for (size_t q = 0; q < n; ++q) {
    const uint32_t c = a.reference_counts[q];
    if (b_index_of_a[q] != UINT32_MAX) {
      const uint32_t self = b_index_of_a[q];
      for (uint32_t k = 0; k < c; ++k) {
        const uint32_t t = b_index_of_a[a_targets[off + k]];
        b_targets.push_back(t != UINT32_MAX ? t : static_cast<uint32_t>(std::min(nb - 1, size_t{self} + 1)));
      }
      b.reference_counts.push_back(c);
    }
    off += c;
  }
  for (size_t q = survivors; q < nb; ++q) {
    const unsigned d = out_degree(rng);
    b.reference_counts.push_back(d);
    for (unsigned k = 0; k < d; ++k) {
      const size_t t = rng() % 4 == 0 ? rng() % survivors : pick_target(q, nb, rng);
      b_targets.push_back(static_cast<uint32_t>(t));
    }
  }
}

// Roots of B: A's roots whose objects survived, at their new addresses, plus 1 % of the new objects.
void carry_roots(const Walk& a, const std::vector<uint32_t>& b_index_of_a, size_t survivors, Walk& b,
                 std::mt19937_64& rng) {
  const size_t nb = b.addresses.size();
  for (size_t k = 0; k < a.root_objects.size(); ++k) {
    const auto it = std::lower_bound(a.addresses.begin(), a.addresses.end(), a.root_objects[k]);
    const size_t q = static_cast<size_t>(it - a.addresses.begin());
    if (b_index_of_a[q] == UINT32_MAX) continue;
    b.root_objects.push_back(b.addresses[b_index_of_a[q]]);
    b.root_kinds.push_back(a.root_kinds[k]);
    b.root_flags.push_back(a.root_flags[k]);
    b.root_ids.push_back(a.root_ids[k]);
  }
  for (size_t k = 0; k < (nb - survivors) / 100; ++k) add_root(b, survivors + rng() % (nb - survivors), rng);
}

}  // namespace

Recording generate(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Recording rec;
  const TypeModel tm = make_types(rng, rec.type_names);
  n = std::max<size_t>(n, 2 * kHubs);
  uint64_t cursor = kBase;
  std::vector<uint32_t> a_targets, b_targets;
  first_walk(rec.a, a_targets, n, cursor, tm, rng);
  const std::vector<uint8_t> alive = pick_survivors(n, {}, rng);
  const std::vector<uint32_t> b_index_of_a = move_survivors(rec.a, alive, rec.b, rng);
  const size_t survivors = rec.b.addresses.size();
  allocate(rec.b, n / 10, cursor, tm, rng, gcsnap::Generation::Gen0);
  link_next(rec.a, a_targets, b_index_of_a, survivors, rec.b, b_targets, rng);
  carry_roots(rec.a, b_index_of_a, survivors, rec.b, rng);
  make_reachable(rec.b, b_targets, rng);
  fill_references(rec.b, b_targets);
  return rec;
}

namespace {

// The planted leak of a series: a rooted App.Leak.RequestLog whose first reference is the
// newest App.Leak.RequestEntry, each entry referencing the one before (a chain).
struct PlantedLeak {
  uint32_t holder_type = 0, entry_type = 0;
  uint32_t holder = 0;            // index in the current walk
  std::vector<uint32_t> entries;  // indices in the current walk, oldest first
};

void plant_holder(Walk& a, PlantedLeak& leak) {
  size_t h = a.size() / 2;
  while (h + 1 < a.size() && a.reference_counts[h] == 0) ++h;
  leak.holder = static_cast<uint32_t>(h);
  a.type_ids[h] = leak.holder_type;
  a.root_objects.push_back(a.addresses[h]);
  a.root_kinds.push_back(3);  // Handle, strong
  a.root_flags.push_back(0);
  a.root_ids.push_back(0x7f3500000000ull);
}

// Append COUNT new entries to B (after every other new object), chained to the newest one
// before them, and point the holder at the newest.
void grow_leak(Walk& b, std::vector<uint32_t>& b_targets, size_t count, uint64_t& cursor, const TypeModel& tm,
               std::mt19937_64& rng, PlantedLeak& leak) {
  const size_t first = b.size();
  allocate(b, count, cursor, tm, rng, gcsnap::Generation::Gen0, leak.entry_type, 64);
  for (size_t q = first; q < b.size(); ++q) {
    const bool has_previous = !leak.entries.empty();
    b.reference_counts.push_back(has_previous ? 1 : 0);
    if (has_previous) b_targets.push_back(leak.entries.back());
    leak.entries.push_back(static_cast<uint32_t>(q));
  }
  if (b.reference_counts[leak.holder] == 0) return;  // plant_holder picked one with a reference
  size_t off = 0;
  for (size_t q = 0; q < leak.holder; ++q) off += b.reference_counts[q];
  b_targets[off] = leak.entries.back();
}

}  // namespace

gcsnap::Status write_series(gcsnap::Writer& w, const SeriesOptions& options) {
  std::mt19937_64 rng(options.seed);
  Recording rec;
  const TypeModel tm = make_types(rng, rec.type_names);
  PlantedLeak leak;
  rec.type_names.push_back("App.Leak.RequestLog");
  leak.holder_type = static_cast<uint32_t>(rec.type_names.size());
  rec.type_names.push_back("App.Leak.RequestEntry");
  leak.entry_type = static_cast<uint32_t>(rec.type_names.size());
  const size_t n = std::max<size_t>(options.objects, 2 * kHubs);
  const size_t per_walk = options.leak_per_walk != 0 ? options.leak_per_walk : std::max<size_t>(1, n / 1000);
  uint64_t cursor = kBase;
  std::vector<uint32_t> a_targets, b_targets;
  first_walk(rec.a, a_targets, n, cursor, tm, rng);
  plant_holder(rec.a, leak);
  if (gcsnap::Status s = write_gc(w, rec, rec.a, 1, true); !s) return s;
  for (size_t walk = 2; walk <= options.walks; ++walk) {
    std::vector<uint32_t> keep = leak.entries;
    keep.push_back(leak.holder);
    const std::vector<uint8_t> alive = pick_survivors(rec.a.size(), keep, rng);
    const std::vector<uint32_t> b_index_of_a = move_survivors(rec.a, alive, rec.b, rng);
    const size_t survivors = rec.b.size();
    // Churn: as many new objects as died, so the heap keeps its size but for the leak.
    allocate(rec.b, std::max<size_t>(n > survivors ? n - survivors : 0, 100), cursor, tm, rng, gcsnap::Generation::Gen0);
    link_next(rec.a, a_targets, b_index_of_a, survivors, rec.b, b_targets, rng);
    carry_roots(rec.a, b_index_of_a, survivors, rec.b, rng);
    leak.holder = b_index_of_a[leak.holder];
    for (uint32_t& e : leak.entries) e = b_index_of_a[e];
    // Only the chain holds the entries: a reference from elsewhere goes to object 0 (a hub).
    std::vector<uint8_t> is_entry(rec.b.size(), 0);
    for (uint32_t e : leak.entries) is_entry[e] = 1;
    for (size_t q = 0, off = 0; q < rec.b.reference_counts.size(); off += rec.b.reference_counts[q++])
      for (size_t k = off; !is_entry[q] && k < off + rec.b.reference_counts[q]; ++k)
        if (is_entry[b_targets[k]]) b_targets[k] = 0;
    grow_leak(rec.b, b_targets, per_walk, cursor, tm, rng, leak);
    make_reachable(rec.b, b_targets, rng);
    fill_references(rec.b, b_targets);
    if (gcsnap::Status s = write_gc(w, rec, rec.b, walk, false); !s) return s;
    rec.a = std::move(rec.b);
    rec.b = Walk{};
    a_targets.swap(b_targets);
    b_targets.clear();
  }
  return gcsnap::Status{};
}

gcsnap::Status write_gc(gcsnap::Writer& w, const Recording& r, const Walk& walk, uint64_t gc_number,
                        bool declare_types, size_t batch) {
  using namespace gcsnap;
  GcInfo info;
  info.gc_number = gc_number;
  info.generations_collected = 0x7;
  info.trigger = SnapshotTrigger::Policy;
  info.start_time_ns = 1'700'000'000'000'000'000ull + gc_number * 1'000'000'000ull;
  if (Status s = w.begin_gc(info); !s) return s;
  if (Status s = w.add_generation_bounds(walk.bounds); !s) return s;
  if (declare_types) {
    std::vector<TypeRecord> types(r.type_names.size());
    for (size_t k = 0; k < types.size(); ++k)
      types[k] = TypeRecord{static_cast<uint32_t>(k + 1), 0x7f5600000000ull + 64 * k, r.type_names[k], "App.dll"};
    if (Status s = w.add_types(types); !s) return s;
  }
  if (Status s = w.add_roots(walk.root_objects, walk.root_kinds, walk.root_flags, walk.root_ids); !s) return s;
  if (!walk.surviving_starts.empty())
    if (Status s = w.add_surviving_ranges(walk.surviving_starts, walk.surviving_lengths); !s) return s;
  if (!walk.moved_old.empty())
    if (Status s = w.add_moved_ranges(walk.moved_old, walk.moved_new, walk.moved_lengths); !s) return s;
  size_t ref_off = 0;
  for (size_t i = 0; i < walk.size(); i += batch) {
    const size_t m = std::min(batch, walk.size() - i);
    size_t refs = 0;
    for (size_t k = i; k < i + m; ++k) refs += walk.reference_counts[k];
    Status s = w.add_objects({walk.addresses.data() + i, m}, {walk.type_ids.data() + i, m}, {walk.sizes.data() + i, m},
                             {walk.generations.data() + i, m}, {walk.reference_counts.data() + i, m},
                             {walk.references.data() + ref_off, refs});
    if (!s) return s;
    ref_off += refs;
  }
  info.compacted = !walk.moved_old.empty();
  info.end_time_ns = info.start_time_ns + 50'000'000;
  return w.end_gc(info);
}

}  // namespace synth
