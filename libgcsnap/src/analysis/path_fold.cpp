#include "gcsnap/path_fold.hpp"

#include <algorithm>
#include <new>

namespace gcsnap {

Result<FoldedHops> fold_repeats(std::span<const uint32_t> keys, size_t max_period) try {
  FoldedHops out;
  out.keys.reserve(keys.size());
  out.counts.reserve(keys.size());
  out.first.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    out.keys.push_back(keys[i]);
    out.counts.push_back(1);
    out.first.push_back(i);
    // The sequence before keys[i] has no repeat, so a repeat ends at keys[i] and one drop
    // removes it (the same rule as leaks::ShapeTrie::extend).
    const size_t n = out.keys.size();
    for (size_t p = 1; p <= max_period && 2 * p <= n; ++p) {
      const auto end = out.keys.end();
      if (!std::equal(end - static_cast<ptrdiff_t>(p), end, end - static_cast<ptrdiff_t>(2 * p))) continue;
      for (size_t j = 0; j < p; ++j) out.counts[n - 2 * p + j] += out.counts[n - p + j];
      out.keys.resize(n - p);
      out.counts.resize(n - p);
      out.first.resize(n - p);
      break;
    }
  }
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "folding a path");
}

}  // namespace gcsnap
