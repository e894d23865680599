#pragma once
// The hops of a folded path as text (diff's path shapes): one hop per kept key, a repeated run
// with its count, a repeated block of several hops as one group.

#include <cstddef>
#include <functional>
#include <string>

#include "gcsnap/path_fold.hpp"

namespace gcsnap::cli {

/// " -> A -> B ×4 -> (C -> D) ×3": for every kept hop of F, ARROW(h) and HOP(h) (h: the hop's
/// position in the unfolded path), its count after it when above 1. Hops of one repeated block
/// (kept hops adjacent in the path with one count, as fold_repeats gives a period of several
/// hops) read as one group in parentheses with the count, not as runs of their own
/// ("(Object[] -> EventHandler) ×2", not "Object[] ×2 -> EventHandler ×2").
std::string folded_hops_text(const FoldedHops& f, const std::function<std::string(size_t)>& hop,
                             const std::function<std::string(size_t)>& arrow);

}  // namespace gcsnap::cli
