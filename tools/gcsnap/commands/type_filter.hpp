#pragma once
// Selecting types by name on the command line: `--filter TEXT` (types, dominators, diff) and
// `--type T` (path, objects), and the "closest names" a pattern that matches nothing gets.
// Matching names is presentation, not analysis, so it lives in the CLI (docs/cli.md
// "Filtering by type name").

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/heap_graph.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::cli {

/// Return whether `name` contains `pattern`, ignoring ASCII case (an empty pattern matches).
bool contains_ignore_case(std::string_view name, std::string_view pattern);

/// Return whether `a` and `b` are the same name, ignoring ASCII case.
bool equals_ignore_case(std::string_view a, std::string_view b);

/// Return the fewest single-character edits (insert, delete, replace; ASCII case ignored)
/// that turn `pattern` into some part of `name`: 0 when name contains it.
size_t substring_distance(std::string_view name, std::string_view pattern);

/// Return up to `n` of `names` closest to `pattern` by substring_distance (ties: shorter name,
/// then alphabetical), leaving out those too far to be a typo (more than a third of the
/// pattern's length, at least 2, edits away).
std::vector<std::string_view> closest_names(std::span<const std::string_view> names, std::string_view pattern,
                                            size_t n = 3);

/// Throw CliError(kExitUsage): "<what> '<pattern>' (closest: A, B, C)", or "... (no similar
/// name; `gcsnap types` lists them)" when none is close. `what` says what matched nothing,
/// e.g. "app.snap: no type in GC 4 contains".
[[noreturn]] void fail_no_match(std::string_view what, std::string_view pattern,
                                std::span<const std::string_view> names);

/// Return the distinct type ids of the graph's objects, sorted.
std::vector<uint32_t> type_ids_in(const HeapGraph& graph);

/// Return the ids (sorted) among `ids` whose names contain `pattern`, ignoring case (--filter).
/// When none does, fail_no_match with `what` and the names of `ids`.
std::vector<uint32_t> filter_type_ids(const NameTable& names, std::span<const uint32_t> ids,
                                      std::string_view pattern, std::string_view what);

/// Return the nodes whose type is `type` (--type of path and objects): the full name if any
/// type has it; else the name without namespace or enclosing type ("Survivor2"); else either
/// ignoring ASCII case; else the names containing it (with its case, else ignoring it). When
/// none, fail_no_match with `what` and the graph's type names.
std::vector<NodeIndex> objects_of_type(const HeapGraph& graph, const NameTable& names, std::string_view type,
                                       std::string_view what);

/// Return the ids among IDS (the distinct type ids of a heap's objects, sorted) whose objects
/// objects_of_type would return for `type` (the best match only), sorted. When none, the same
/// fail_no_match.
std::vector<uint32_t> type_ids_of_type(const NameTable& names, std::span<const uint32_t> ids, std::string_view type,
                                       std::string_view what);

}  // namespace gcsnap::cli
