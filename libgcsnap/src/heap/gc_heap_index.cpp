// The analysis index as commands ask for it: its object columns, an address, the shortest-path
// tree alone, its build and its size on disk, so that no command needs to know its parts.
#include <filesystem>
#include <system_error>

#include "gcsnap/gc_heap.hpp"

namespace gcsnap {

Result<IndexColumns> GcHeap::read_object_columns(bool with_sizes) {
  auto stream = open_index_stream();
  if (!stream) return stream.error();
  auto columns = read_index_columns(**stream, with_sizes);
  if (!columns) return columns.error();
  column_stream_ = std::move(stream).value();
  return columns;
}

Result<std::unique_ptr<ColumnLookup>> GcHeap::look_up_object_columns() const {
  auto stream = open_index_stream();
  if (!stream) return stream.error();
  return look_up_index_columns(std::move(stream).value());
}

Result<std::unique_ptr<ColumnBlocks>> GcHeap::stream_object_columns() const {
  auto stream = open_index_stream();
  if (!stream) return stream.error();
  return stream_index_columns(std::move(stream).value());
}

Result<std::unique_ptr<ObjectBlocks>> GcHeap::stream_object_blocks() const {
  auto stream = open_index_stream();
  if (!stream) return stream.error();
  return stream_index_objects(std::move(stream).value());
}

Result<uint64_t> GcHeap::read_address(uint64_t node) {
  if (!column_stream_) {
    auto stream = open_index_stream();
    if (!stream) return stream.error();
    column_stream_ = std::move(stream).value();
  }
  return read_index_address(*column_stream_, node);
}

Result<IndexedPathTree> GcHeap::read_indexed_path_tree() const {
  auto stream = open_index_stream();
  if (!stream) return stream.error();
  if (!indexed_unreachable) return make_error(ErrorCode::InvalidState, "the index gave no unreachable count");
  const uint64_t reached = graph.node_count() - indexed_unreachable->first;
  return IndexedPathTree::read(std::move(stream).value(), graph, reached);
}

Status save_heap_index(const std::string& recording_path, const Recording& rec, size_t gc_pos,
                       const IndexProgress& progress) {
  auto ensured = ensure_analysis_index(recording_path, rec, gc_pos, progress);
  if (!ensured) return ensured.error();
  if (ensured->source == IndexSource::BuiltKept) return ensured->write_error;
  return Status::ok();
}

uint64_t heap_index_bytes(const std::string& recording_path, const Recording& rec, size_t gc_pos) {
  std::error_code error;
  const uint64_t bytes =
      std::filesystem::file_size(analysis_index_path(recording_path, rec.gcs()[gc_pos].info.gc_number), error);
  return error ? 0 : bytes;
}

}  // namespace gcsnap
