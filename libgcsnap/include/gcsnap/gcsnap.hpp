#pragma once
/// Umbrella header: the format (model, writer, reader) and the analyses.
#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/writer.hpp"

#include "gcsnap/dominators.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/field_layout.hpp"
#include "gcsnap/heap_diff.hpp"
#include "gcsnap/group_paths.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/object_diff.hpp"
#include "gcsnap/object_identity.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/root_summary.hpp"
#include "gcsnap/type_histogram.hpp"
#include "gcsnap/walk_diff.hpp"
