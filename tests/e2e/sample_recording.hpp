#pragma once
// Shared helpers of the end-to-end recording tests: the recording and facts named by the
// environment (GCSNAP_E2E_RECORDING, GCSNAP_E2E_FACTS), and one GC's decoded sections.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/reader.hpp"

namespace gcsnap::e2e {

/// The facts line the sample app printed ("gcsnap-sample: key=value ..."), as key -> value.
struct SampleFacts {
  std::map<std::string, std::string> values;
  /// Return the value of KEY as a number; fails the test when it is missing.
  uint64_t number(const std::string& key) const;
};

/// Return the recording named by GCSNAP_E2E_RECORDING, opened once. Fails the test when unset.
const Recording& sample_recording();
/// Return the facts parsed from the file named by GCSNAP_E2E_FACTS. Fails the test when unset.
const SampleFacts& sample_facts();

/// Every section of one GC, decoded.
struct GcView {
  size_t index = 0;
  GcEntry entry;
  std::vector<GenerationRange> bounds;  ///< sorted by start
  RootTable roots;
  RangeTable ranges;
  ObjectTable objects;  ///< empty when the GC has no heap walk
  NameTable names;
};

/// Decode GC number INDEX of RECORDING (REQUIREs that every read succeeds).
GcView load_gc(const Recording& recording, size_t index);
/// Return the indices of the induced GCs that have a heap walk, in order.
std::vector<size_t> induced_snapshots(const Recording& recording);

/// Return the generation of the bounds range that holds ADDRESS, if any.
std::optional<Generation> generation_in_bounds(const std::vector<GenerationRange>& bounds, uint64_t address);
/// Return the index of the object at ADDRESS in the (address-ordered) object table.
std::optional<size_t> find_object(const ObjectTable& objects, uint64_t address);
/// Return the type id whose name is exactly NAME, or 0.
uint32_t find_type_id(const NameTable& names, std::string_view name);
/// Return how many objects of the walk have the type named NAME.
size_t count_objects(const GcView& gc, std::string_view name);
/// Return the type name of the object at ADDRESS ("" when it is not in the walk).
std::string_view type_name_at(const GcView& gc, uint64_t address);

}  // namespace gcsnap::e2e
