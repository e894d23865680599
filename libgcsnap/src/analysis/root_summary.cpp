#include "gcsnap/root_summary.hpp"

#include <algorithm>
#include <new>
#include <tuple>

namespace gcsnap {

std::string root_flags_text(uint8_t flags) {
  static constexpr std::pair<uint8_t, const char*> kNames[] = {{root_flags::kPinning, "pinning"},
                                                               {root_flags::kWeakRef, "weak"},
                                                               {root_flags::kInterior, "interior"},
                                                               {root_flags::kRefCounted, "refcounted"}};
  std::string text;
  for (const auto& [bit, name] : kNames) {
    if (!(flags & bit)) continue;
    if (!text.empty()) text += ',';
    text += name;
  }
  for (unsigned bit = 0x10; bit <= 0x80; bit <<= 1) {
    if (!(flags & bit)) continue;
    if (!text.empty()) text += ',';
    text += "0x" + std::string(1, "0123456789abcdef"[bit >> 4]) + "0";
  }
  return text;
}

namespace {

// Kinds in the order users read them: stack first, "other" last.
int kind_rank(RootKind kind) {
  switch (kind) {
    case RootKind::Stack: return 0;
    case RootKind::Finalizer: return 1;
    case RootKind::Handle: return 2;
    case RootKind::Other: return 3;
  }
  return 4;
}

}  // namespace

Result<std::vector<RootGroup>> summarize_roots(const RootTable& roots) try {
  // Sort (group, object) pairs once; groups and distinct objects fall out of one pass.
  std::vector<std::tuple<int, uint8_t, uint64_t, RootKind>> keys;
  keys.reserve(roots.size());
  for (size_t i = 0; i < roots.size(); ++i)
    keys.emplace_back(kind_rank(roots.kinds[i]), roots.flags[i], roots.object_ids[i], roots.kinds[i]);
  std::sort(keys.begin(), keys.end());
  std::vector<RootGroup> groups;
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto& [rank, flags, object, kind] = keys[i];
    if (groups.empty() || groups.back().kind != kind || groups.back().flags != flags)
      groups.push_back(RootGroup{kind, flags, 0, 0, 0});
    auto& g = groups.back();
    ++g.count;
    if (object == 0) ++g.null_objects;
    const bool same_group_before = i > 0 && std::get<3>(keys[i - 1]) == kind && std::get<1>(keys[i - 1]) == flags;
    if (!same_group_before || std::get<2>(keys[i - 1]) != object) ++g.distinct_objects;
  }
  return groups;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "summarizing roots");
}

Result<std::vector<size_t>> filter_roots(const RootTable& roots, uint8_t kinds, uint8_t required_flags) try {
  std::vector<size_t> out;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (kinds && !(kinds & (1u << static_cast<unsigned>(roots.kinds[i])))) continue;
    if ((roots.flags[i] & required_flags) != required_flags) continue;
    out.push_back(i);
  }
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "filtering roots");
}

}  // namespace gcsnap
