#include "commands/folded_hops_text.hpp"

#include <fmt/format.h>

namespace gcsnap::cli {

std::string folded_hops_text(const FoldedHops& f, const std::function<std::string(size_t)>& hop,
                             const std::function<std::string(size_t)>& arrow) {
  std::string s;
  for (size_t k = 0; k < f.size();) {
    // The block: the kept hops after K with K's count, each right after the one before in the
    // path (two runs of one type each, A A B B, keep hops two apart).
    size_t end = k + 1;
    while (f.counts[k] > 1 && end < f.size() && f.counts[end] == f.counts[k] && f.first[end] == f.first[end - 1] + 1)
      ++end;
    if (end - k == 1) {
      s += fmt::format(" {} {}", arrow(f.first[k]), hop(f.first[k]));
      if (f.counts[k] > 1) s += fmt::format(" ×{}", f.counts[k]);
    } else {
      s += fmt::format(" {} (", arrow(f.first[k]));
      for (size_t i = k; i < end; ++i) {
        if (i != k) s += fmt::format(" {} ", arrow(f.first[i]));
        s += hop(f.first[i]);
      }
      s += fmt::format(") ×{}", f.counts[k]);
    }
    k = end;
  }
  return s;
}

}  // namespace gcsnap::cli
