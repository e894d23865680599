#pragma once
// Heap-walk chunks made ready before the GC thread needs them. Faulting fresh pages in during
// the walk was ~40 % of the shim's share of the snapshot pause (perf, docs/performance.md): the pool's own
// thread (gcsnap-chunks) maps and populates full-size chunks while the GC runs its mark and
// plan phases and keeps a few ahead during the walk; written chunks come back from the writer
// thread and are kept, up to a cap, for the next walk.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "gc_batch.hpp"

namespace gcsnap::shim {

class ChunkPool {
 public:
  /// Keep up to IDLE_CAP_BYTES of chunks between walks, and have up to FILL_CAP_BYTES ready
  /// before an on-demand walk (at least the idle cap); start the pool's thread.
  explicit ChunkPool(size_t idle_cap_bytes, size_t fill_cap_bytes = 0);
  ~ChunkPool();
  ChunkPool(const ChunkPool&) = delete;
  ChunkPool& operator=(const ChunkPool&) = delete;

  /// A walk is coming: have AHEAD full-size chunks populated and waiting, and let the reserve
  /// grow by one each time the walk takes a chunk with half the reserve or less ready, up to
  /// GROW_TO (the walk outruns the pool's thread: the reserve grows on demand, not by a
  /// guess). Never blocks.
  void prepare(size_t ahead, size_t grow_to = 0) noexcept;
  /// An on-demand walk is about to be forced: wait up to LIMIT until CHUNKS (at most the fill
  /// cap) are populated, so that the GC thread does not fault them in during the walk (the
  /// first snapshot of a process would otherwise: its pool is empty). What is over the idle
  /// cap goes again as written chunks come back. Returns how many are ready. Blocks: for the
  /// control thread only, never a runtime callback.
  size_t fill_before_walk(size_t chunks, std::chrono::milliseconds limit) noexcept;
  /// A ready full-size chunk (empty), or nullptr when none is ready. Never blocks on the thread's work.
  std::unique_ptr<ObjectChunk> take() noexcept;
  /// The kept large chunk (room for a full chunk's objects and at least REFERENCES, at most
  /// twice that), or nullptr. A walk maps one for an object with more references than a
  /// full-size chunk holds (a big dictionary's entries); keeping the last one spares the next
  /// walk faulting it in again on the GC thread.
  std::unique_ptr<ObjectChunk> take_large(size_t references) noexcept;
  /// A written chunk: kept for the next walk if full-size and the pool holds fewer than the last
  /// walk took (within the idle cap), else freed; ready chunks over that (a fill or a refill the
  /// walk did not use) are freed too once no walk wants them.
  void give_back(std::unique_ptr<ObjectChunk> chunk) noexcept;
  /// The walk is over: stop filling ahead (what is ready stays; give_back trims to the cap).
  void walk_done() noexcept;

  size_t ready_count() const;
  /// How many ready chunks the current walk wants in reserve (0 between walks).
  size_t reserve() const;
  /// Bytes of the chunks the pool holds now (ready and the large one): part of what the shim
  /// holds in the process (the memory record's recorder_bytes, format-spec.md §6.16).
  uint64_t held_bytes() const noexcept;
  /// End the pool's thread (detach wants no thread of ours running). take() and give_back()
  /// still work; nothing is populated ahead any more. Idempotent.
  void stop() noexcept;

 private:
  void run() noexcept;
  /// How many ready chunks to keep: the reserve during a walk, else what the last walk (or this
  /// one so far) took, within the idle cap. Under mutex_.
  size_t keep_count() const noexcept;

  const size_t idle_cap_chunks_;
  const size_t fill_cap_chunks_;  ///< >= idle_cap_chunks_
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable filled_;  ///< a chunk was made ready (fill_before_walk waits on it)
  std::vector<std::unique_ptr<ObjectChunk>> ready_;
  std::unique_ptr<ObjectChunk> large_;  ///< at most one, within kLargeCapBytes
  size_t ahead_ = 0;  ///< how many ready chunks the current walk wants in reserve
  size_t grow_to_ = 0;  ///< the most ahead_ may grow to while the walk takes chunks
  size_t taken_ = 0;  ///< chunks taken since the last walk_done
  size_t last_walk_taken_ = 0;  ///< chunks the last walk took
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gcsnap::shim
