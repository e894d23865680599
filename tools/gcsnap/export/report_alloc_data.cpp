// The allocation view's frame tree (report_alloc_data.hpp).
#include "export/report_alloc_data.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <vector>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "gcsnap/alloc_join.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {
namespace {

struct FrameNode {
  std::string name;
  double alloc = 0, live = 0;
  std::map<std::string, size_t> children;  // name -> node
  bool kept = false;
};

// Add one sample's values along its frames, outermost first, under the root (node 0).
void add_sample(std::vector<FrameNode>& nodes, const std::vector<std::string>& frames, double alloc, double live) {
  size_t at = 0;
  nodes[0].alloc += alloc;
  nodes[0].live += live;
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    auto found = nodes[at].children.find(*it);
    size_t next;
    if (found == nodes[at].children.end()) {
      next = nodes.size();
      nodes[at].children.emplace(*it, next);
      nodes.emplace_back();
      nodes.back().name = *it;
    } else {
      next = found->second;
    }
    at = next;
    nodes[at].alloc += alloc;
    nodes[at].live += live;
  }
}

// Keep the MAX largest nodes by allocated bytes, every kept node's parent kept too (a
// child is never larger than its parent, so best-first from the root does this).
void keep_largest(std::vector<FrameNode>& nodes, size_t max) {
  auto smaller = [&](size_t a, size_t b) { return nodes[a].alloc < nodes[b].alloc; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(smaller)> open(smaller);
  open.push(0);
  for (size_t kept = 0; !open.empty() && kept < max; ++kept) {
    const size_t v = open.top();
    open.pop();
    nodes[v].kept = true;
    for (const auto& [name, c] : nodes[v].children) open.push(c);
  }
}

// [name, allocated bytes, live bytes, [children...]], children largest first.
void node_json(const std::vector<FrameNode>& nodes, size_t v, std::string& out) {
  const FrameNode& n = nodes[v];
  out += fmt::format("[\"{}\",{},{},[", json_escape(n.name), std::llround(n.alloc), std::llround(n.live));
  std::vector<size_t> kids;
  for (const auto& [name, c] : n.children)
    if (nodes[c].kept) kids.push_back(c);
  std::stable_sort(kids.begin(), kids.end(), [&](size_t a, size_t b) { return nodes[a].alloc > nodes[b].alloc; });
  for (size_t k = 0; k < kids.size(); ++k) {
    if (k) out += ',';
    node_json(nodes, kids[k], out);
  }
  out += "]]";
}

}  // namespace

std::string report_alloc_json(const std::string& file, const Recording& recording, size_t walk_pos, size_t max_nodes) {
  auto join = AllocJoin::load(recording, walk_pos);
  if (!join) fail_on(file, join.error());
  if (join->empty()) return {};
  std::vector<FrameNode> nodes(1);
  nodes[0].name = "all";
  uint64_t live = 0;
  for (const FollowedSample& f : join->samples()) {
    std::vector<std::string> frames = join->stack(f.sample);
    if (frames.empty()) frames.push_back(kUnknownAllocSite);
    frames.insert(frames.begin(), join->names().type_name(f.sample.class_id));  // the leaf: what was allocated
    const double bytes = estimated_bytes(f.sample);
    add_sample(nodes, frames, bytes, f.alive ? bytes : 0.0);
    live += f.alive ? 1 : 0;
  }
  keep_largest(nodes, std::max<size_t>(max_nodes, 1));
  std::string tree;
  node_json(nodes, 0, tree);
  const bool ticks = std::any_of(join->samples().begin(), join->samples().end(),
                                 [](const FollowedSample& f) { return f.sample.kind == AllocSampleKind::Tick; });
  return fmt::format(",\"allocations\":{{\"gc\":{},\"samples\":{},\"live\":{},\"ticks\":{},\"tree\":{}}}",
                     recording.gcs()[walk_pos].info.gc_number, join->samples().size(), live, ticks ? "true" : "false",
                     tree);
}

}  // namespace gcsnap::cli
