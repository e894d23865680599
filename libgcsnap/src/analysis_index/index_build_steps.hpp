#pragma once
// The steps of building an analysis index: the decode (index_build.cpp) and the build that
// writes the index as it goes (index_build_file.cpp), which every entry point calls. Internal
// to the library.

#include <memory>
#include <new>
#include <system_error>
#include <thread>
#include <utility>

#include "analysis/heap_graph_storage.hpp"
#include "analysis_index/index_write.hpp"
#include "gcsnap/analysis_index.hpp"

namespace gcsnap::detail {

// A job on a second thread, or on the caller's when none can be started (the build is then
// sequential, and as correct). The job must outlive it; it joins on wait() and destruction.
class SideJob {
 public:
  SideJob() = default;
  SideJob(const SideJob&) = delete;
  SideJob& operator=(const SideJob&) = delete;
  ~SideJob() { wait(); }
  template <typename Job>
  void start(Job& job) noexcept {
    try {
      thread_ = std::thread([&job] { job(); });
    } catch (const std::system_error&) {
      job();
    } catch (const std::bad_alloc&) {
      job();
    }
  }
  // join fails only on a thread that is not joinable or is the caller: neither happens here.
  void wait() noexcept {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
};

// The decoded GC and its forward graph: what the rest of a build starts from.
struct DecodedGc {
  std::shared_ptr<ObjectTable> objects;  // node columns and generations (references released)
  HeapGraph graph;
  EdgeSlots slots;
  bool has_dependent = false;
};

/// Decode GC_POS of REC and build its forward graph and edge slots (the references released).
/// Errors: the reader's, HeapGraph::build's, EdgeSlots::build's.
Result<DecodedGc> decode_gc(const Recording& rec, size_t gc_pos, const IndexProgress& progress);

/// Build GC_POS of REC into FILE (format-spec.md §12.3), for ID: the one build, which writes
/// each array as soon as it is complete and frees it once no later phase reads it. Returns the
/// GC's object count and the write's status (a failed write does not stop the computation: a
/// bad recording is the error to report). Errors: those of decode_gc, of the analyses,
/// OutOfMemory.
Result<std::pair<uint64_t, Status>> build_index(const Recording& rec, size_t gc_pos, const IndexProgress& progress,
                                                const IndexIdentity& id, IndexFile& file);

}  // namespace gcsnap::detail
