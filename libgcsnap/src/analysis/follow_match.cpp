// A's objects followed through one GC and matched with B's as they come (follow_match.hpp).

#include "analysis/follow_match.hpp"

#include <algorithm>
#include <new>
#include <numeric>

#include "analysis/column_cursor.hpp"
#include "huge_pages.hpp"

namespace gcsnap::detail {

namespace {

// The generation at A of the object holding each root address (generation_hints' answer), found
// as A's blocks pass: an address is held by the last object starting at or below it, when it
// reaches that far (find_containing).
class RootHints {
 public:
  explicit RootHints(std::span<const uint64_t> addresses)
      : addresses_(addresses), order_(addresses.size()), hints_(addresses.size(), Generation::Unknown) {
    std::iota(order_.begin(), order_.end(), size_t{0});
    std::sort(order_.begin(), order_.end(), [&](size_t x, size_t y) { return addresses_[x] < addresses_[y]; });
  }

  void see(const ObjectBlocks::Block& block) {
    const auto& a = block.addresses;
    // Below the block: held, if by anything, by the last object of the block before.
    for (; k_ < order_.size() && at(k_) < a.front(); ++k_) resolve(k_, last_);
    for (; k_ < order_.size() && at(k_) <= a.back(); ++k_) {
      const size_t row = static_cast<size_t>(std::upper_bound(a.begin(), a.end(), at(k_)) - a.begin()) - 1;
      resolve(k_, Holder{a[row], block.sizes[row], block.generations[row], true});
    }
    last_ = Holder{a.back(), block.sizes.back(), block.generations.back(), true};
  }

  std::vector<Generation> finish() {
    for (; k_ < order_.size(); ++k_) resolve(k_, last_);
    return std::move(hints_);
  }

 private:
  struct Holder {
    uint64_t address = 0, size = 0;
    Generation generation = Generation::Unknown;
    bool found = false;
  };
  uint64_t at(size_t k) const { return addresses_[order_[k]]; }
  // As covering(): a zero-size object holds its own start.
  void resolve(size_t k, const Holder& h) {
    if (h.found && at(k) - h.address < std::max<uint64_t>(h.size, 1)) hints_[order_[k]] = h.generation;
  }

  std::span<const uint64_t> addresses_;
  std::vector<size_t> order_;  // the root addresses' positions, by address
  std::vector<Generation> hints_;
  size_t k_ = 0;  // the next of order_ to resolve
  Holder last_;   // the last object of the blocks seen
};

// A survivor whose address at B falls below one merged before it (the GC changed the order of
// A's objects): matched after the merge, against the B objects the merge passed unmatched.
struct Stray {
  uint64_t address = 0;  // at B
  size_t row = 0;        // in A
  uint64_t size = 0;     // at A
};

// The merge of merge_objects (object_diff.cpp) with the survivors given one at a time in A's
// order: those in rising order of their address at B are merged with B's columns as they come;
// the others (strays) wait for finish().
template <typename Columns>
class Matcher {
 public:
  Matcher(Columns& b, FollowedMatch& out) : b_(b), nb_(b.size()), out_(out), d_(out.diff) {
    // Room for every B object to be new: address space only, the pages come as they fill.
    reserve_huge(d_.new_objects, nb_);
    reserve_huge(d_.new_sizes, nb_);
    reserve_huge(new_addresses_, nb_);
  }

  // A's object ROW, of SIZE at A, is at X at B.
  void survivor(size_t row, uint64_t x, uint64_t size) {
    if (merged_any_ && x < previous_) {
      strays_.push_back(Stray{x, row, size});
      return;
    }
    merged_any_ = true;
    previous_ = x;
    // J only moves forward: the only B object already matched is the last one (two survivors at
    // one address: the second is missing); those J passes unmatched are new.
    for (; j_ < nb_ && b_.reach(j_) && b_.address(j_) < x; ++j_)
      if (j_ != last_matched_) add_new(j_);
    if (j_ < nb_ && b_.reach(j_) && b_.address(j_) == x && j_ != last_matched_) {
      last_matched_ = j_;
      add_surviving(size, b_.size_at(j_));
    } else {
      add_missing(row, size);
    }
  }

  Status finish() {
    for (; j_ < nb_ && b_.reach(j_); ++j_)
      if (j_ != last_matched_) add_new(j_);
    GCSNAP_RETURN_IF_ERROR(b_.finish());
    match_strays();
    std::sort(d_.missing_in_b.begin(), d_.missing_in_b.end());
    return Status::ok();
  }

