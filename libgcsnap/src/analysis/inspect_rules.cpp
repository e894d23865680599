// The finding rules `inspect` runs, in the order it lists their findings: one line per rule,
// each defined in a file of its own (inspect_*.cpp).
#include "analysis/inspect_rules.hpp"

namespace gcsnap {

std::span<const FindingRule* const> finding_rules() {
  static const FindingRule* const kRules[] = {
      &duplicate_strings_rule(),
      &empty_collections_rule(),
      &sparse_collections_rule(),
      &empty_arrays_rule(),
      &sparse_arrays_rule(),
      &event_handlers_rule(),
      &timers_rule(),
      &finalizable_objects_rule(),
      &caches_at_limit_rule(),
  };
  return kRules;
}

}  // namespace gcsnap
