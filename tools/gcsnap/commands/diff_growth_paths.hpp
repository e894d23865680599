#pragma once
// `gcsnap diff` of two recordings (two `gcsnap snapshot` files): no object is followed from
// one to the other, so the groups are the types whose count grew, each with the most common
// retention path of its objects at B, in the same table a one-recording diff fills with its
// new objects.

#include <string>
#include <vector>

#include "commands/diff_objects_report.hpp"

namespace gcsnap::cli {

/// Fill OUT.groups and OUT.more_paths: the TOP types (0: all) whose count and bytes grew from
/// A to B (their names containing FILTER, any case), largest byte growth first, COUNT and
/// BYTES the growth, with up to SHAPES path shapes of their objects at B (FOLD false: every hop). Throws CliError.
void diff_growth_paths(const DiffSide& a, const DiffSide& b, size_t top, size_t shapes, const std::string& filter,
                       bool fold, ObjectLevel& out);

}  // namespace gcsnap::cli
