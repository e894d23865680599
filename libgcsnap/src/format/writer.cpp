// Writer: call order and GC blocks (format-spec.md §6). Column batching is in writer_columns.cpp.
#include <cerrno>
#include <iterator>
#include <new>

#include "format/byte_io.hpp"
#include "format/section_table.hpp"
#include "format/writer_impl.hpp"
#include "platform/file_io.hpp"

namespace gcsnap {

using format::ChunkData;
using format::RawRecord;
using format::SectionType;

namespace {

RawRecord make_record(SectionType type, size_t payload_size) {
  RawRecord r;
  r.type = static_cast<uint16_t>(type);
  r.item_count = 1;
  r.payload.resize(payload_size);
  return r;
}

}  // namespace

uint64_t Writer::Impl::chunk_items() const noexcept {
  // Objects are permuted with 32-bit indices when sorted (chunk_encoder.cpp).
  uint64_t n = options.chunk_items;
  if (n == 0) return 1;
  return n > (1ull << 31) ? (1ull << 31) : n;
}

Status Writer::Impl::fail(Error e) noexcept {
  if (state != State::Failed) {
    failure = e;
    state = State::Failed;
  }
  return failure;
}

Status Writer::Impl::check_in_gc() const noexcept {
  if (state == State::Failed) return failure;
  if (state != State::InGc) return make_error(ErrorCode::InvalidState, "no GC block is open (call begin_gc first)");
  return {};
}

Status Writer::Impl::emit(ChunkData&& chunk) {
  {
    std::lock_guard lock(stats_mutex);
    stats.raw_bytes += format::chunk_raw_bytes(chunk);
  }
  Status s = queue ? queue->push(std::move(chunk)) : sink->consume(chunk);
  if (!s.is_ok()) return fail(s.error());
  if (auto* done = std::get_if<format::ObjectsChunk>(&chunk); done && !queue) {
    done->clear();
    spare_objects = std::move(*done);
  }
  return {};
}

Status Writer::Impl::flush_buffers() {
  if (bounds.size()) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(bounds, {})));
  if (roots.size()) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(roots, {})));
  if (surviving.size()) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(surviving, {})));
  if (moved.size()) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(moved, {})));
  if (types.size()) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(types, {})));
  if (methods.size()) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(methods, {})));
  if (objects.size()) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(objects, {})));
  // §6.11: an empty section says "captured, none", which a missing one cannot.
  if (dependent_handles.size() || dependent_handles.captured) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(dependent_handles, {})));
  if (layouts.size()) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(layouts, {})));
  if (statics.size()) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(statics, {})));
  if (delegates.size()) GCSNAP_RETURN_IF_ERROR(emit(std::exchange(delegates, {})));
  return {};
}

void Writer::Impl::clear_buffers() {
  bounds = {};
  roots = {};
  surviving = {};
  moved = {};
  objects = {};
  types = {};
  methods = {};
  dependent_handles = {};
  layouts = {};
  statics = {};
  delegates = {};
}

Writer::Writer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Writer::~Writer() {
  if (impl_) (void)close();
}

Result<std::unique_ptr<Writer>> Writer::create(const std::string& path, const WriterOptions& options) {
  const platform::FileHandle fd = platform::open_file(path, platform::OpenMode::CreateWrite);
  if (fd == platform::kNoFile) {
    Error e = make_error(ErrorCode::IoError, "cannot create the file");
    e.sys_errno = errno;
    return e;
  }
  return from_handle(fd, options);
}

Result<std::unique_ptr<Writer>> Writer::from_fd(int fd, const WriterOptions& options) {
  if (fd < 0) return make_error(ErrorCode::InvalidArgument, "negative file descriptor");
  const platform::FileHandle handle = platform::adopt_descriptor(fd);
  if (handle == platform::kNoFile) return make_error(ErrorCode::InvalidArgument, "file descriptor not open");
  return from_handle(handle, options);
}