 private:
  void add_new(size_t k) {
    d_.new_objects.push_back(k);
    d_.new_sizes.push_back(b_.size_at(k));
    d_.new_bytes += b_.size_at(k);
    new_addresses_.push_back(b_.address(k));
  }
  void add_surviving(uint64_t size_a, uint64_t size_b) {
    ++d_.surviving_count;
    d_.surviving_bytes_a += size_a;
    d_.surviving_bytes_b += size_b;
  }
  void add_missing(size_t row, uint64_t size) {
    d_.missing_in_b.push_back(row);
    out_.missing_bytes += size;
  }

  // The strays in order of address (then row), each taking the new B object at its address if
  // no stray before took it: as if every survivor had been sorted by address and merged.
  void match_strays() {
    if (strays_.empty()) return;
    std::sort(strays_.begin(), strays_.end(), [](const Stray& x, const Stray& y) {
      return x.address != y.address ? x.address < y.address : x.row < y.row;
    });
    std::vector<bool> taken(new_addresses_.size());
    size_t k = 0;
    for (const Stray& s : strays_) {
      while (k < new_addresses_.size() && new_addresses_[k] < s.address) ++k;
      if (k < new_addresses_.size() && new_addresses_[k] == s.address && !taken[k]) {
        taken[k] = true;
        add_surviving(s.size, d_.new_sizes[k]);
        d_.new_bytes -= d_.new_sizes[k];
      } else {
        add_missing(s.row, s.size);
      }
    }
    size_t kept = 0;
    for (size_t m = 0; m < taken.size(); ++m) {
      if (taken[m]) continue;
      d_.new_objects[kept] = d_.new_objects[m];
      d_.new_sizes[kept++] = d_.new_sizes[m];
    }
    d_.new_objects.resize(kept);
    d_.new_sizes.resize(kept);
  }

  Columns& b_;
  size_t nb_;
  FollowedMatch& out_;
  ObjectDiff& d_;
  size_t j_ = 0, last_matched_ = SIZE_MAX;
  bool merged_any_ = false;
  uint64_t previous_ = 0;                // the address at B of the last survivor merged
  std::vector<uint64_t> new_addresses_;  // parallel to d_.new_objects, for the strays
  std::vector<Stray> strays_;
};

template <typename Columns>
Result<FollowedMatch> follow_all(const GcTransition& gc, ObjectBlocks& a, Columns& b,
                                 std::span<const uint64_t> root_addresses) try {
  FollowedMatch out;
  const size_t na = a.size();
  // Room for every A object to die (address space only, as the new objects' room).
  reserve_huge(out.diff.dead_objects, na);
  reserve_huge(out.dead_sizes, na);
  reserve_huge(out.dead_types, na);
  RootHints hints(root_addresses);
  Matcher<Columns> matcher(b, out);
  GcTransition::Cursor cursor(gc);
  size_t base = 0;  // the row of the block's first object
  for (;;) {
    ObjectBlocks::Block block;
    GCSNAP_RETURN_IF_ERROR(a.next(block));
    const size_t count = block.addresses.size();
    if (count == 0) break;
    if (count > na - base || block.sizes.size() != count || block.type_ids.size() != count ||
        block.generations.size() != count)
      return make_error(ErrorCode::CorruptSection, "object columns of another length");
    hints.see(block);
    for (size_t k = 0; k < count; ++k) {
      // A's addresses rise: the cursor answers them in one merge with the GC's ranges.
      const auto step = cursor.next(block.addresses[k], block.generations[k]);
      if (step.fate != Fate::Died) {
        matcher.survivor(base + k, step.address, block.sizes[k]);
        continue;
      }
      out.diff.dead_objects.push_back(base + k);
      out.dead_sizes.push_back(block.sizes[k]);
      out.dead_types.push_back(block.type_ids[k]);
      out.diff.dead_bytes += block.sizes[k];
    }
    base += count;
  }
  if (base != na) return make_error(ErrorCode::CorruptSection, "object columns of another length");
  GCSNAP_RETURN_IF_ERROR(matcher.finish());
  out.root_hints = hints.finish();
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "diffing objects");
}

}  // namespace

Result<FollowedMatch> follow_and_match(const GcTransition& gc, ObjectBlocks& a_blocks, ColumnBlocks& b_blocks,
                                       std::span<const uint64_t> root_addresses) {
  StreamedColumns b(b_blocks);
  return follow_all(gc, a_blocks, b, root_addresses);
}

Result<FollowedMatch> follow_and_match(const GcTransition& gc, ObjectBlocks& a_blocks,
                                       std::span<const uint64_t> b_addresses, std::span<const uint64_t> b_sizes,
                                       std::span<const uint64_t> root_addresses) {
  if (b_addresses.size() != b_sizes.size())
    return make_error(ErrorCode::InvalidArgument, "object diff columns have different lengths");
  WholeColumns b(b_addresses, b_sizes);
  return follow_all(gc, a_blocks, b, root_addresses);
}

}  // namespace gcsnap::detail
