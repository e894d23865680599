#include "gcsnap/object_diff.hpp"

#include <algorithm>
#include <bit>
#include <new>
#include <numeric>
#include <unordered_map>

#include "analysis/column_cursor.hpp"
#include "huge_pages.hpp"

namespace gcsnap {

// The entry points are function-try-blocks: an allocation failure becomes OutOfMemory
// (docs/library.md "Errors"); nothing else in them throws.

Result<ObjectDiff> diff_objects(const ObjectTable& a, const ObjectTable& b, std::span<const uint64_t> a_at_b,
                                std::span<const uint64_t> a_died_at) {
  if (b.sizes.size() != b.size() || a.sizes.size() != a.size())
    return make_error(ErrorCode::InvalidArgument, "object diff columns have different lengths");
  return diff_objects(a.sizes, b.addresses, b.sizes, a_at_b, a_died_at);
}

namespace {

// A's alive objects told by the GC number each died at (0 while alive).
class DiedAt {
 public:
  explicit DiedAt(std::span<const uint64_t> died_at) noexcept : died_at_(died_at) {}
  bool fits(size_t na) const noexcept { return died_at_.size() == na; }
  bool alive(size_t i) const noexcept { return died_at_[i] == 0; }
  size_t dead_count(size_t) const noexcept { return 0; }  // not counted: a pass of its own

 private:
  std::span<const uint64_t> died_at_;
};

// A's alive objects as bits (AliveBits).
class AliveWords {
 public:
  explicit AliveWords(AliveBits bits) noexcept : words_(bits.words) {}
  bool fits(size_t na) const noexcept { return words_.size() >= (na + 63) / 64; }
  bool alive(size_t i) const noexcept { return (words_[i / 64] >> (i % 64)) & 1; }
  size_t dead_count(size_t na) const noexcept {
    size_t alive = 0;
    for (size_t w = 0; w < na / 64; ++w) alive += static_cast<size_t>(std::popcount(words_[w]));
    if (na % 64) alive += static_cast<size_t>(std::popcount(words_[na / 64] & ((uint64_t{1} << (na % 64)) - 1)));
    return na - alive;
  }

 private:
  std::span<const uint64_t> words_;
};

// The one merge of every form of diff_objects over B's columns B (WholeColumns or
// StreamedColumns) and A's alive objects ALIVE (DiedAt or AliveWords).
template <typename Columns, typename Alive>
Result<ObjectDiff> merge_objects(std::span<const uint64_t> a_sizes, Columns& b, std::span<const uint64_t> a_at_b,
                                 const Alive& a_alive, bool match_index, bool keep_new_sizes) {
  const size_t na = a_at_b.size(), nb = b.size();
  const bool sized = !a_sizes.empty();  // else A's bytes are summed by the caller
  ObjectDiff diff;
  if (match_index) diff.b_index_of_a.assign(na, kNoObject);
  diff.dead_objects.reserve(a_alive.dead_count(na));
  // Room for every B object to be new: address space only (the pages come as they fill), so
  // that the lists never regrow (a copy, and twice their memory fresh).
  detail::reserve_huge(diff.new_objects, nb);
  if (keep_new_sizes) detail::reserve_huge(diff.new_sizes, nb);
  // Survivors are merged with B's (sorted) address column in the order of their address at B.
  // Most GCs keep the order of what they compact: then that is A's own order, and no list of
  // survivors is sorted.
  bool sorted = true;
  uint64_t previous = 0;
  size_t alive_count = 0;
  for (size_t i = 0; i < na; ++i) {
    if (!a_alive.alive(i)) {
      diff.dead_objects.push_back(i);
      if (sized) diff.dead_bytes += a_sizes[i];
      continue;
    }
    if (alive_count++ != 0 && a_at_b[i] < previous) sorted = false;
    previous = a_at_b[i];
  }
  // The survivors come in the order of their address at B and J only moves forward, so the
  // only B object already matched is the last one matched (two survivors at one address: the
  // second is missing). The B objects J passes unmatched are new, listed in order as it goes.
  size_t j = 0, last_matched = SIZE_MAX;
  auto add_new = [&](size_t k) {
    diff.new_objects.push_back(k);
    diff.new_bytes += b.size_at(k);
    if (keep_new_sizes) diff.new_sizes.push_back(b.size_at(k));
  };
  auto match = [&](size_t i) {
    const uint64_t x = a_at_b[i];
    for (; j < nb && b.reach(j) && b.address(j) < x; ++j)
      if (j != last_matched) add_new(j);
    if (j < nb && b.reach(j) && b.address(j) == x && j != last_matched) {
      last_matched = j;
      if (match_index) diff.b_index_of_a[i] = j;
      ++diff.surviving_count;
      if (sized) diff.surviving_bytes_a += a_sizes[i];
      diff.surviving_bytes_b += b.size_at(j);
    } else {
      diff.missing_in_b.push_back(i);
    }
  };
  if (sorted) {
    for (size_t i = 0; i < na; ++i)
      if (a_alive.alive(i)) match(i);
  } else {
    std::vector<size_t> alive;
    alive.reserve(alive_count);
    for (size_t i = 0; i < na; ++i)
      if (a_alive.alive(i)) alive.push_back(i);
    std::sort(alive.begin(), alive.end(), [&](size_t x, size_t y) { return a_at_b[x] < a_at_b[y]; });
    for (size_t i : alive) match(i);
  }
  std::sort(diff.missing_in_b.begin(), diff.missing_in_b.end());
  for (; j < nb && b.reach(j); ++j)
    if (j != last_matched) add_new(j);
  GCSNAP_RETURN_IF_ERROR(b.finish());
  return diff;
}

}  // namespace

namespace {

template <typename Alive>
Result<ObjectDiff> diff_whole(std::span<const uint64_t> a_sizes, std::span<const uint64_t> b_addresses,
                              std::span<const uint64_t> b_sizes, std::span<const uint64_t> a_at_b,
                              const Alive& a_alive, bool match_index) try {
  const size_t na = a_at_b.size(), nb = b_addresses.size();
  if ((!a_sizes.empty() && a_sizes.size() != na) || !a_alive.fits(na) || b_sizes.size() != nb)
    return make_error(ErrorCode::InvalidArgument, "object diff columns have different lengths");
  detail::WholeColumns b(b_addresses, b_sizes);
  return merge_objects(a_sizes, b, a_at_b, a_alive, match_index, false);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "diffing objects");
}

template <typename Alive>
Result<ObjectDiff> diff_streamed(std::span<const uint64_t> a_sizes, ColumnBlocks& b_blocks,
                                 std::span<const uint64_t> a_at_b, const Alive& a_alive) try {
  const size_t na = a_at_b.size();
  if ((!a_sizes.empty() && a_sizes.size() != na) || !a_alive.fits(na))
    return make_error(ErrorCode::InvalidArgument, "object diff columns have different lengths");
  detail::StreamedColumns b(b_blocks);
  return merge_objects(a_sizes, b, a_at_b, a_alive, false, true);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "diffing objects");
}

}  // namespace

