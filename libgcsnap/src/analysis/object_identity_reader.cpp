// Recording-level identity: load one GC's transition at a time and follow addresses with it.
#include "gcsnap/object_identity.hpp"

#include <new>

namespace gcsnap {

bool has_complete_transition(const Recording& recording, size_t gc_pos) noexcept {
  const auto gcs = recording.gcs();
  if (gc_pos == 0 || gc_pos >= gcs.size()) return false;
  if (gcs[gc_pos].info.gc_number != gcs[gc_pos - 1].info.gc_number + 1) return false;
  return gcs[gc_pos].drops.ranges == 0;
}

// Function-try-blocks: allocation failures become OutOfMemory (docs/library.md "Errors").
Result<GcTransition> read_transition(const Recording& recording, size_t gc_pos) try {
  auto ranges = recording.read_ranges(gc_pos);
  if (!ranges) return ranges.error();
  std::vector<GenerationRange> bounds;
  if (gc_pos > 0) {
    auto before = recording.read_generation_bounds(gc_pos - 1);
    if (!before) return before.error();
    bounds = std::move(before).value();
  }
  return GcTransition::build(recording.gcs()[gc_pos].info, *ranges, bounds);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading a GC's ranges");
}

Result<AddressHistory> follow_address(const Recording& recording, size_t from_index, uint64_t address,
                                      Generation hint) try {
  const auto gcs = recording.gcs();
  if (from_index >= gcs.size()) return make_error(ErrorCode::InvalidArgument, "no such GC index");
  AddressHistory history;
  history.start_gc = gcs[from_index].info.gc_number;
  history.address = address;
  auto bounds = recording.read_generation_bounds(from_index);
  if (!bounds) return bounds.error();
  auto start_map = GenerationMap::build(*bounds);
  if (!start_map) return start_map.error();
  const Generation at_start = start_map->find(address);
  history.generation_at_start = at_start != Generation::Unknown ? at_start : hint;
  Generation generation = history.generation_at_start;
  uint64_t current = address;
  for (size_t i = from_index + 1; i < gcs.size(); ++i) {
    if (!has_complete_transition(recording, i)) {
      history.gap_at = gcs[i].info.gc_number;
      break;
    }
    auto transition = read_transition(recording, i);
    if (!transition) return transition.error();
    const auto step = transition->follow(current, generation);
    AddressStep entry{gcs[i].info.gc_number, step.fate, current, step.address, Generation::Unknown, false};
    if (step.fate == Fate::Died) {
      history.steps.push_back(entry);
      history.died_at = entry.gc_number;
      break;
    }
    auto after = recording.read_generation_bounds(i);
    if (!after) return after.error();
    auto after_map = GenerationMap::build(*after);
    if (!after_map) return after_map.error();
    entry.generation_after = after_map->find(step.address);
    if (step.fate == Fate::NonGcHeap) {
      entry.generation_after = Generation::NonGcHeap;
    } else if (entry.generation_after == Generation::Unknown) {
      entry.generation_estimated = step.fate != Fate::Unknown;
      entry.generation_after = step.fate == Fate::NotCondemned || step.fate == Fate::Unknown
                                   ? step.generation_before
                                   : promoted_generation(gcs[i].info, step.generation_before);
    }
    history.steps.push_back(entry);
    current = step.address;
    generation = entry.generation_after;
  }
  return history;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "following an address");
}

Status map_objects(const Recording& recording, size_t from_index, size_t to_index, std::span<BulkMapper* const> mappers) {
  if (from_index > to_index || to_index >= recording.gcs().size())
    return make_error(ErrorCode::InvalidArgument, "GC range is empty or out of the recording");
  for (size_t i = from_index + 1; i <= to_index; ++i)
    if (!has_complete_transition(recording, i))
      return make_error(ErrorCode::InconsistentData, "ranges of a GC in between are missing");
  for (size_t i = from_index + 1; i <= to_index; ++i) {
    auto transition = read_transition(recording, i);
    if (!transition) return transition.error();
    for (BulkMapper* mapper : mappers) GCSNAP_RETURN_IF_ERROR(mapper->apply(*transition));
  }
  return Status::ok();
}

Result<BulkMapper> map_objects(const Recording& recording, size_t from_index, size_t to_index,
                               std::span<const uint64_t> addresses, std::span<const Generation> generations) {
  auto mapper = BulkMapper::create(addresses, generations);
  if (!mapper) return mapper.error();
  BulkMapper* one[] = {&*mapper};
  GCSNAP_RETURN_IF_ERROR(map_objects(recording, from_index, to_index, one));
  return mapper;
}

}  // namespace gcsnap
