// The rules of each array of an analysis index read whole (format-spec.md §12.4 item 4), as
// jobs that check an array chunk by chunk while hashing it, and the rules that need several
// arrays, checked after the jobs.

#include <algorithm>
#include <utility>
#include <vector>

#include "analysis_index/index_array_rules.hpp"
#include "analysis_index/index_parse.hpp"
#include "analysis_index/index_largest_heads.hpp"
#include "analysis_index/index_nearest_instances.hpp"
#include "analysis_index/index_type_holders.hpp"

#include "format/xxh3_wide.hpp"

namespace gcsnap::detail {

namespace {

constexpr const char* kGraphRule = "analysis index graph arrays out of range";

}  // namespace

void IndexParse::add_root_checks(CheckJobs& jobs) {
  parts_.roots.reserve(static_cast<size_t>(c_.roots));
  jobs.add(index_rules::kRootRule, [this](Source& src) {
    return each<uint32_t>(src, place_, L::kRoots, L::kRootRecord, [&](uint32_t node, const std::byte* at, uint64_t) {
      GraphRoot r;
      r.node = node;
      r.root_index = L::load<uint32_t>(at + L::kRootIndex);
      r.root_id = L::load<uint64_t>(at + L::kRootId);
      const auto kind = L::load<uint8_t>(at + L::kRootKind);
      r.flags = L::load<uint8_t>(at + L::kRootFlags);
      for (size_t k = L::kRootZeroFrom; k < L::kRootRecord; ++k)
        if (at[k] != std::byte{0}) return false;
      r.kind = static_cast<RootKind>(kind);
      parts_.roots.push_back(r);
      return node < n_ && kind <= static_cast<uint8_t>(RootKind::Handle) && r.root_index < root_total_;
    });
  });
  parts_.unresolved_roots.reserve(static_cast<size_t>(c_.unresolved));
  jobs.add(index_rules::kUnresolvedRootRule, [this](Source& src) {
    return each<uint32_t>(src, place_, L::kUnresolved, L::kUnresolvedRecord, [&](uint32_t r, const std::byte*, uint64_t) {
      parts_.unresolved_roots.push_back(r);
      return r < root_total_;
    });
  });
}

void IndexParse::add_object_checks(CheckJobs& jobs) {
  if (wanted(kIndexObjects)) {
    jobs.add(index_rules::kAddressRule, [this](Source& src) {
      uint64_t previous = 0;
      return typed<uint64_t>(src, place_, L::kAddresses, [&](const uint64_t* a, size_t count, uint64_t first) {
        const bool ok = index_rules::addresses_rise(a, count, previous, first);
        previous = a[count - 1];
        return ok;
      });
    });
    jobs.add("", [this](Source& src) { return typed<uint64_t>(src, place_, L::kSizes, any); });
    jobs.add(index_rules::kGenerationRule, [this](Source& src) {
      return typed<uint8_t>(src, place_, L::kGenerations, [](const uint8_t* g, size_t count, uint64_t) {
        bool bad = false;
        for (size_t i = 0; i < count; ++i) bad |= !index_rules::is_generation(g[i]);
        return !bad;
      });
    });
  }
  if (wanted(kIndexTypeIds))
    jobs.add("", [this](Source& src) { return typed<uint32_t>(src, place_, L::kTypeIds, any); });
}

ArrayCheck IndexParse::check_offsets(Source& src, size_t which) const {
  uint64_t last = 0;
  auto rule = [&](const auto* o, size_t count, uint64_t first) {
    bool bad = first == 0 && o[0] != 0;
    bad |= first > 0 && o[0] < last;
    for (size_t i = 1; i < count; ++i) bad |= o[i] < o[i - 1];
    last = o[count - 1];
    return !bad && (first + count != n_ + 1 || last == m_);  // non-decreasing to m: all <= m
  };
  return wide_ ? typed<uint64_t>(src, place_, which, rule) : typed<uint32_t>(src, place_, which, rule);
}

ArrayCheck IndexParse::check_nodes(Source& src, size_t which) const {
  return typed<uint32_t>(src, place_, which, [&](const uint32_t* v, size_t count, uint64_t) {
    uint32_t top = 0;
    for (size_t i = 0; i < count; ++i) top = std::max(top, v[i]);
    return top < n_;
  });
}

void IndexParse::add_graph_checks(CheckJobs& jobs) {
  if (wanted(kIndexForward)) {
    jobs.add(kGraphRule, [this](Source& src) { return check_offsets(src, L::kForwardOffsets); });
    jobs.add(kGraphRule, [this](Source& src) { return check_nodes(src, L::kForwardTargets); });
  }
  if (wanted(kIndexReverse)) {
    jobs.add(kGraphRule, [this](Source& src) { return check_offsets(src, L::kReverseOffsets); });
    jobs.add(kGraphRule, [this](Source& src) { return check_nodes(src, L::kReverseSources); });
  }
  if (wanted(kIndexSlots)) jobs.add("", [this](Source& src) { return typed<uint32_t>(src, place_, L::kSlots, any); });
  if (wanted(kIndexForward)) {
    parts_.dependent_edges.reserve(static_cast<size_t>(c_.dependent));
    jobs.add("analysis index dependent edges out of range or order", [this](Source& src) {
      return each<uint64_t>(src, place_, L::kDependentEdges, L::kDependentRecord,
                            [&](uint64_t, const std::byte* at, uint64_t i) {
                              const std::pair<NodeIndex, NodeIndex> e{L::load<uint32_t>(at + L::kDependentPrimary),
                                                                      L::load<uint32_t>(at + L::kDependentSecondary)};
                              const bool ok =
                                  e.first < n_ && e.second < n_ && (i == 0 || parts_.dependent_edges.back() < e);
                              parts_.dependent_edges.push_back(e);
                              return ok;
                            });
    });
  }
}

void IndexParse::add_dominator_checks(CheckJobs& jobs) {
  if (!wanted(kIndexDominators)) return;
  jobs.add(
      "analysis index preorder out of range or repeated",
      [this](Source& src) {
        std::vector<bool> reachable(n_, false);
        const ArrayCheck pre = each<uint32_t>(src, place_, L::kPreorder, 4, [&](uint32_t v, const std::byte*, uint64_t) {
          if (v >= n_ || reachable[v]) return false;
          reachable[v] = true;
          return true;
        });
        if (pre != ArrayCheck::Ok) return pre;
        const ArrayCheck idom = each<uint32_t>(src, place_, L::kIdom, 4, [&](uint32_t d, const std::byte*, uint64_t v) {
          if (!reachable[v]) return d == kNoNode;
          return d == kVirtualRoot || (d < n_ && reachable[d]);
        });
        return idom == ArrayCheck::BadElement ? ArrayCheck::BadSecondElement : idom;
      },
      index_rules::kDominatorRule);
  jobs.add("", [this](Source& src) { return typed<uint64_t>(src, place_, L::kRetained, any); });
}

void IndexParse::add_path_tree_checks(CheckJobs& jobs) {
  if (!wanted(kIndexPathTree)) return;
  jobs.add("analysis index shortest-path tree out of range", [this](Source& src) {
    uint64_t reached = 0;
    const ArrayCheck parents =
        each<uint32_t>(src, place_, L::kPathParents, 4, [&](uint32_t parent, const std::byte*, uint64_t v) {
          if (parent == ShortestPathTree::kRootMark) {
            if (root_marks_.size() >= c_.roots) return false;
            root_marks_.push_back(static_cast<NodeIndex>(v));
          }
          reached += parent != kNoNode;
          return index_rules::is_path_parent(parent, n_);
        });
    if (parents != ArrayCheck::Ok) return parents;
    return reached == c_.preorder ? ArrayCheck::Ok : ArrayCheck::BadElement;
  });
}

void IndexParse::add_type_checks(CheckJobs& jobs) {
  if (!wanted(kIndexTypes)) return;
  types_.reserve(static_cast<size_t>(c_.types));
  jobs.add("analysis index type histogram not sorted or its generation bytes do not add up", [this](Source& src) {
    return each<uint32_t>(src, place_, L::kTypes, L::kTypeRecord, [&](uint32_t type, const std::byte* at, uint64_t i) {
      TypeStats t;
      const bool ok = load_type_record(at, t) && (i == 0 || types_.back().type_id < type);
      types_.push_back(t);
      return ok;
    });
  });
}

std::optional<Error> IndexParse::check_root_marks() const {
  if (!wanted(kIndexPathTree)) return std::nullopt;
  std::vector<NodeIndex> strong;
  for (const GraphRoot& r : parts_.roots)
    if (!r.is_weak()) strong.push_back(r.node);
  std::sort(strong.begin(), strong.end());
  for (NodeIndex v : root_marks_)
    if (!std::binary_search(strong.begin(), strong.end(), v))
      return damaged(ErrorCode::CorruptSection, "analysis index shortest-path tree out of range");
  return std::nullopt;
}

std::optional<Error> IndexParse::check_dependent_edges() const {
  if (!wanted(kIndexForward)) return std::nullopt;
  const auto narrow = forward_narrow();
  const auto wide = forward_wide();
  const auto targets = forward_targets();
  auto fwd = [&](size_t i) -> uint64_t { return wide_ ? wide[i] : narrow[i]; };
  const auto& edges = parts_.dependent_edges;
  for (size_t k = 0; k < edges.size();) {
    const NodeIndex primary = edges[k].first;
    size_t j = k;
    while (j < edges.size() && edges[j].first == primary) ++j;
    const uint64_t begin = fwd(primary), end = fwd(primary + size_t{1});
    if (end - begin < j - k) return damaged(ErrorCode::CorruptSection, "analysis index dependent edges do not match the graph");
    for (size_t e = 0; e < j - k; ++e)
      if (targets[static_cast<size_t>(end - (j - k) + e)] != edges[k + e].second)
        return damaged(ErrorCode::CorruptSection, "analysis index dependent edges do not match the graph");
    k = j;
  }
  return std::nullopt;
}

std::optional<Error> IndexParse::check_holders() {
  if (!wanted(kIndexHolders) || (c_.flags & L::kFlagHolders) == 0) return std::nullopt;
  const auto bytes = std::span(reinterpret_cast<const unsigned char*>(at(L::kHolders)),
                               static_cast<size_t>(place_.bytes[L::kHolders]));
  if (format::xxh3_64(bytes.data(), bytes.size()) != L::load<uint64_t>(h_ + L::hash_offset(L::kHolders)))
    return damaged(ErrorCode::ChecksumMismatch, "analysis index array checksum");
  const auto [table, nearest] = split_type_tables(bytes, c_);
  auto rows = decode_type_holders(table, c_.holder_rows, c_.holder_text, types_);
  if (!rows) return rows.error();
  holders_ = std::move(rows).value();
  const auto [instances_bytes, heads_bytes] = split_after_holders(nearest, c_);
  if (c_.flags & L::kFlagNearest) {
    auto instances = decode_nearest_instances(instances_bytes, c_.nearest_rows, c_.nearest_per_type, types_, c_.nodes);
    if (!instances) return instances.error();
    nearest_ = std::move(instances).value();
  }
  if ((c_.flags & L::kFlagHeads) == 0) return std::nullopt;
  auto heads = decode_largest_heads(heads_bytes, c_.nodes);
  if (!heads) return heads.error();
  heads_ = std::move(heads).value();
  return std::nullopt;
}

}  // namespace gcsnap::detail
