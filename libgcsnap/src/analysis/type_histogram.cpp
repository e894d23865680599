#include "gcsnap/type_histogram.hpp"

#include <algorithm>
#include <new>

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

// Walk the dominator tree depth-first, keeping per type how many objects of that type are
// on the current path; an object adds its retained size only when none is.
void add_retained(const HeapGraph& graph, const DominatorTree& dom, const TypeSlots& types,
                  std::vector<TypeStats>& stats) {
  const auto preorder = dom.preorder();
  const size_t m = preorder.size();
  std::vector<uint32_t> position(graph.node_count(), 0);
  for (size_t i = 0; i < m; ++i) position[preorder[i]] = static_cast<uint32_t>(i + 1);  // 0: virtual root
  std::vector<uint32_t> offsets(m + 2, 0);
  for (size_t i = 0; i < m; ++i) {
    const NodeIndex parent = dom.immediate_dominator(preorder[i]);
    ++offsets[parent == kVirtualRoot ? 0 : position[parent]];
  }
  uint32_t sum = 0;
  for (auto& o : offsets) {
    const uint32_t c = o;
    o = sum;
    sum += c;
  }
  std::vector<uint32_t> children(m);
  for (size_t i = 0; i < m; ++i) {
    const NodeIndex parent = dom.immediate_dominator(preorder[i]);
    children[offsets[parent == kVirtualRoot ? 0 : position[parent]]++] = static_cast<uint32_t>(i + 1);
  }
  for (size_t i = m + 1; i > 0; --i) offsets[i] = offsets[i - 1];
  offsets[0] = 0;
  std::vector<uint32_t>().swap(position);  // frees; `position = {}` would keep the capacity

  std::vector<uint32_t> on_path(types.ids.size(), 0);
  struct Step {
    uint32_t position;
    bool leaving;
  };
  std::vector<Step> stack;
  for (uint32_t c = offsets[0]; c < offsets[1]; ++c) stack.push_back({children[c], false});
  while (!stack.empty()) {
    const Step step = stack.back();
    stack.pop_back();
    const NodeIndex node = preorder[step.position - 1];
    const uint32_t slot = types.slot[node];
    if (step.leaving) {
      --on_path[slot];
      continue;
    }
    if (on_path[slot]++ == 0) stats[slot].retained_bytes += dom.retained_size(node);
    stack.push_back({step.position, true});
    for (uint32_t c = offsets[step.position]; c < offsets[step.position + 1]; ++c)
      stack.push_back({children[c], false});
  }
}

}  // namespace

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
    if (dominators) add_retained(graph, *dominators, types, stats);
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
    return stats;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory building the type histogram");
  }
}

}  // namespace gcsnap
