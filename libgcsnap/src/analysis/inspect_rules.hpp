#pragma once
// The rules of finding_rules() (gcsnap/inspect.hpp), each defined in its own inspect_*.cpp.

#include "gcsnap/inspect.hpp"

namespace gcsnap {

const FindingRule& duplicate_strings_rule();   // inspect_duplicate_strings.cpp
const FindingRule& empty_collections_rule();   // inspect_collections.cpp
const FindingRule& sparse_collections_rule();  // inspect_collections.cpp
const FindingRule& empty_arrays_rule();        // inspect_arrays.cpp
const FindingRule& sparse_arrays_rule();       // inspect_arrays.cpp
const FindingRule& finalizable_objects_rule(); // inspect_finalizable.cpp
const FindingRule& caches_at_limit_rule();     // inspect_caches.cpp
const FindingRule& event_handlers_rule();      // inspect_event_handlers.cpp
const FindingRule& timers_rule();              // inspect_timers.cpp

}  // namespace gcsnap