Result<ObjectDiff> diff_objects(std::span<const uint64_t> a_sizes, std::span<const uint64_t> b_addresses,
                                std::span<const uint64_t> b_sizes, std::span<const uint64_t> a_at_b,
                                std::span<const uint64_t> a_died_at, bool match_index) {
  return diff_whole(a_sizes, b_addresses, b_sizes, a_at_b, DiedAt(a_died_at), match_index);
}

Result<ObjectDiff> diff_objects(std::span<const uint64_t> a_sizes, ColumnBlocks& b_blocks,
                                std::span<const uint64_t> a_at_b, std::span<const uint64_t> a_died_at) {
  return diff_streamed(a_sizes, b_blocks, a_at_b, DiedAt(a_died_at));
}

Result<ObjectDiff> diff_objects(const ObjectTable& a, const ObjectTable& b, std::span<const uint64_t> a_at_b,
                                AliveBits a_alive) {
  if (b.sizes.size() != b.size() || a.sizes.size() != a.size())
    return make_error(ErrorCode::InvalidArgument, "object diff columns have different lengths");
  return diff_objects(a.sizes, b.addresses, b.sizes, a_at_b, a_alive);
}

Result<ObjectDiff> diff_objects(std::span<const uint64_t> a_sizes, std::span<const uint64_t> b_addresses,
                                std::span<const uint64_t> b_sizes, std::span<const uint64_t> a_at_b,
                                AliveBits a_alive, bool match_index) {
  return diff_whole(a_sizes, b_addresses, b_sizes, a_at_b, AliveWords(a_alive), match_index);
}

Result<ObjectDiff> diff_objects(std::span<const uint64_t> a_sizes, ColumnBlocks& b_blocks,
                                std::span<const uint64_t> a_at_b, AliveBits a_alive) {
  return diff_streamed(a_sizes, b_blocks, a_at_b, AliveWords(a_alive));
}

namespace {

// Per type id: its totals, then the group its name belongs to. Type ids are small dense
// numbers in recordings, so a flat array beats hashing every object; a map takes the rest.
class TypeSlots {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  explicit TypeSlots(uint32_t max_id) {
    if (max_id < kFlatLimit) flat_.assign(static_cast<size_t>(max_id) + 1, kNone);
  }
  // Return the slot of ID, numbering new ids in order of appearance.
  uint32_t slot(uint32_t id) {
    if (!flat_.empty()) {
      uint32_t& s = flat_[id];
      if (s == kNone) s = add(id);
      return s;
    }
    auto [it, inserted] = map_.try_emplace(id, 0);
    if (inserted) it->second = add(id);
    return it->second;
  }
  // Return the slot of ID if it has one (kNone otherwise).
  uint32_t find(uint32_t id) const {
    if (!flat_.empty()) return id < flat_.size() ? flat_[id] : kNone;
    auto it = map_.find(id);
    return it == map_.end() ? kNone : it->second;
  }
  const std::vector<uint32_t>& ids() const { return ids_; }

