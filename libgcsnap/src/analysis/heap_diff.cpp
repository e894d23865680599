#include "gcsnap/heap_diff.hpp"

#include <algorithm>
#include <new>
#include <tuple>
#include <unordered_map>

#include "gcsnap/root_summary.hpp"

namespace gcsnap {

// The entry points are function-try-blocks: an allocation failure becomes OutOfMemory
// (docs/library.md "Errors"); nothing else in them throws.

namespace {

// Sort per-id totals by name and add up the ids that share one (the same type loaded twice):
// a diff by name adds them up.
std::vector<TypeTotal> merge_by_name(std::vector<TypeTotal> totals) {
  std::sort(totals.begin(), totals.end(), [](const auto& x, const auto& y) { return x.name < y.name; });
  std::vector<TypeTotal> merged;
  for (auto& t : totals) {
    if (!merged.empty() && merged.back().name == t.name) {
      merged.back().count += t.count;
      merged.back().bytes += t.bytes;
    } else {
      merged.push_back(std::move(t));
    }
  }
  return merged;
}

}  // namespace

Result<std::vector<TypeTotal>> count_by_type(const ObjectTable& objects, const NameTable& names) try {
  std::unordered_map<uint32_t, std::pair<uint64_t, uint64_t>> by_id;
  for (size_t i = 0; i < objects.size(); ++i) {
    auto& t = by_id[objects.type_ids[i]];
    ++t.first;
    t.second += objects.sizes[i];
  }
  std::vector<TypeTotal> totals;
  totals.reserve(by_id.size());
  for (const auto& [id, t] : by_id) totals.push_back(TypeTotal{std::string(names.type_name(id)), t.first, t.second});
  return merge_by_name(std::move(totals));
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "counting objects by type");
}

Result<std::vector<TypeTotal>> count_by_type(std::span<const TypeStats> stats, const NameTable& names) try {
  std::vector<TypeTotal> totals;
  totals.reserve(stats.size());
  for (const TypeStats& t : stats)
    if (t.count != 0) totals.push_back(TypeTotal{std::string(names.type_name(t.type_id)), t.count, t.shallow_bytes});
  return merge_by_name(std::move(totals));
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "counting objects by type");
}

Result<std::vector<TypeDelta>> diff_by_type(std::span<const TypeTotal> a, std::span<const TypeTotal> b,
                                            bool include_unchanged) try {
  std::vector<TypeDelta> out;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    TypeDelta d;
    if (j == b.size() || (i < a.size() && a[i].name < b[j].name)) {
      d = TypeDelta{a[i].name, a[i].count, a[i].bytes, 0, 0};
      ++i;
    } else if (i == a.size() || b[j].name < a[i].name) {
      d = TypeDelta{b[j].name, 0, 0, b[j].count, b[j].bytes};
      ++j;
    } else {
      d = TypeDelta{a[i].name, a[i].count, a[i].bytes, b[j].count, b[j].bytes};
      ++i;
      ++j;
    }
    if (include_unchanged || d.count_a != d.count_b || d.bytes_a != d.bytes_b) out.push_back(std::move(d));
  }
  // Largest change first, whatever its sign: a shrinkage matters as much as a growth (and
  // is what a leak looks like when A is the later GC).
  auto magnitude = [](int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); };
  std::sort(out.begin(), out.end(), [&](const TypeDelta& x, const TypeDelta& y) {
    const uint64_t bx = magnitude(x.delta_bytes()), by = magnitude(y.delta_bytes());
    if (bx != by) return bx > by;
    if (x.delta_bytes() != y.delta_bytes()) return x.delta_bytes() > y.delta_bytes();
    const uint64_t cx = magnitude(x.delta_count()), cy = magnitude(y.delta_count());
    if (cx != cy) return cx > cy;
    if (x.delta_count() != y.delta_count()) return x.delta_count() > y.delta_count();
    return x.name < y.name;
  });
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "diffing types");
}

namespace {

auto key_tuple(const RootKey& k) { return std::make_tuple(static_cast<uint8_t>(k.kind), k.root_id, k.object); }

bool key_less(const RootKey& x, const RootKey& y) { return key_tuple(x) < key_tuple(y); }

struct KeyedRoot {
  RootKey match;      // what is compared
  RootKey reported;   // what is shown (A's own object id for removed roots)
};

std::vector<KeyedRoot> keyed_roots(const RootTable& t, std::span<const uint64_t> mapped) {
  std::vector<KeyedRoot> out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    RootKey reported{t.kinds[i], t.root_ids[i], t.object_ids[i], t.flags[i]};
    RootKey match = reported;
    if (!mapped.empty()) match.object = mapped[i];
    out.push_back(KeyedRoot{match, reported});
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return key_less(x.match, y.match); });
  return out;
}

}  // namespace

Result<RootDiff> diff_roots(const RootTable& a, std::span<const uint64_t> mapped_a_objects, const RootTable& b) try {
  const auto ka = keyed_roots(a, mapped_a_objects);
  const auto kb = keyed_roots(b, {});
  RootDiff diff;
  size_t i = 0, j = 0;
  while (i < ka.size() || j < kb.size()) {
    // A root whose object died between the GCs (mapped to 0) can never match.
    const bool a_dead = i < ka.size() && !mapped_a_objects.empty() && ka[i].match.object == 0 && ka[i].reported.object != 0;
    if (j == kb.size() || (i < ka.size() && (a_dead || key_less(ka[i].match, kb[j].match)))) {
      diff.removed.push_back(ka[i++].reported);
    } else if (i == ka.size() || key_less(kb[j].match, ka[i].match)) {
      diff.added.push_back(kb[j++].reported);
    } else {
      ++diff.unchanged;
      ++i;
      ++j;
    }
  }
  std::sort(diff.removed.begin(), diff.removed.end(), key_less);
  return diff;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "diffing roots");
}

Result<std::vector<RootKindDelta>> summarize_root_diff(const RootTable& a, const RootTable& b, const RootDiff& diff) try {
  std::vector<RootKindDelta> out;
  for (RootKind kind : {RootKind::Stack, RootKind::Finalizer, RootKind::Handle, RootKind::Other}) {
    RootKindDelta d;
    d.kind = kind;
    d.count_a = static_cast<uint64_t>(std::count(a.kinds.begin(), a.kinds.end(), kind));
    d.count_b = static_cast<uint64_t>(std::count(b.kinds.begin(), b.kinds.end(), kind));
    d.added = static_cast<uint64_t>(std::count_if(diff.added.begin(), diff.added.end(), [&](const RootKey& k) { return k.kind == kind; }));
    d.removed = static_cast<uint64_t>(std::count_if(diff.removed.begin(), diff.removed.end(), [&](const RootKey& k) { return k.kind == kind; }));
    out.push_back(d);
  }
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "summarizing a root diff");
}

}  // namespace gcsnap
