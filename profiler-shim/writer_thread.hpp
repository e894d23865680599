#pragma once
// The shim's own writer thread: it takes finished GcBatches from the GC thread and does the
// encoding, compression and file writes, so a GC callback never waits on I/O.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "alloc_sampler.hpp"
#include "chunk_pool.hpp"
#include "gc_batch.hpp"
#include "memory_probe.hpp"
#include "gcsnap/writer.hpp"
#include "static_slots.hpp"

namespace gcsnap::shim {

/// Where the recorder hands finished GCs. The writer thread is the real one; tests may fake it.
class BatchSink {
 public:
  /// Take ownership of a finished GC. Must not block on I/O.
  virtual void submit(std::unique_ptr<GcBatch> batch) noexcept = 0;
  /// Bytes of batches submitted but not yet written (charged to the memory budget).
  virtual uint64_t queued_bytes() const noexcept = 0;
  /// Whether a walk as large as the last one fits under a file cap of MAX_FILE_BYTES once every
  /// earlier walk is dropped (format-spec.md §6.17). True when nothing says otherwise.
  virtual bool walk_fits(uint64_t max_file_bytes) const noexcept {
    (void)max_file_bytes;
    return true;
  }

 protected:
  ~BatchSink() = default;
};

class WriterThread final : public BatchSink {
 public:
  /// Called once, on the writer thread, when the writer fails (the message says why).
  using FailureHandler = std::function<void(const char* message)>;

  WriterThread(std::unique_ptr<Writer> writer, FailureHandler on_failure);
  ~WriterThread();
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;

  void submit(std::unique_ptr<GcBatch> batch) noexcept override;
  uint64_t queued_bytes() const noexcept override { return queued_bytes_.load(std::memory_order_relaxed); }
  bool walk_fits(uint64_t max_file_bytes) const noexcept override;

  /// Write everything queued, then close the file (index and trailer). Idempotent.
  /// Returns false if the writer failed at any point.
  bool finish() noexcept;
  bool failed() const noexcept { return failed_.load(); }
  /// Give written heap-walk chunks back to POOL (set before the first GC; may be null).
  void set_chunk_pool(ChunkPool* pool) noexcept { pool_ = pool; }
  /// Name statics in heap-walk GCs (format-spec.md §6.14): before writing each one, refresh
  /// TABLE through RUNTIME on this thread, never on the GC's (set before the first GC).
  void set_statics(StaticSlotTable* table, StaticsRuntime* runtime) noexcept {
    statics_table_ = table;
    statics_runtime_ = runtime;
  }
  /// Write the allocation samples taken before each GC into its block (format-spec.md §6.18;
  /// set before the first GC).
  void set_alloc_sites(AllocSampler* sites) noexcept { alloc_sites_ = sites; }
  WriterStats stats() const;
  /// Read the process's memory (format-spec.md §6.16) at every walked GC and at other GCs at
  /// most once per INTERVAL_NS; UINT64_MAX turns it off. Set before the first GC.
  void set_memory_interval(uint64_t interval_ns) noexcept { memory_interval_ns_ = interval_ns; }

 private:
  void run() noexcept;
  bool write_batch(GcBatch& batch) noexcept;
  std::vector<StaticSlot> static_slots_for(const GcBatch& batch) noexcept;
  std::optional<MemoryAccounting> sample_memory(const GcBatch& batch) noexcept;
  void fail(const char* message) noexcept;

  std::unique_ptr<Writer> writer_;
  FailureHandler on_failure_;
  ChunkPool* pool_ = nullptr;
  AllocSampler* alloc_sites_ = nullptr;
  StaticSlotTable* statics_table_ = nullptr;
  StaticsRuntime* statics_runtime_ = nullptr;
  MemoryProbe memory_probe_;
  uint64_t memory_interval_ns_ = 250'000'000;
  uint64_t last_memory_ns_ = 0;
  uint64_t last_memory_cost_ns_ = 0;  // how long the last read took
  bool statics_off_ = false;  ///< a failure turned static names off (writer thread only)
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::unique_ptr<GcBatch>> queue_;
  bool stopping_ = false;
  bool closed_ = false;
  std::atomic<uint64_t> queued_bytes_{0};
  std::atomic<bool> failed_{false};
  std::thread thread_;
};

}  // namespace gcsnap::shim