 private:
  static constexpr uint32_t kFlatLimit = 1u << 22;
  uint32_t add(uint32_t id) {
    ids_.push_back(id);
    return static_cast<uint32_t>(ids_.size() - 1);
  }
  std::vector<uint32_t> flat_;
  std::unordered_map<uint32_t, uint32_t> map_;
  std::vector<uint32_t> ids_;
};

// The one grouping of group_by_type and group_listed_by_type: TYPE_OF(k) and SIZE_OF(k) are
// member K's (the K-th of INDICES).
template <typename TypeOf, typename SizeOf>
std::vector<TypeGroup> group_members(TypeOf&& type_of, SizeOf&& size_of, const NameTable& names,
                                     std::span<const size_t> indices, const GroupSelection& selection) {
  uint32_t max_id = 0;
  for (size_t k = 0; k < indices.size(); ++k) max_id = std::max(max_id, type_of(k));
  // Count per type id first, so names are looked up once per type and not once per object.
  TypeSlots slots(max_id);
  std::vector<std::pair<uint64_t, uint64_t>> totals;  // per slot: count, bytes
  for (size_t k = 0; k < indices.size(); ++k) {
    const uint32_t s = slots.slot(type_of(k));
    if (s == totals.size()) totals.emplace_back(0, 0);
    ++totals[s].first;
    totals[s].second += size_of(k);
  }
  // Two ids can share a name (the same type loaded twice): one group per name.
  std::unordered_map<std::string_view, size_t> group_of_name;
  std::vector<TypeGroup> groups;
  std::vector<size_t> group_of_slot(totals.size());
  for (size_t s = 0; s < totals.size(); ++s) {
    const std::string_view name = names.type_name(slots.ids()[s]);
    auto [it, inserted] = group_of_name.try_emplace(name, groups.size());
    if (inserted) groups.push_back(TypeGroup{std::string(name), 0, 0, {}});
    TypeGroup& g = groups[it->second];
    g.count += totals[s].first;
    g.bytes += totals[s].second;
    group_of_slot[s] = it->second;
  }
  // Sort a permutation, keep what the selection asks for, then list the kept groups' members.
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const TypeGroup& gx = groups[x];
    const TypeGroup& gy = groups[y];
    if (gx.bytes != gy.bytes) return gx.bytes > gy.bytes;
    if (gx.count != gy.count) return gx.count > gy.count;
    return gx.name < gy.name;
  });
  if (selection.keep_type)
    std::erase_if(order, [&](size_t g) { return !selection.keep_type(groups[g].name); });
  if (selection.top && order.size() > selection.top) order.resize(selection.top);
  std::vector<size_t> kept_position(groups.size(), SIZE_MAX);
  std::vector<TypeGroup> out;
  out.reserve(order.size());
  for (size_t g : order) {
    kept_position[g] = out.size();
    out.push_back(std::move(groups[g]));
    out.back().members.reserve(out.back().count);
  }
  for (size_t k = 0; k < indices.size(); ++k) {
    const size_t position = kept_position[group_of_slot[slots.find(type_of(k))]];
    if (position != SIZE_MAX) out[position].members.push_back(indices[k]);
  }
  for (auto& g : out)
    if (!std::is_sorted(g.members.begin(), g.members.end())) std::sort(g.members.begin(), g.members.end());
  return out;
}

}  // namespace

Result<std::vector<TypeGroup>> group_by_type(std::span<const uint32_t> type_ids, std::span<const uint64_t> sizes,
                                             const NameTable& names, std::span<const size_t> indices,
                                             const GroupSelection& selection) try {
  return group_members([&](size_t k) { return type_ids[indices[k]]; }, [&](size_t k) { return sizes[indices[k]]; },
                       names, indices, selection);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "grouping objects by type");
}

Result<std::vector<TypeGroup>> group_by_type(const ObjectTable& objects, const NameTable& names,
                                             std::span<const size_t> indices) {
  return group_by_type(objects.type_ids, objects.sizes, names, indices);
}

Result<std::vector<TypeGroup>> group_listed_by_type(std::span<const uint32_t> type_ids, std::span<const uint64_t> sizes,
                                                    const NameTable& names, std::span<const size_t> indices,
                                                    const GroupSelection& selection) try {
  if (type_ids.size() != indices.size() || sizes.size() != indices.size())
    return make_error(ErrorCode::InvalidArgument, "grouped columns have different lengths");
  return group_members([&](size_t k) { return type_ids[k]; }, [&](size_t k) { return sizes[k]; }, names, indices,
                       selection);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "grouping objects by type");
}

}  // namespace gcsnap
