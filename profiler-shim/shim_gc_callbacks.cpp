// ShimSession: the profiler's GC callbacks, turned into the recorder's calls (a GC's
// generations and reason, the frozen ranges, the generation bounds at its end).
#include <cstdint>
#include <span>
#include <string>

#include "gc_trigger_event.hpp"
#include "shim_log.hpp"
#include "shim_session.hpp"

namespace gcsnap::shim {

using namespace com;

void ShimSession::read_non_gc_ranges() {
  non_gc_ranges_.clear();
  if (!info14_) return;
  COR_PRF_NONGC_HEAP_RANGE ranges[64];
  ULONG count = 0;
  if (!succeeded(info14_->GetNonGCHeapBounds(64, &count, ranges))) return;
  for (ULONG i = 0; i < count && i < 64; ++i) non_gc_ranges_.push_back({ranges[i].rangeStart, ranges[i].rangeLength});
}

void ShimSession::on_gc_started(int generation_count, const BOOL* collected, COR_PRF_GC_REASON reason) {
  // Until a GC has finished the recorder does not know the heap's size, and after an attach the
  // runtime has no bounds to give before a GC starts (E_FAIL: its table is made at GC start and
  // end). Here it has them: the first walk's reserve of chunks is sized from the heap it walks.
  if (recorder_->heap_bytes_now() == 0) recorder_->note_heap_bytes(read_heap_in_use());
  uint8_t mask = 0;
  for (int g = 0; g < generation_count && g < 8 && collected; ++g) {
    if (collected[g]) mask = static_cast<uint8_t>(mask | (1u << g));
  }
  bool induced = reason == COR_PRF_GC_REASON_INDUCED;
  if (reason_events_) {
    // GCTriggered is delivered synchronously by the thread that starts the GC, before this
    // callback; a missing one (-1) leaves the profiler's reason as it is.
    int64_t event_reason = event_reason_.exchange(-1);
    if (event_reason >= 0 && is_induced_gc_reason(static_cast<uint32_t>(event_reason))) induced = true;
  }
  if (recorder_->on_gc_started(mask, induced, now_ns())) {
    if (walk_timer_) walk_timer_->arm();
    read_non_gc_ranges();
    recorder_->set_non_gc_ranges(non_gc_ranges_);
  }
}

void ShimSession::on_surviving_references(std::span<const uint64_t> starts, std::span<const uint64_t> lengths) {
  recorder_->on_surviving_references(starts, lengths);
}

void ShimSession::on_moved_references(std::span<const uint64_t> old_starts, std::span<const uint64_t> new_starts,
                                      std::span<const uint64_t> lengths) {
  recorder_->on_moved_references(old_starts, new_starts, lengths);
}

void ShimSession::on_root_references(std::span<const uint64_t> objects, std::span<const uint32_t> kinds,
                                     std::span<const uint32_t> flags, std::span<const uint64_t> root_ids) {
  recorder_->on_root_references(objects, kinds, flags, root_ids);
}

void ShimSession::on_dependent_handles(std::span<const uint64_t> primaries, std::span<const uint64_t> secondaries) {
  if (settings_.walk_only) return;
  recorder_->on_dependent_handles(primaries, secondaries);
}

bool ShimSession::on_object_references(uint64_t object, uint64_t class_id, std::span<const uint64_t> references) {
  if (walk_timer_) walk_timer_->on_object();
  if (settings_.walk_only) return recorder_->is_walking();  // continue the runtime's walk, store nothing
  return recorder_->on_object_references(object, class_id, references);
}

void ShimSession::on_gc_finished() {
  ULONG count = 0;
  HRESULT hr = info_->GetGenerationBounds(static_cast<ULONG>(raw_bounds_.size()), &count, raw_bounds_.data());
  if (succeeded(hr) && count > raw_bounds_.size()) {
    // With regions there is one range per region: grow and ask again.
    raw_bounds_.resize(count + count / 2);
    hr = info_->GetGenerationBounds(static_cast<ULONG>(raw_bounds_.size()), &count, raw_bounds_.data());
  }
  bounds_.clear();
  if (succeeded(hr)) {
    for (ULONG i = 0; i < count && i < raw_bounds_.size(); ++i) {
      const COR_PRF_GC_GENERATION_RANGE& r = raw_bounds_[i];
      auto generation = r.generation >= 0 && r.generation <= 4 ? static_cast<Generation>(r.generation)
                                                                 : Generation::Unknown;
      bounds_.push_back(GenerationRange{generation, r.rangeStart, r.rangeLength, r.rangeLengthReserved});
    }
  }
  recorder_->on_gc_finished(bounds_, now_ns());
  if (growth_walker_) growth_walker_->on_gc_finished(bounds_);
  if (follow_up_walker_ && recorder_->follow_up_wanted() != SnapshotTrigger::None) follow_up_walker_->wake();
  if (walk_timer_) {
    const RecorderStats stats = recorder_->stats();
    if (std::string line = walk_timer_->finish(stats.size_queries, stats.types_named, stats.type_naming_ns);
        !line.empty()) {
      log_line(line);
    }
  }
  if (!succeeded(hr)) {
    // Without bounds no generation can be told: an unexpected HRESULT turns recording off.
    std::string why = "failed with " + hresult_text(hr);
    turn_off("GetGenerationBounds", why.c_str());
  }
}

}  // namespace gcsnap::shim
