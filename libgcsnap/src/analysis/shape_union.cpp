#include "analysis/shape_union.hpp"

#include <algorithm>
#include <utility>

namespace gcsnap::leaks {

namespace {

constexpr uint64_t key_of(uint64_t parent, uint32_t label) { return parent << 33 | static_cast<uint64_t>(label) << 1; }

using Keys = std::vector<std::pair<uint64_t, uint32_t>>;

// A level's keys, in order, as varints: (parent - previous parent) << 1 | has_members, then the
// label, or its rise over the previous label when the parent is the same (labels of one
// parent are distinct and sorted). Mostly 3 bytes a key: parents rise by 0 or 1, labels are
// type ids.
class LevelWriter {
 public:
  explicit LevelWriter(std::vector<uint8_t>& out) : out_(out) {}
  void put(uint64_t key) {
    const uint64_t parent = key >> 33;
    const auto label = static_cast<uint32_t>(key >> 1);
    put_varint((parent - parent_) << 1 | (key & 1));
    put_varint(parent == parent_ ? label - label_ : label);
    parent_ = parent;
    label_ = label;
  }

 private:
  void put_varint(uint64_t v) {
    for (; v >= 0x80; v >>= 7) out_.push_back(static_cast<uint8_t>(v | 0x80));
    out_.push_back(static_cast<uint8_t>(v));
  }
  std::vector<uint8_t>& out_;
  uint64_t parent_ = 0;
  uint32_t label_ = 0;
};

class LevelReader {
 public:
  explicit LevelReader(const std::vector<uint8_t>& in) : p_(in.data()) {}
  uint64_t next() {
    const uint64_t head = get_varint();
    const uint64_t rise = head >> 1;
    const auto label = static_cast<uint32_t>(get_varint());
    label_ = rise == 0 ? label_ + label : label;
    parent_ += rise;
    return parent_ << 33 | static_cast<uint64_t>(label_) << 1 | (head & 1);
  }

 private:
  uint64_t get_varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  }
  const uint8_t* p_;
  uint64_t parent_ = 0;
  uint32_t label_ = 0;
};

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
  std::vector<uint8_t>().swap(needed);
  if (levels_.size() < by_depth.size()) levels_.resize(by_depth.size());

  // Level by level: the trie's shapes are keyed by their parent's new position, the level's
  // old entries by their parent's old position remapped (monotone, so they stay sorted).
  std::vector<uint32_t> position(n, 0);       // trie shape -> position in its new level
  std::vector<uint32_t> remap, next_remap;    // old position -> new position, level above
  bool moved = false;                         // some position of the level above changed
  Keys keys, scratch;
  std::vector<uint32_t> start;
  for (size_t d = 0; d < levels_.size(); ++d) {
    Level& old = levels_[d];
    keys.clear();
    if (d < by_depth.size())
      for (const uint32_t s : by_depth[d]) {
        const uint64_t parent = d == 0 ? 0 : position[trie.parent(s)];
        keys.emplace_back(key_of(parent, trie.label(s)) | (s < has_members.size() && has_members[s] ? 1 : 0), s);
      }
    if (keys.empty() && !moved) break;
    const bool remapped = moved && d > 0;
    sort_keys(keys, d == 0 ? 1 : levels_[d - 1].size, scratch, start);
    std::vector<uint8_t> merged;
    merged.reserve(old.bytes.size() + 3 * keys.size() + keys.size() / 2 + 16);
    LevelWriter writer(merged);
    LevelReader reader(old.bytes);
    next_remap.assign(old.size, 0);
    bool inserted = false;
    auto read_old = [&] {
      const uint64_t e = reader.next();
      return remapped ? key_of(remap[e >> 33], static_cast<uint32_t>(e >> 1)) | (e & 1) : e;
    };
    uint64_t old_key = old.size > 0 ? read_old() : 0;
    size_t i = 0, j = 0, at = 0;
    while (i < old.size || j < keys.size()) {
      const uint64_t a = i < old.size ? old_key >> 1 : UINT64_MAX;
      const uint64_t b = j < keys.size() ? keys[j].first >> 1 : UINT64_MAX;
      if (a < b) {
        next_remap[i] = static_cast<uint32_t>(at);
        writer.put(old_key);
        if (++i < old.size) old_key = read_old();
      } else if (b < a) {
        position[keys[j].second] = static_cast<uint32_t>(at);
        members_ += keys[j].first & 1;
        writer.put(keys[j++].first);
        inserted = true;
      } else {
        members_ += (keys[j].first & 1) & ~old_key & 1;
        next_remap[i] = static_cast<uint32_t>(at);
        position[keys[j].second] = static_cast<uint32_t>(at);
        writer.put(old_key | (keys[j++].first & 1));
        if (++i < old.size) old_key = read_old();
      }
      ++at;
    }
    if (merged.capacity() > merged.size() + merged.size() / 4) merged.shrink_to_fit();
    old.bytes = std::move(merged);
    old.size = at;
    std::swap(remap, next_remap);
    moved = inserted;
  }
}

}  // namespace gcsnap::leaks
