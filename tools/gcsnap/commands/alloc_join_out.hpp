#pragma once
// Sampled allocation sites joined into the analyses' output (issue 43; docs/cli.md "Allocation
// sites in other commands"): "allocated at" for objects, where and path, and the sites of each
// leak suspect's members. A recording without samples adds nothing: every command's output is
// then what it was before.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gcsnap/alloc_join.hpp"
#include "loading/leak_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

/// FILE's samples followed to GC_POS; nullptr when the recording has none. Throws CliError
/// naming FILE (a damaged sample, stack or name section).
std::unique_ptr<AllocJoin> load_alloc_join(const std::string& file, const Recording& recording, size_t gc_pos);

/// Add the columns of allocated_at_cells: allocated_at (the site) and, for scripts,
/// allocation_stack (every frame, innermost first, separated by " <- ").
void add_allocated_at_columns(Table& table);
/// The cells of add_allocated_at_columns for the object at ADDRESS of the join's walk (empty
/// when it was not sampled).
std::vector<Cell> allocated_at_cells(const AllocJoin& join, uint64_t address);

/// Report where the object at ADDRESS was allocated, if it was sampled: in the table format a
/// note "allocated at SITE (stack: ...)", in JSON and CSV a table "allocated_at" (address,
/// site, stack, kind, time_ns). Nothing when the recording has no samples.
void add_allocated_at(Report& report, const std::string& file, const Recording& recording, size_t gc_pos,
                      uint64_t address, Format format);

/// The allocation sites of each leak suspect's sampled members (one list per suspect, at most
/// TOP sites each), or an empty vector when the last walk's recording has no samples.
std::vector<std::vector<AllocSiteShare>> leak_alloc_sites(const LoadedLeaks& leaks, size_t top);
/// "App.Cache.Add 75%, App.Loader.Load 13%"; "no sampled member" for an empty list.
std::string describe_alloc_sites(const std::vector<AllocSiteShare>& sites);
/// The table "alloc_sites": rank, site, samples, share, est_bytes, est_objects.
Table leak_alloc_sites_table(const std::vector<std::vector<AllocSiteShare>>& sites);
/// What ALLOCATED AT means (a note for the leaks report).
std::string leak_alloc_sites_note();

}  // namespace gcsnap::cli
