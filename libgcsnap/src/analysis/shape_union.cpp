#include "analysis/shape_union.hpp"

#include <algorithm>
#include <utility>

namespace gcsnap::leaks {

namespace {

constexpr uint64_t key_of(uint64_t parent, uint32_t label) { return parent << 33 | static_cast<uint64_t>(label) << 1; }

using Keys = std::vector<std::pair<uint64_t, uint32_t>>;

// Sort KEYS (parent position < PARENTS, then label): bucketed by parent in one pass, then each
// parent's few children by label, instead of a comparison sort of the whole level.
void sort_keys(Keys& keys, size_t parents, Keys& scratch, std::vector<uint32_t>& start) {
  if (keys.size() < 256 || parents / 4 > keys.size()) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  start.assign(parents + 1, 0);
  for (const auto& k : keys) ++start[(k.first >> 33) + 1];
  for (size_t i = 1; i <= parents; ++i) start[i] += start[i - 1];
  scratch.resize(keys.size());
  for (const auto& k : keys) scratch[start[k.first >> 33]++] = k;
  for (size_t i = 0; i < scratch.size();) {
    size_t j = i + 1;
    while (j < scratch.size() && scratch[j].first >> 33 == scratch[i].first >> 33) ++j;
    if (j - i > 1) std::sort(scratch.begin() + static_cast<ptrdiff_t>(i), scratch.begin() + static_cast<ptrdiff_t>(j));
    i = j;
  }
  keys.swap(scratch);
}

}  // namespace

void ShapeUnion::add(const ShapeTrie& trie, std::span<const uint8_t> has_members) {
  const size_t n = trie.size();
  // The shapes with members and every prefix of them, grouped by depth (ids ascending).
  std::vector<uint8_t> needed(n, 0);
  size_t max_depth = 0;
  for (uint32_t s = 0; s < n && s < has_members.size(); ++s) {
    if (!has_members[s]) continue;
    for (uint32_t p = s; p != ShapeTrie::kNone && !needed[p]; p = trie.parent(p)) needed[p] = 1;
    max_depth = std::max<size_t>(max_depth, trie.depth(s));
  }
  std::vector<std::vector<uint32_t>> by_depth(max_depth + 1);
  for (uint32_t s = 0; s < n; ++s)
    if (needed[s]) by_depth[trie.depth(s)].push_back(s);
  needed = {};
  if (levels_.size() < by_depth.size()) levels_.resize(by_depth.size());

  // Level by level: the trie's shapes are keyed by their parent's new position, the level's
  // old entries by their parent's old position remapped (monotone, so they stay sorted).
  std::vector<uint32_t> position(n, 0);       // trie shape -> position in its new level
  std::vector<uint32_t> remap, next_remap;    // old position -> new position, level above
  bool moved = false;                         // some position of the level above changed
  Keys keys, scratch;
  std::vector<uint32_t> start;
  for (size_t d = 0; d < levels_.size(); ++d) {
    std::vector<uint64_t>& old = levels_[d];
    keys.clear();
    if (d < by_depth.size())
      for (const uint32_t s : by_depth[d]) {
        const uint64_t parent = d == 0 ? 0 : position[trie.parent(s)];
        keys.emplace_back(key_of(parent, trie.label(s)) | (s < has_members.size() && has_members[s] ? 1 : 0), s);
      }
    if (keys.empty() && !moved) break;
    if (moved && d > 0)
      for (uint64_t& e : old) e = key_of(remap[e >> 33], static_cast<uint32_t>(e >> 1)) | (e & 1);
    sort_keys(keys, d == 0 ? 1 : levels_[d - 1].size(), scratch, start);
    std::vector<uint64_t> merged;
    merged.reserve(old.size() + keys.size());
    next_remap.assign(old.size(), 0);
    bool inserted = false;
    size_t i = 0, j = 0;
    while (i < old.size() || j < keys.size()) {
      const uint64_t a = i < old.size() ? old[i] >> 1 : UINT64_MAX;
      const uint64_t b = j < keys.size() ? keys[j].first >> 1 : UINT64_MAX;
      const auto at = static_cast<uint32_t>(merged.size());
      if (a < b) {
        next_remap[i] = at;
        merged.push_back(old[i++]);
      } else if (b < a) {
        position[keys[j].second] = at;
        members_ += keys[j].first & 1;
        merged.push_back(keys[j++].first);
        inserted = true;
      } else {
        members_ += (keys[j].first & 1) & ~old[i] & 1;
        next_remap[i] = at;
        position[keys[j].second] = at;
        merged.push_back(old[i++] | (keys[j++].first & 1));
      }
    }
    old = std::move(merged);
    std::swap(remap, next_remap);
    moved = inserted;
  }
}

}  // namespace gcsnap::leaks
