// ShimSession: the chunks made ready for an on-demand walk, sized from the managed heap
// (walk_sizing.hpp holds the rules; docs/shim.md "Memory" states the bound).
#include <chrono>
#include <vector>

#include "memory_probe.hpp"
#include "shim_session.hpp"
#include "walk_sizing.hpp"

namespace gcsnap::shim {

using namespace com;

uint64_t ShimSession::read_heap_in_use() noexcept {
  // Allowed to an attached profiler, from any thread; the runtime answers from a table it
  // makes at each GC's start and end, so E_FAIL before the first GC after an attach
  // (clr-profiling-abi.md). Local buffers: the GC thread's raw_bounds_ may be in use now.
  try {
    std::vector<COR_PRF_GC_GENERATION_RANGE> raw(256);
    ULONG count = 0;
    HRESULT hr = info_->GetGenerationBounds(static_cast<ULONG>(raw.size()), &count, raw.data());
    if (succeeded(hr) && count > raw.size()) {
      raw.resize(count + count / 2);  // regions: one range per region
      hr = info_->GetGenerationBounds(static_cast<ULONG>(raw.size()), &count, raw.data());
    }
    if (!succeeded(hr)) return 0;
    uint64_t bytes = 0;
    for (ULONG i = 0; i < count && i < raw.size(); ++i) bytes += raw[i].rangeLength;
    return bytes;
  } catch (...) {
    return 0;  // out of memory: nothing made ready, the pool grows during the walk
  }
}

// Chunks for the walk, made ready before the forced GC (waiting delays the GC, not the app:
// mapping is much cheaper off the GC thread). Sized from the managed heap as the runtime
// reports it now, never from the process (whose native memory says nothing of the walk), and
// from the last walk's size where there was one; the pool grows the rest while the walk takes
// chunks (walk_sizing.hpp).
void ShimSession::prepare_chunks_for_walk() noexcept {
  if (!chunk_pool_ || settings_.walk_only) return;  // walk-only stores nothing
  WalkSizingInput in;
  in.heap_bytes = read_heap_in_use();
  if (in.heap_bytes == 0) in.heap_bytes = recorder_->heap_bytes_now();
  recorder_->note_heap_bytes(in.heap_bytes);
  in.expected_walk_bytes = recorder_->expected_walk_bytes(in.heap_bytes);
  in.chunk_bytes = kFullChunkBytes;
  if (uint64_t usage = 0, limit = 0; read_cgroup_limit(usage, limit)) in.cgroup_share = cgroup_walk_share(usage, limit);
  const size_t chunks = chunks_to_prepare(in);
  if (chunks == 0) return;
  chunk_pool_->fill_before_walk(chunks, std::chrono::milliseconds(2000));
}

}  // namespace gcsnap::shim