Result<std::unique_ptr<Writer>> Writer::from_handle(intptr_t fd, const WriterOptions& options) {
  try {
    auto impl = std::make_unique<Impl>();
    impl->options = options;
    impl->sink = std::make_unique<format::SectionSink>(fd, options.compression_level, options.sync_each_gc,
                                                              options.recycle_written_pages, options.max_file_bytes);
    GCSNAP_RETURN_IF_ERROR(impl->sink->write_file_header(options.required_features));
    if (options.background_compression) {
      impl->queue = std::make_unique<format::ChunkQueue>(*impl->sink, options.max_queued_bytes);
      GCSNAP_RETURN_IF_ERROR(impl->queue->start());
    }
    impl->stats.bytes_written = impl->sink->bytes_written();
    return std::unique_ptr<Writer>(new Writer(std::move(impl)));
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "creating the writer");
  }
}

Status Writer::begin_gc(const GcInfo& info) {
  Impl& w = *impl_;
  if (w.state == Impl::State::Failed) return w.failure;
  if (w.state != Impl::State::Idle) return make_error(ErrorCode::InvalidState, "begin_gc while a GC is open or after close");
  if (!format::is_valid_gc_info(info)) return make_error(ErrorCode::InvalidArgument, "GcInfo field out of range");
  if (w.any_gc && info.gc_number <= w.last_gc_number)
    return make_error(ErrorCode::InvalidArgument, "GC numbers must increase");
  try {
    RawRecord r = make_record(SectionType::BlockStart, format::kBlockStartSize);
    format::encode_gc_info(info, r.payload.data());
    w.summary = {};
    w.summary.entry.info = info;
    w.gc_type_ids.clear();
    w.gc_method_ids.clear();
    w.gc_layout_ids.clear();
    w.slot_mode = Impl::SlotMode::Undecided;
    w.state = Impl::State::InGc;
    return w.emit(std::move(r));
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "begin_gc"));
  }
}

Status Writer::add_walk_skip(const WalkSkip& skip) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  try {
    RawRecord r = make_record(SectionType::WalkSkipped, format::kWalkSkippedSize);
    uint8_t* p = r.payload.data();
    p[0] = skip.reason;
    format::store_le32(p + 4, skip.budget_per_mille);
    format::store_le64(p + 8, skip.last_walk_ns);
    format::store_le64(p + 16, skip.since_last_walk_ns);
    format::store_le64(p + 24, skip.estimated_walk_ns);
    return w.emit(std::move(r));
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "add_walk_skip"));
  }
}

Status Writer::add_memory_accounting(const MemoryAccounting& m) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  try {
    // private_bytes is appended only when it holds a figure (§6.16), so Linux files keep 128 bytes.
    const bool with_private = m.has(memory_present::kPrivate);
    RawRecord r = make_record(SectionType::MemoryAccounting,
                              with_private ? format::kMemoryAccountingPrivateSize : format::kMemoryAccountingSize);
    uint8_t* p = r.payload.data();
    format::store_le32(p, m.present);
    format::store_le32(p + 4, 0);
    const uint64_t fields[] = {m.sample_delay_ns,   m.rss_bytes,       m.pss_bytes,         m.swap_bytes,
                               m.gc_committed_bytes, m.gc_resident_bytes, m.gc_in_use_bytes, m.live_object_bytes,
                               m.code_bytes,        m.mapped_file_bytes, m.stack_bytes,     m.anonymous_bytes,
                               m.recorder_bytes,    m.cgroup_usage_bytes, m.cgroup_limit_bytes};
    static_assert(8 + sizeof(fields) == format::kMemoryAccountingSize);
    for (size_t k = 0; k < std::size(fields); ++k) format::store_le64(p + 8 + 8 * k, fields[k]);
    if (with_private) format::store_le64(p + format::kMemoryAccountingSize, m.private_bytes);
    return w.emit(std::move(r));
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "add_memory_accounting"));
  }
}

