#include "gcsnap/walk_diff.hpp"

#include <algorithm>
#include <map>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "gcsnap/object_identity.hpp"

namespace gcsnap {

uint64_t HeapWalk::total_bytes() const noexcept {
  uint64_t bytes = 0;
  for (uint64_t size : objects.sizes) bytes += size;
  return bytes;
}

// Function-try-blocks: allocation failures become OutOfMemory (docs/library.md "Errors").
Result<HeapWalk> read_heap_walk(const Recording& recording, size_t gc_index, const ObjectReadOptions& options) try {
  if (gc_index >= recording.gcs().size()) return make_error(ErrorCode::NotFound, "no such GC index");
  HeapWalk walk;
  walk.gc_index = gc_index;
  walk.gc_number = recording.gcs()[gc_index].info.gc_number;
  auto objects = recording.read_objects(gc_index, options);
  if (!objects) return objects.error();
  walk.objects = std::move(objects).value();
  auto roots = recording.read_roots(gc_index);
  if (!roots) return roots.error();
  walk.roots = std::move(roots).value();
  auto names = recording.read_names(gc_index);
  if (!names) return names.error();
  walk.names = std::move(names).value();
  // §6.11: without the section (1.0 recordings) nothing tells a ConditionalWeakTable value
  // from garbage; has_dependent lets callers say so.
  auto has_dependent = recording.has_dependent_handle_section(gc_index);
  if (!has_dependent) return has_dependent.error();
  walk.has_dependent = *has_dependent;
  auto dependent = recording.read_dependent_handles(gc_index);
  if (!dependent) return dependent.error();
  walk.dependent = std::move(dependent).value();
  return walk;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading a heap walk");
}

namespace {

// Two processes share no addresses or ids: roots are compared by what they hold. Object ids
// become interned type names, stack root ids interned method names, other ids 0.
class RootRelabeler {
 public:
  RootTable relabel(const HeapWalk& walk) {
    RootTable out = walk.roots;
    for (size_t i = 0; i < out.size(); ++i) {
      out.object_ids[i] = intern(type_of(walk, walk.roots.object_ids[i]));
      const MethodRecord* m = out.kinds[i] == RootKind::Stack ? walk.names.find_method(out.root_ids[i]) : nullptr;
      out.root_ids[i] = m ? intern(m->name) : 0;
    }
    return out;
  }

 private:
  static std::string_view type_of(const HeapWalk& walk, uint64_t address) {
    const auto row = address == 0 ? std::nullopt : walk.objects.find_containing(address);
    if (!row) return {};
    return walk.names.type_name(walk.objects.type_ids[*row]);
  }
  uint64_t intern(std::string_view text) {
    if (text.empty()) return 0;
    return ids_.try_emplace(std::string(text), ids_.size() + 1).first->second;
  }
  std::map<std::string, uint64_t, std::less<>> ids_;
};

// Generation of each address per the walk (containing object), as hints for the mapper.
std::vector<Generation> generation_hints(const ObjectTable& objects, std::span<const uint64_t> addresses) {
  std::vector<Generation> out;
  out.reserve(addresses.size());
  for (uint64_t x : addresses) {
    const auto row = objects.find_containing(x);
    out.push_back(row ? objects.generations[*row] : Generation::Unknown);
  }
  return out;
}

void keep_top(std::vector<TypeGroup>& groups, size_t top) {
  if (top && groups.size() > top) groups.resize(top);
}

}  // namespace

Result<RootDiff> diff_roots_by_content(const HeapWalk& a, const HeapWalk& b) try {
  RootRelabeler labels;
  const RootTable la = labels.relabel(a);
  const RootTable lb = labels.relabel(b);
  return diff_roots(la, {}, lb);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "matching roots by content");
}

Result<WalkDiff> diff_walks(const Recording& recording, const HeapWalk& a, const HeapWalk& b, size_t top) {
  return diff_walks(recording, a, b, WalkDiffOptions{top, 1, {}});
}

Result<WalkDiff> diff_walks(const Recording& recording, const HeapWalk& a, const HeapWalk& b,
                            const WalkDiffOptions& options) try {
  const size_t top = options.top;
  auto keep = [&](std::vector<TypeGroup>& groups) {
    if (options.keep_type)
      std::erase_if(groups, [&](const TypeGroup& g) { return !options.keep_type(g.name); });
    keep_top(groups, top);
  };
  WalkDiff out;
  // Identity only runs forward in time: follow the earlier side's objects to the later one.
  out.reversed = a.gc_index > b.gc_index;
  const HeapWalk& early = out.reversed ? b : a;
  const HeapWalk& late = out.reversed ? a : b;
  // One pass over the GCs in between follows the objects and the roots' objects together.
  const size_t n = early.objects.size();
  std::vector<uint64_t> addresses = early.objects.addresses;
  addresses.insert(addresses.end(), early.roots.object_ids.begin(), early.roots.object_ids.end());
  std::vector<Generation> hints = early.objects.generations;
  const auto root_hints = generation_hints(early.objects, early.roots.object_ids);
  hints.insert(hints.end(), root_hints.begin(), root_hints.end());
  auto mapper = map_objects(recording, early.gc_index, late.gc_index, addresses, hints);
  if (!mapper) return mapper.error();

  std::vector<uint64_t> mapped_roots(early.roots.size());
  for (size_t i = 0; i < early.roots.size(); ++i)
    mapped_roots[i] = mapper->is_alive(n + i) ? mapper->addresses()[n + i] : 0;
  auto roots = diff_roots(early.roots, mapped_roots, late.roots);
  if (!roots) return roots.error();
  out.roots = std::move(roots).value();
  if (out.reversed) std::swap(out.roots.added, out.roots.removed);

  auto diff = diff_objects(early.objects, late.objects, mapper->addresses().first(n), mapper->died_at().first(n));
  if (!diff) return diff.error();
  // In A-to-B terms: "new" are in B and not in A, "dead" in A and not in B.
  const auto& new_in_b = out.reversed ? diff->dead_objects : diff->new_objects;
  const auto& dead_in_a = out.reversed ? diff->new_objects : diff->dead_objects;
  out.new_count = new_in_b.size();
  out.new_bytes = out.reversed ? diff->dead_bytes : diff->new_bytes;
  out.dead_count = dead_in_a.size();
  out.dead_bytes = out.reversed ? diff->new_bytes : diff->dead_bytes;
  out.surviving_count = diff->surviving_count;
  out.surviving_bytes = out.reversed ? diff->surviving_bytes_a : diff->surviving_bytes_b;
  out.missing_count = diff->missing_in_b.size();
  for (size_t i : diff->missing_in_b) out.missing_bytes += early.objects.sizes[i];

  auto groups = group_by_type(b.objects, b.names, new_in_b);
  if (!groups) return groups.error();
  out.new_groups = std::move(groups).value();
  keep(out.new_groups);
  if (!out.new_groups.empty()) {
    auto graph = HeapGraph::build(b.objects, b.roots, b.has_dependent ? &b.dependent : nullptr);
    if (!graph) return graph.error();
    out.graph_b = std::move(graph).value();
    auto paths = find_group_paths(out.graph_b, out.new_groups, 4096, std::max<size_t>(1, options.max_shapes));
    if (!paths) return paths.error();
    out.new_paths = std::move(paths).value();
  }
  auto dead = group_by_type(a.objects, a.names, dead_in_a);
  if (!dead) return dead.error();
  out.dead_groups = std::move(dead).value();
  keep(out.dead_groups);
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "diffing two heap walks");
}

}  // namespace gcsnap
