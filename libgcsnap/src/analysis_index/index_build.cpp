// The analysis index: what ties it to a GC, the decode every build starts from, and the
// open-or-build policy the commands share (format-spec.md §12). The build itself is one
// (index_build_file.cpp): into the index file, or into memory when the index is not saved.

#include <algorithm>
#include <cerrno>
#include <new>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "format/xxh3_wide.hpp"

#include "analysis/heap_graph_storage.hpp"
#include "gcsnap/analysis_index.hpp"
#include "analysis_index/index_access.hpp"
#include "analysis_index/index_build_steps.hpp"
#include "analysis_index/index_layout.hpp"
#include "analysis_index/index_write.hpp"
#include "platform/file_io.hpp"

namespace gcsnap {

using detail::AnalysisIndexAccess;
namespace L = index_layout;

std::string analysis_index_path(const std::string& recording_path, uint64_t gc_number) {
  return recording_path + "." + std::to_string(gc_number) + ".gcidx";
}

namespace {

Status io_error(const char* detail) {
  Error e{ErrorCode::IoError, 0, detail, errno};
  return Status(e);
}

}  // namespace

Result<IndexIdentity> identify_gc(const std::string& recording_path, const Recording& rec, size_t gc_pos) {
  if (gc_pos >= rec.gcs().size()) return make_error(ErrorCode::NotFound, "no such GC in the recording");
  const GcEntry& entry = rec.gcs()[gc_pos];
  const platform::FileHandle fd = platform::open_file(recording_path, platform::OpenMode::Read);
  if (fd == platform::kNoFile) return io_error("cannot open the recording");
  platform::FileInfo st;
  IndexIdentity id;
  bool ok = platform::file_info(fd, st);
  if (ok) {
    id.file_size = st.size;
    id.mtime_ns = st.mtime_ns;
    id.gc_number = entry.info.gc_number;
    id.block_offset = entry.block_offset;
    id.block_size = entry.block_size;
    const uint64_t sample = std::min<uint64_t>(L::kSampleBytes, entry.block_size);
    std::vector<char> bytes(static_cast<size_t>(2 * sample));
    ok = platform::read_all_at(fd, bytes.data(), static_cast<size_t>(sample), entry.block_offset) &&
         platform::read_all_at(fd, bytes.data() + sample, static_cast<size_t>(sample), entry.block_offset + entry.block_size - sample);
    if (ok) id.block_sample_hash = format::xxh3_64(bytes.data(), bytes.size());
  }
  const int saved = errno;
  platform::close_file(fd);
  errno = saved;
  if (!ok) return io_error("cannot read the recording to identify its GC block");
  return id;
}

namespace detail {

Result<DecodedGc> decode_gc(const Recording& rec, size_t gc_pos, const IndexProgress& progress) {
  if (progress) progress("decoding objects");
  auto objects = rec.read_objects(gc_pos, ObjectReadOptions{true});
  if (!objects) return objects.error();
  DecodedGc out;
  out.objects = std::make_shared<ObjectTable>(std::move(objects).value());
  rec.release_block_pages(gc_pos);  // decoded: what reads the block again reads the file again
  auto roots = rec.read_roots(gc_pos);
  if (!roots) return roots.error();
  auto has_dependent = rec.has_dependent_handle_section(gc_pos);
  if (!has_dependent) return has_dependent.error();
  auto dependent = rec.read_dependent_handles(gc_pos);
  if (!dependent) return dependent.error();
  out.has_dependent = *has_dependent;
  if (progress) progress("building the graph");
  // The edge slots are matched to the graph through the targets when a reference is unresolved:
  // without slots nothing reads the targets after the graph, so their pages go as it is built.
  const DependentHandleTable* pairs = out.has_dependent ? &*dependent : nullptr;
  auto graph = out.objects->reference_slots.empty()
                   ? AnalysisIndexAccess::build_graph_discarding(*out.objects, *roots, pairs)
                   : HeapGraph::build(*out.objects, *roots, pairs);
  if (!graph) return graph.error();
  auto slots = EdgeSlots::build(*out.objects, *graph);
  if (!slots) return slots.error();
  out.objects->release_references();
  out.graph = std::move(graph).value();
  out.slots = std::move(slots).value();
  return out;
}

}  // namespace detail

namespace {

// What the one build (detail::build_index) gives when its index is not saved.
struct KeptBuild {
  std::vector<unsigned char> bytes;  // the index file's bytes
  uint64_t objects = 0;
};

// Build GC_POS of REC into memory, as the file for ID would be written.
// Errors: the build's; OutOfMemory when the bytes do not fit in memory.
Result<KeptBuild> build_in_memory(const Recording& rec, size_t gc_pos, const IndexProgress& progress,
                                  const IndexIdentity& id) {
  detail::IndexFile memory = detail::IndexFile::in_memory();
  auto built = detail::build_index(rec, gc_pos, progress, id, memory);
  if (!built) return built.error();
  if (!built->second) return built->second.error();
  return KeptBuild{memory.take_bytes(), built->first};
}

Result<AnalysisIndex> read_bytes(const std::vector<unsigned char>& bytes, const IndexIdentity* id, IndexParts parts) {
  return analysis_index_from_bytes(std::as_bytes(std::span(bytes)), id, parts);
}

}  // namespace

Result<AnalysisIndex> compute_analysis_index(const Recording& rec, size_t gc_pos, const IndexProgress& progress) {
  auto built = build_in_memory(rec, gc_pos, progress, IndexIdentity{});
  if (!built) return built.error();
  return read_bytes(built->bytes, nullptr, kIndexAll);
}

Result<OpenedAnalysisIndex> open_analysis_index(const std::string& recording_path, const Recording& rec, size_t gc_pos,
                                    bool write, const IndexProgress& progress, IndexParts parts) {
  auto id = identify_gc(recording_path, rec, gc_pos);
  if (!id) return id.error();
  const std::string path = analysis_index_path(recording_path, id->gc_number);
  OpenedAnalysisIndex out;
  auto read = read_analysis_index(path, *id, parts);
  if (read) {
    out.index = std::move(read).value();
    out.source = IndexSource::Read;
    return out;
  }
  if (read.error().code != ErrorCode::NotFound) out.rejected = read.error();
  if (write) {
    // The file is built as `gcsnap index` builds it, then read back like any index: only PARTS
    // are decoded, so the build's peak is not followed by every array at once.
    auto file = detail::IndexFile::create(path);
    if (!file) {
      out.write_error = file.error();
    } else {
      auto built = detail::build_index(rec, gc_pos, progress, *id, *file);
      if (!built) return built.error();
      if (!built->second) {
        out.write_error = built->second.error();
      } else if (auto saved = read_analysis_index(path, *id, parts); saved) {
        out.index = std::move(saved).value();
        out.source = IndexSource::BuiltSaved;
        return out;
      } else {
        out.write_error = saved.error();  // replaced or removed meanwhile: kept in memory instead
      }
    }
  }
  // Not saved: the same build, its bytes kept in memory for this answer.
  auto built = build_in_memory(rec, gc_pos, progress, *id);
  if (!built) return built.error();
  auto kept = read_bytes(built->bytes, &*id, parts);
  if (!kept) return kept.error();
  out.index = std::move(kept).value();
  out.source = IndexSource::BuiltKept;
  return out;
}

}  // namespace gcsnap
