#pragma once
// Shortening type names to fit a terminal (docs/cli.md "Output formats"), keeping what tells
// names apart: namespaces shrink to initials (the outer name's first, then those of generic
// arguments), then generic arguments lose theirs, then the outer name too, then generic
// arguments are elided ("Dictionary<String, …>"), and last the start of the name is cut
// ("…"), keeping its end.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gcsnap::cli {

/// Return the display width of UTF-8 text (code points, not bytes).
size_t display_width(std::string_view text);

/// Return `text` (a type name, or text made of type names such as a retention path) with
/// abbreviation level `level` applied to "System.Collections.Generic.List<System.String>":
/// 0 unchanged; 1 "S.C.G.List<System.String>" (outer namespaces as initials); 2
/// "S.C.G.List<S.String>" (those of generic arguments too); 3 "S.C.G.List<String>" (generic
/// arguments without namespaces); 4 "List<String>" (no namespace at all).
std::string abbreviate_type_name(std::string_view text, int level);

/// Return the least abbreviated form of `text` that fits `max_width` columns, the last of them
/// the namespace-less form with generic arguments elided, deepest first
/// ("Dictionary<String, List<…>>", "Dictionary<…>"); when none fits, the end of that one after "…",
/// or for a retention path ("[static] A -> B -> C") its first hop, " -> … -> " and its last hops.
std::string shorten_type_name(std::string_view text, size_t max_width);

/// Shorten every name of a column to `max_width`, keeping distinct names distinct: names
/// whose short forms collide fall back to a less abbreviated form, cut to the width when it
/// is still too wide ("…" and the end); only names that nothing but their start tells apart
/// are shown in full, wider than asked.
std::vector<std::string> shorten_type_names(const std::vector<std::string>& names, size_t max_width);

}  // namespace gcsnap::cli
