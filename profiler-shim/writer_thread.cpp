#include "writer_thread.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "gcsnap/status.hpp"
#include "gcsnap_thread_name.hpp"
#include "shim_log.hpp"
#include "shim_os.hpp"

namespace gcsnap::shim {
namespace {

// The clock of GcInfo's times (the session's now_ns: CLOCK_REALTIME).
uint64_t wall_clock_ns() noexcept {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

Status write_names(Writer& writer, const GcBatch& batch) {
  if (!batch.types.empty()) {
    std::vector<TypeRecord> types;
    types.reserve(batch.types.size());
    for (const OwnedType& t : batch.types) types.push_back(TypeRecord{t.id, t.class_id, t.name, t.module});
    GCSNAP_RETURN_IF_ERROR(writer.add_types(types));
  }
  if (!batch.methods.empty()) {
    std::vector<MethodRecord> methods;
    methods.reserve(batch.methods.size());
    for (const OwnedMethod& m : batch.methods) methods.push_back(MethodRecord{m.function_id, m.name});
    GCSNAP_RETURN_IF_ERROR(writer.add_methods(methods));
  }
  if (!batch.layouts.empty()) {
    std::vector<std::vector<FieldRecord>> fields(batch.layouts.size());
    std::vector<TypeLayout> layouts;
    layouts.reserve(batch.layouts.size());
    for (size_t i = 0; i < batch.layouts.size(); ++i) {
      const OwnedLayout& l = batch.layouts[i];
      for (const OwnedField& f : l.fields) fields[i].push_back(FieldRecord{f.offset, f.flags, f.name});
      layouts.push_back(TypeLayout{l.type_id, l.kind, l.data_offset, l.element_size, fields[i]});
    }
    // Layouts only name fields: one the writer refuses costs its names, not the recording.
    Status status = writer.add_type_layouts(layouts);
    if (!status && status.error().code != ErrorCode::InvalidArgument) return status;
  }
  return Status::ok();
}

/// One chunk's records as the columns Writer::add_objects takes (reused from chunk to chunk).
struct ChunkColumns {
  std::vector<uint64_t> addresses, sizes;
  std::vector<uint32_t> types, ref_counts;
  std::vector<uint8_t> generations;

  void split(const ObjectChunk& c) {
    const size_t n = c.objects;
    addresses.resize(n);
    sizes.resize(n);
    types.resize(n);
    ref_counts.resize(n);
    generations.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const ObjectRecord& r = c.records[i];
      addresses[i] = r.address;
      sizes[i] = r.size;
      types[i] = r.type_id;
      ref_counts[i] = r.reference_count;
    }
  }
};

// The GC heap's bytes in use per the bounds, and the walk's live object bytes (frozen
// segments are not the GC heap's): format-spec.md §6.16.
void add_heap_figures(const GcBatch& batch, uint64_t walked_bytes, MemoryAccounting& memory) {
  for (const GenerationRange& g : batch.bounds) memory.gc_in_use_bytes += g.length;
  // A walk that dropped objects (memory budget) does not know the live bytes.
  if (batch.has_heap_walk() && batch.drops.objects == 0) {
    memory.live_object_bytes = walked_bytes;
    memory.present |= memory_present::kLiveObjects;
  }
}

// format-spec.md §6.23-§6.26: the walk's values, and how they were recorded.
Status write_values(Writer& writer, const GcBatch& batch) {
  if (!batch.string_values.empty()) GCSNAP_RETURN_IF_ERROR(writer.add_string_values(batch.string_values));
  ValueCapture capture;
  if (batch.capture_chars > 0) {
    capture.flags = value_flags::kContentsCaptured;
    capture.capture_chars = batch.capture_chars;
    std::vector<StringContent> contents(batch.content_addresses.size());
    size_t at = 0;
    for (size_t k = 0; k < contents.size(); ++k) {
      contents[k] = StringContent{batch.content_addresses[k], batch.content_chars[k],
                                  std::string_view(batch.content_text).substr(at, batch.content_lengths[k])};
      at += batch.content_lengths[k];
    }
    if (!contents.empty()) GCSNAP_RETURN_IF_ERROR(writer.add_string_contents(contents));
  }
  if (!batch.collection_values.empty()) GCSNAP_RETURN_IF_ERROR(writer.add_collection_values(batch.collection_values));
  return writer.add_value_capture(capture);
}

Status write_gc(Writer& writer, GcBatch& batch, ChunkPool* pool, std::span<const StaticSlot> statics,
                MemoryAccounting* memory, AllocSampler* sites) {
  GCSNAP_RETURN_IF_ERROR(writer.begin_gc(batch.info));
  GCSNAP_RETURN_IF_ERROR(write_names(writer, batch));
  if (!batch.bounds.empty()) GCSNAP_RETURN_IF_ERROR(writer.add_generation_bounds(batch.bounds));
  if (!batch.root_objects.empty()) {
    GCSNAP_RETURN_IF_ERROR(
        writer.add_roots(batch.root_objects, batch.root_kinds, batch.root_flags, batch.root_ids));
  }
  if (!batch.surviving_starts.empty()) {
    GCSNAP_RETURN_IF_ERROR(writer.add_surviving_ranges(batch.surviving_starts, batch.surviving_lengths));
  }
  if (!batch.moved_old_starts.empty()) {
    GCSNAP_RETURN_IF_ERROR(
        writer.add_moved_ranges(batch.moved_old_starts, batch.moved_new_starts, batch.moved_lengths));
  }
  uint64_t walked_bytes = 0;
  if (!batch.objects.empty()) {
    // Generations are told here, after the GC, so that the GC thread only copies.
    GenerationClassifier generations(batch.bounds, batch.non_gc_ranges);
    ChunkColumns columns;
    for (auto& chunk : batch.objects) {
      const ObjectChunk& c = *chunk;
      if (c.objects == 0) continue;
      columns.split(c);
      generations.classify(columns.addresses, columns.generations);
      for (size_t i = 0; i < columns.sizes.size(); ++i)
        if (columns.generations[i] != static_cast<uint8_t>(Generation::NonGcHeap)) walked_bytes += columns.sizes[i];
      if (batch.has_reference_slots) {
        GCSNAP_RETURN_IF_ERROR(writer.add_objects(columns.addresses, columns.types, columns.sizes,
                                                  columns.generations, columns.ref_counts,
                                                  {c.references, c.reference_count}, {c.slots, c.reference_count}));
      } else {
        GCSNAP_RETURN_IF_ERROR(writer.add_objects(columns.addresses, columns.types, columns.sizes,
                                                  columns.generations, columns.ref_counts,
                                                  {c.references, c.reference_count}));
      }
      // Copied into the writer's columns: the chunk goes back to the pool for the next walk.
      if (pool) {
        pool->give_back(std::move(chunk));
      } else {
        chunk.reset();
      }
    }
  }
  if (batch.values_captured) GCSNAP_RETURN_IF_ERROR(write_values(writer, batch));
  if (batch.dependent_handles_captured) {
    // Written even when empty: the section then says "captured, none" (format-spec.md §6.11).
    GCSNAP_RETURN_IF_ERROR(writer.add_dependent_handles(batch.dependent_primaries, batch.dependent_secondaries));
  }
  if (!statics.empty()) {
    // Statics only name paths: slots the writer refuses cost their names, not the recording.
    Status status = writer.add_static_slots(statics);
    if (!status && status.error().code != ErrorCode::InvalidArgument) return status;
  }
  if (!batch.delegate_targets.empty() && batch.has_heap_walk())
    GCSNAP_RETURN_IF_ERROR(writer.add_delegate_targets(batch.delegate_targets));
  if (batch.walk_skip) GCSNAP_RETURN_IF_ERROR(writer.add_walk_skip(*batch.walk_skip));
  if (memory) {
    add_heap_figures(batch, walked_bytes, *memory);
    GCSNAP_RETURN_IF_ERROR(writer.add_memory_accounting(*memory));
  }
  if (batch.drops.any()) GCSNAP_RETURN_IF_ERROR(writer.add_drops(batch.drops));
  if (sites && !sites->off()) {
    // Samples only say where objects came from: what the writer refuses costs them, not the GC.
    Status status = sites->write_before(writer, batch.info.start_time_ns);
    if (!status && status.error().code != ErrorCode::InvalidArgument) return status;
  }
  return writer.end_gc(batch.info);
}

}  // namespace

bool WriterThread::walk_fits(uint64_t max_file_bytes) const noexcept {
  if (max_file_bytes == 0) return true;
  const WriterStats s = writer_->stats();
  if (s.last_walk_bytes == 0) return true;  // no walk yet: nothing to estimate from
  // What stays when every walk still in the file is dropped, plus a walk like the last one.
  const uint64_t droppable = s.drop_unsupported ? 0 : s.droppable_bytes;
  const uint64_t kept = s.disk_bytes > droppable ? s.disk_bytes - droppable : 0;
  return kept + s.last_walk_bytes <= max_file_bytes;
}

WriterThread::WriterThread(std::unique_ptr<Writer> writer, FailureHandler on_failure)
    : writer_(std::move(writer)), on_failure_(std::move(on_failure)) {
  thread_ = std::thread([this] { run(); });
}

WriterThread::~WriterThread() {
  finish();
  if (thread_.joinable()) thread_.join();
}

void WriterThread::submit(std::unique_ptr<GcBatch> batch) noexcept {
  if (!batch) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_ || failed_.load()) return;  // the batch is freed here: nothing more is written
  queued_bytes_.fetch_add(batch->accounted_bytes, std::memory_order_relaxed);
  try {
    queue_.push_back(std::move(batch));
  } catch (...) {
    queued_bytes_.fetch_sub(batch ? batch->accounted_bytes : 0, std::memory_order_relaxed);
    return;
  }
  wake_.notify_one();
}

