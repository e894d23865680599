#include "gcsnap/type_histogram.hpp"

#include <algorithm>
#include <new>

#include "analysis/group_retained.hpp"
#include "huge_pages.hpp"

namespace gcsnap {
namespace {

// Type ids are dense and 1-based in a sound recording; a sparse or hostile id set falls
// back to a sorted table so memory stays proportional to the objects.
struct TypeSlots {
  std::vector<uint32_t> ids;   // slot -> type id
  std::vector<uint32_t> slot;  // node -> slot
};

TypeSlots assign_slots(const HeapGraph& graph) {
  TypeSlots t;
  const auto types = graph.type_ids();
  const uint32_t max_id = types.empty() ? 0 : *std::max_element(types.begin(), types.end());
  detail::reserve_huge(t.slot, types.size());
  t.slot.resize(types.size());
  if (max_id <= std::max<size_t>(types.size() * 2, size_t{1} << 20)) {
    std::vector<uint32_t> dense(size_t{max_id} + 1, 0xFFFFFFFFu);
    for (size_t i = 0; i < types.size(); ++i) {
      uint32_t& s = dense[types[i]];
      if (s == 0xFFFFFFFFu) {
        s = static_cast<uint32_t>(t.ids.size());
        t.ids.push_back(types[i]);
      }
      t.slot[i] = s;
    }
    return t;
  }
  t.ids.assign(types.begin(), types.end());
  std::sort(t.ids.begin(), t.ids.end());
  t.ids.erase(std::unique(t.ids.begin(), t.ids.end()), t.ids.end());
  for (size_t i = 0; i < types.size(); ++i)
    t.slot[i] = static_cast<uint32_t>(std::lower_bound(t.ids.begin(), t.ids.end(), types[i]) - t.ids.begin());
  return t;
}

}  // namespace

void sort_type_stats(std::vector<TypeStats>& stats, const TypeHistogramOptions& options) {
  auto key = [&](const TypeStats& t) {
    switch (options.order) {
      case TypeOrder::RetainedBytes: return t.retained_bytes;
      case TypeOrder::Count: return t.count;
      case TypeOrder::ShallowBytes: break;
    }
    return t.shallow_bytes;
  };
  std::sort(stats.begin(), stats.end(), [&](const TypeStats& a, const TypeStats& b) {
    return key(a) != key(b) ? key(a) > key(b) : a.type_id < b.type_id;
  });
  if (options.top != 0 && stats.size() > options.top) stats.resize(options.top);
}

Result<std::vector<TypeStats>> build_type_histogram(const HeapGraph& graph, const DominatorTree* dominators,
                                                    const TypeHistogramOptions& options,
                                                    std::span<const Generation> generations) {
  if (dominators && dominators->immediate_dominators().size() != graph.node_count())
    return make_error(ErrorCode::InvalidArgument, "dominator tree belongs to another graph");
  if (!generations.empty() && generations.size() != graph.node_count())
    return make_error(ErrorCode::InvalidArgument, "generations are not one per object of the graph");
  try {
    const TypeSlots types = assign_slots(graph);
    std::vector<TypeStats> stats(types.ids.size());
    for (size_t s = 0; s < stats.size(); ++s) stats[s].type_id = types.ids[s];
    for (NodeIndex v = 0; v < graph.node_count(); ++v) {
      TypeStats& t = stats[types.slot[v]];
      ++t.count;
      t.shallow_bytes += graph.object_size(v);
      if (!generations.empty()) t.generation_bytes[generation_slot(generations[v])] += graph.object_size(v);
      if (dominators && !dominators->is_reachable(v)) ++t.unreachable_count;
    }
    if (dominators) {
      const auto retained = detail::group_retained_bytes(*dominators, types.slot, stats.size());
      for (size_t s = 0; s < stats.size(); ++s) stats[s].retained_bytes = retained[s];
    }
    sort_type_stats(stats, options);
    return stats;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory building the type histogram");
  }
}

}  // namespace gcsnap