Status Writer::add_encoded_section(uint16_t type, uint64_t item_count, std::vector<uint8_t>&& payload) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  if (!format::is_known_data_section(type) || item_count > payload.size())
    return make_error(ErrorCode::InvalidArgument, "add_encoded_section: not a data section, or more items than bytes");
  try {
    RawRecord r;
    r.type = type;
    r.item_count = item_count;
    r.payload = std::move(payload);
    r.compress = true;
    return w.emit(std::move(r));
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "add_encoded_section"));
  }
}

Status Writer::add_drops(const DropCounts& drops) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  DropCounts& d = w.summary.entry.drops;
  d.roots += drops.roots;
  d.ranges += drops.ranges;
  d.objects += drops.objects;
  d.references += drops.references;
  d.reasons |= drops.reasons;
  return {};
}

Status Writer::end_gc(const GcInfo& info) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  if (!format::is_valid_gc_info(info)) return make_error(ErrorCode::InvalidArgument, "GcInfo field out of range");
  if (info.gc_number != w.summary.entry.info.gc_number)
    return make_error(ErrorCode::InvalidArgument, "end_gc names another GC than begin_gc");
  try {
    GCSNAP_RETURN_IF_ERROR(w.flush_buffers());
    w.summary.entry.info = info;
    RawRecord r = make_record(SectionType::BlockEnd, format::kGcSummarySize);
    format::encode_gc_summary(w.summary, r.payload.data());
    GCSNAP_RETURN_IF_ERROR(w.emit(std::move(r)));
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "end_gc"));
  }
  w.state = Impl::State::Idle;
  w.any_gc = true;
  w.last_gc_number = info.gc_number;
  std::lock_guard lock(w.stats_mutex);
  ++w.stats.gcs_written;
  return {};
}

Status Writer::abort_gc() {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  w.clear_buffers();
  for (uint32_t id : w.gc_type_ids) w.type_ids.erase(id);
  for (uint32_t id : w.gc_layout_ids) w.layout_ids.erase(id);
  for (uint64_t id : w.gc_method_ids) w.method_ids.erase(id);
  w.state = Impl::State::Idle;
  try {
    // §6.10: chunks already written stay in the file but belong to no complete block.
    RawRecord r = make_record(SectionType::BlockAbort, 8);
    format::store_le64(r.payload.data(), w.summary.entry.info.gc_number);
    return w.emit(std::move(r));
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "abort_gc"));
  }
}

Status Writer::flush() {
  Impl& w = *impl_;
  if (w.state == Impl::State::Failed) return w.failure;
  if (w.state == Impl::State::Closed) return {};
  if (w.queue) {
    Status s = w.queue->drain();
    if (!s.is_ok()) return w.fail(s.error());
  }
  Status s = w.sink->flush();
  if (!s.is_ok()) return w.fail(s.error());
  return {};
}

Status Writer::close() {
  Impl& w = *impl_;
  if (w.state == Impl::State::Closed) return {};
  if (w.state == Impl::State::InGc) (void)abort_gc();
  w.spare_objects = {};  // a closed writer holds no chunk memory
  if (w.queue) {
    Status s = w.queue->stop();
    w.queue.reset();
    if (!s.is_ok()) (void)w.fail(s.error());
  }
  if (w.state == Impl::State::Failed) return w.failure;
  Status s = w.sink->finish();
  if (!s.is_ok()) return w.fail(s.error());
  w.state = Impl::State::Closed;
  return {};
}

WriterStats Writer::stats() const {
  std::lock_guard lock(impl_->stats_mutex);
  WriterStats s = impl_->stats;
  s.bytes_written = impl_->sink->bytes_written();
  const format::WalkDropper& d = impl_->sink->dropper();
  s.disk_bytes = d.disk_bytes();
  s.droppable_bytes = d.droppable_bytes();
  s.last_walk_bytes = d.last_walk_bytes();
  s.walks_dropped = d.walks_dropped();
  s.bytes_dropped = d.bytes_dropped();
  s.drop_unsupported = d.unsupported();
  return s;
}

bool Writer::is_failed() const noexcept { return impl_->state == Impl::State::Failed; }

}  // namespace gcsnap
