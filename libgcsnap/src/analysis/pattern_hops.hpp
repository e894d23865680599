// Graph steps the holder-pattern rules share (holder_patterns.cpp, holder_pattern_targets.cpp):
// a hop by field name and a node's type name.
#pragma once

#include <initializer_list>
#include <string_view>

#include "gcsnap/holder_patterns.hpp"

namespace gcsnap::detail {

/// FROM's successor through one of NAMES (the first edge whose name is one of them), or kNoNode.
NodeIndex successor_named(const PatternContext& c, NodeIndex from, std::initializer_list<std::string_view> names);

/// NODE's type name, valid as long as the context's name table.
std::string_view type_of(const PatternContext& c, NodeIndex node);

}  // namespace gcsnap::detail