void WriterThread::run() noexcept {
  // A name of its own, so that top, perf and gdb tell it from the app's threads.
  platform::set_thread_name("gcsnap-writer");
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) break;  // stopping and drained
    std::unique_ptr<GcBatch> batch = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    if (!failed_.load()) write_batch(*batch);
    uint64_t bytes = batch->accounted_bytes;
    batch.reset();
    queued_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
    lock.lock();
  }
}

bool WriterThread::write_batch(GcBatch& batch) noexcept {
  try {
    // The process's memory first, closest to the GC's end and before encoding allocates.
    std::optional<MemoryAccounting> memory = sample_memory(batch);
    std::vector<StaticSlot> statics = static_slots_for(batch);
    Status status = write_gc(*writer_, batch, pool_, statics, memory ? &*memory : nullptr, alloc_sites_);
    if (status.is_ok()) return true;
    (void)writer_->abort_gc();
    const Error& e = status.error();
    std::string message(error_code_name(e.code));
    if (e.detail && *e.detail) message += std::string(": ") + e.detail;
    if (e.sys_errno != 0) message += std::string(": ") + std::strerror(e.sys_errno);
    fail(message.c_str());
  } catch (...) {
    fail("out of memory while encoding a GC");
  }
  return false;
}

std::optional<MemoryAccounting> WriterThread::sample_memory(const GcBatch& batch) noexcept {
  if (memory_interval_ns_ == UINT64_MAX) return std::nullopt;
  const uint64_t now = wall_clock_ns();
  // Every walked GC; others at most once per interval (reading smaps costs milliseconds), and
  // at most a twentieth of the writer's time: a read can cost far more (Wine's page queries).
  const uint64_t gap = std::max(memory_interval_ns_, 20 * last_memory_cost_ns_);
  if (!batch.has_heap_walk() && last_memory_ns_ != 0 && now - last_memory_ns_ < gap) return std::nullopt;
  last_memory_ns_ = now;
  MemoryAccounting m;
  memory_probe_.read(batch.bounds, m);
  const uint64_t after = wall_clock_ns();
  last_memory_cost_ns_ = after > now ? after - now : 0;
  m.sample_delay_ns = after > batch.info.end_time_ns && batch.info.end_time_ns ? after - batch.info.end_time_ns : 0;
  // Everything the shim holds in chunks and buffers: the batches queued (this one included) and
  // the pool's chunks, so that readers do not count them as the app's native memory.
  m.recorder_bytes = queued_bytes_.load(std::memory_order_relaxed) + (pool_ ? pool_->held_bytes() : 0);
  return m;
}

