// finish_recording: the index and trailer of a file whose writer died (format-spec.md §8.4).
#include "gcsnap/finish_recording.hpp"

#include <cerrno>
#include <new>
#include <optional>

#include "format/block_scan.hpp"
#include "format/file_header.hpp"
#include "format/format_constants.hpp"
#include "format/block_index.hpp"
#include "format/section_sink.hpp"
#include "platform/file_io.hpp"
#include "platform/memory_map.hpp"

namespace gcsnap {
namespace {

Error io_error(const char* what, uint64_t offset = 0) {
  Error e = make_error(ErrorCode::IoError, what, offset);
  e.sys_errno = errno;
  return e;
}

/// The file's descriptor and read-only mapping, released on every path.
struct MappedFile {
  platform::FileHandle fd = platform::kNoFile;
  void* address = nullptr;
  size_t length = 0;
  ~MappedFile() {
    unmap();
    if (fd != platform::kNoFile) platform::close_file(fd);
  }
  void unmap() {
    if (address) platform::unmap_file(address, length);
    address = nullptr;
  }
  std::span<const uint8_t> bytes() const { return {static_cast<const uint8_t*>(address), length}; }
};

/// The number of GCs the file's index lists, or nullopt when the file has no trailer or its
/// trailer or index fails a check (then the file is not complete).
std::optional<size_t> indexed_gcs(std::span<const uint8_t> file, uint32_t header_size, const ReaderLimits& limits) {
  if (file.size() < header_size + format::kTrailerSize || !format::has_trailer_magic(file)) return std::nullopt;
  auto trailer = format::parse_trailer(file, header_size);
  if (!trailer) return std::nullopt;
  auto index = format::read_block_index(file, *trailer, header_size, limits);
  if (!index) return std::nullopt;
  return index->size();
}

}  // namespace

Result<FinishReport> finish_recording(const std::string& path, const ReaderLimits& limits) {
  try {
    MappedFile file;
    file.fd = platform::open_file(path, platform::OpenMode::ReadWrite);
    if (file.fd == platform::kNoFile) return io_error("cannot open the file for writing");
    platform::FileInfo st;
    if (!platform::file_info(file.fd, st)) return io_error("cannot stat the file");
    if (!st.regular) return make_error(ErrorCode::IoError, "not a regular file");
    if (st.size < format::kFileHeaderSize) return make_error(ErrorCode::Truncated, "file shorter than the file header");
    file.length = static_cast<size_t>(st.size);
    file.address = platform::map_file(file.fd, file.length, true);
    if (!file.address) return io_error("cannot map the file");
    auto header = format::parse_file_header(file.bytes());
    if (!header) return header.error();
    FinishReport report;
    if (auto indexed = indexed_gcs(file.bytes(), header->header_size, limits)) {
      report.gcs = *indexed;
      return report;
    }
    auto scan = format::scan_blocks(file.bytes(), header->header_size, limits);
    if (!scan) return scan.error();
    // §8.4: damage is not an unfinished end; cutting there could drop good blocks after it.
    if (scan->end == FileEnd::Corrupt) return scan->end_error;
    report.found = scan->end;
    report.gcs = scan->blocks.size();
    // A trailer whose index failed its checks also ends the scan as NoIndex: it is rewritten.
    if (report.found == FileEnd::NoIndex && format::has_trailer_magic(file.bytes())) report.found = FileEnd::Corrupt;
    uint64_t keep = header->header_size;
    if (!scan->blocks.empty()) {
      const GcEntry& last = scan->blocks.back().entry;
      keep = last.block_offset + last.block_size;
    }
    report.bytes_dropped = file.length - keep;
    file.unmap();
    if (!platform::resize_file(file.fd, keep)) return io_error("cannot cut the partial GC", keep);
    if (!platform::seek_file(file.fd, keep)) return io_error("cannot seek", keep);
    // The sink writes the index and trailer as a writer's close() does, then syncs and closes
    // its descriptor; ours stays open to undo a half-written index (a full disk): the file
    // then ends right after its last complete block, as a clean no-index file.
    const platform::FileHandle sink_fd = platform::duplicate_file(file.fd);
    if (sink_fd == platform::kNoFile) return io_error("cannot duplicate the descriptor", keep);
    Status written;
    {
      format::SectionSink sink(sink_fd, 1, true);
      sink.resume(keep, std::move(scan->blocks));
      written = sink.finish();
    }
    if (!written.is_ok()) {
      (void)platform::resize_file(file.fd, keep);
      return written;
    }
    return report;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "finishing the recording");
  }
}

}  // namespace gcsnap
