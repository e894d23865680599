#pragma once
// The writer's optional background thread: a bounded FIFO of chunks that one worker
// encodes, compresses and appends through the SectionSink, in order.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

#include "format/chunk_data.hpp"
#include "format/section_sink.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::format {

class ChunkQueue {
 public:
  /// Start the worker. Errors (from start()): OutOfMemory when the thread cannot start.
  ChunkQueue(SectionSink& sink, uint64_t max_queued_bytes) : sink_(sink), max_bytes_(max_queued_bytes) {}
  ~ChunkQueue();
  Status start() noexcept;
  /// Enqueue, waiting while more than max_queued_bytes are waiting. Returns the worker's
  /// first error, if any.
  Status push(ChunkData&& chunk);
  /// Wait until the queue is empty and the worker idle; return the worker's first error.
  Status drain();
  /// Drain and stop the worker.
  Status stop();

 private:
  void run();
  SectionSink& sink_;
  uint64_t max_bytes_;
  std::mutex mutex_;
  std::condition_variable work_cv_, space_cv_;
  std::deque<std::pair<ChunkData, uint64_t>> queue_;
  uint64_t queued_bytes_ = 0;
  bool busy_ = false;
  bool stopping_ = false;
  Error error_{};
  std::thread thread_;
};

}  // namespace gcsnap::format