std::vector<StaticSlot> WriterThread::static_slots_for(const GcBatch& batch) noexcept {
  std::vector<StaticSlot> out;
  if (!statics_table_ || !statics_runtime_ || statics_off_ || !batch.has_heap_walk() || batch.objects.empty())
    return out;
  try {
    // Here, after the GC: the runtime calls take locks, and static addresses do not move.
    statics_table_->refresh(*statics_runtime_);
    std::span<const NamedStatic> slots = statics_table_->slots();
    out.reserve(slots.size());
    for (const NamedStatic& s : slots) out.push_back(StaticSlot{s.address, s.name});
  } catch (...) {
    statics_off_ = true;
    out.clear();
    log_line("static fields are not named from now on (out of memory while resolving them); recording goes on");
  }
  return out;
}

void WriterThread::fail(const char* message) noexcept {
  if (failed_.exchange(true)) return;
  if (on_failure_) on_failure_(message);
}

bool WriterThread::finish() noexcept {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (closed_) return !failed_.load();
    stopping_ = true;
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
  Status status;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    status = writer_->close();
  }
  // fail() runs the failure handler, which takes the recorder's lock: never under ours,
  // because a GC thread holds the recorder's lock while it submits (lock order).
  if (!status.is_ok()) fail("could not finish the file");
  return !failed_.load();
}

WriterStats WriterThread::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return writer_->stats();
}

}  // namespace gcsnap::shim
