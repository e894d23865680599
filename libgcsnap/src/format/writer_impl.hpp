#pragma once
// Writer internals shared by writer.cpp (call order, GC blocks) and writer_columns.cpp
// (buffering the add_* batches into chunks).

#include <memory>
#include <mutex>
#include <unordered_set>

#include "format/chunk_data.hpp"
#include "format/chunk_queue.hpp"
#include "format/gc_summary.hpp"
#include "format/section_sink.hpp"
#include "gcsnap/writer.hpp"

namespace gcsnap {

struct Writer::Impl {
  enum class State { Idle, InGc, Failed, Closed };

  WriterOptions options;
  std::unique_ptr<format::SectionSink> sink;
  std::unique_ptr<format::ChunkQueue> queue;  // null when compressing in the foreground
  State state = State::Idle;
  Error failure{};

  // The open GC block.
  format::GcSummary summary;
  format::GenerationBoundsChunk bounds;
  format::RootsChunk roots;
  format::SurvivingChunk surviving;
  format::MovedChunk moved;
  format::ObjectsChunk objects;
  // An encoded objects chunk's emptied columns, for the next one: in the foreground, reusing
  // them saves a page fault per 4 KiB of every chunk (~10 % of the writer's time at 10 M
  // objects). Kept from one GC to the next until close(): freeing them at end_gc made every
  // GC fault its first chunk in afresh, which cost the writer 2.5-4x at 2 M objects per GC on
  // the VM measured (docs/performance.md, "Format, writer, reader and analyses"). Chunks handed to the background
  // thread are not recycled.
  format::ObjectsChunk spare_objects;
  format::TypesChunk types;
  format::MethodsChunk methods;
  format::DependentHandlesChunk dependent_handles;
  format::LayoutsChunk layouts;
  format::StaticSlotsChunk statics;
  format::DelegateTargetsChunk delegates;
  enum class SlotMode { Undecided, With, Without } slot_mode = SlotMode::Undecided;  // per GC (§6.13)
  std::vector<uint32_t> gc_type_ids;      // declared in the open block (forgotten on abort)
  std::vector<uint32_t> gc_layout_ids;
  std::vector<uint64_t> gc_method_ids;

  // The whole recording.
  bool any_gc = false;
  uint64_t last_gc_number = 0;
  std::unordered_set<uint32_t> type_ids;
  std::unordered_set<uint32_t> layout_ids;
  std::unordered_set<uint64_t> method_ids;
  mutable std::mutex stats_mutex;
  WriterStats stats;

  uint64_t chunk_items() const noexcept;
  /// Hand a chunk to the sink (directly or through the queue); fail the writer on error.
  Status emit(format::ChunkData&& chunk);
  /// Emit every non-empty buffer of the open block.
  Status flush_buffers();
  Status check_in_gc() const noexcept;
  Status fail(Error e) noexcept;
  void clear_buffers();
};

}  // namespace gcsnap
