#include "gcsnap/object_diff.hpp"

#include <algorithm>
#include <new>
#include <numeric>
#include <unordered_map>

namespace gcsnap {

// The entry points are function-try-blocks: an allocation failure becomes OutOfMemory
// (docs/library.md "Errors"); nothing else in them throws.

Result<ObjectDiff> diff_objects(const ObjectTable& a, const ObjectTable& b, std::span<const uint64_t> a_at_b,
                                std::span<const uint64_t> a_died_at) try {
  if (a_at_b.size() != a.size() || a_died_at.size() != a.size() || b.sizes.size() != b.size() ||
      a.sizes.size() != a.size())
    return make_error(ErrorCode::InvalidArgument, "object diff columns have different lengths");
  ObjectDiff diff;
  diff.b_index_of_a.assign(a.size(), kNoObject);
  // Survivors sorted by their address at B, merged with B's (sorted) address column.
  std::vector<size_t> alive;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a_died_at[i] != 0) {
      diff.dead_objects.push_back(i);
      diff.dead_bytes += a.sizes[i];
    } else {
      alive.push_back(i);
    }
  }
  std::sort(alive.begin(), alive.end(), [&](size_t x, size_t y) { return a_at_b[x] < a_at_b[y]; });
  std::vector<bool> matched(b.size(), false);
  size_t j = 0;
  for (size_t i : alive) {
    const uint64_t x = a_at_b[i];
    while (j < b.size() && b.addresses[j] < x) ++j;
    if (j < b.size() && b.addresses[j] == x && !matched[j]) {
      matched[j] = true;
      diff.b_index_of_a[i] = j;
      ++diff.surviving_count;
      diff.surviving_bytes_a += a.sizes[i];
      diff.surviving_bytes_b += b.sizes[j];
    } else {
      diff.missing_in_b.push_back(i);
    }
  }
  std::sort(diff.missing_in_b.begin(), diff.missing_in_b.end());
  for (size_t k = 0; k < b.size(); ++k) {
    if (matched[k]) continue;
    diff.new_objects.push_back(k);
    diff.new_bytes += b.sizes[k];
  }
  return diff;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "diffing objects");
}

Result<std::vector<TypeGroup>> group_by_type(const ObjectTable& objects, const NameTable& names,
                                     std::span<const size_t> indices) try {
  std::unordered_map<std::string_view, size_t> slot;
  std::vector<TypeGroup> groups;
  for (size_t i : indices) {
    const std::string_view name = names.type_name(objects.type_ids[i]);
    auto [it, inserted] = slot.try_emplace(name, groups.size());
    if (inserted) groups.push_back(TypeGroup{std::string(name), 0, 0, {}});
    auto& g = groups[it->second];
    ++g.count;
    g.bytes += objects.sizes[i];
    g.members.push_back(i);
  }
  for (auto& g : groups) std::sort(g.members.begin(), g.members.end());
  std::sort(groups.begin(), groups.end(), [](const TypeGroup& x, const TypeGroup& y) {
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    if (x.count != y.count) return x.count > y.count;
    return x.name < y.name;
  });
  return groups;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "grouping objects by type");
}

}  // namespace gcsnap
