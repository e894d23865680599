// Recording: opening a file (index first, recovery scan otherwise; format-spec.md §7, §8).
#include <cerrno>
#include <new>

#include "format/block_scan.hpp"
#include "format/file_header.hpp"
#include "format/format_constants.hpp"
#include "format/block_index.hpp"
#include "format/reader_impl.hpp"
#include "platform/file_io.hpp"
#include "platform/memory_map.hpp"

namespace gcsnap {

Recording::Impl::~Impl() {
  if (map_address) platform::unmap_file(map_address, map_length);
}

Status Recording::Impl::check_index(size_t i) const noexcept {
  if (i >= gcs.size()) return make_error(ErrorCode::NotFound, "no GC with this index");
  return {};
}

Result<std::vector<format::SectionRef>> Recording::Impl::sections_of(size_t i, format::SectionType type) const {
  GCSNAP_RETURN_IF_ERROR(check_index(i));
  auto refs = format::walk_block(data, summaries[i], limits);
  if (!refs) return refs.error();
  std::vector<format::SectionRef> out;
  for (const auto& r : *refs)
    if (r.header.type == static_cast<uint16_t>(type)) out.push_back(r);
  return out;
}

namespace {

// §6.17: a walked GC whose walk lost sections to the size cap. Only walked GCs can have them;
// a block that does not walk cleanly is left as it is (reading it reports the damage).
void note_dropped_walks(Recording::Impl& impl) {
  for (size_t i = 0; i < impl.gcs.size(); ++i) {
    GcEntry& e = impl.gcs[i];
    if (e.info.trigger == SnapshotTrigger::None) continue;
    auto refs = format::walk_block(impl.data, impl.summaries[i], impl.limits);
    if (!refs) continue;
    for (const auto& r : *refs) {
      if (r.header.type != static_cast<uint16_t>(format::SectionType::Dropped)) continue;
      ++e.dropped_sections;
      e.dropped_bytes += r.header.stored_size;
    }
  }
}

Status open_impl(Recording::Impl& impl) {
  auto file = impl.data;
  auto header = format::parse_file_header(file);
  if (!header) return header.error();
  impl.major = header->major;
  impl.minor = header->minor;
  impl.required_features = header->required_features;
  Error index_error{};
  bool had_trailer = false;
  if (file.size() >= header->header_size + format::kTrailerSize && format::has_trailer_magic(file)) {
    had_trailer = true;
    auto trailer = format::parse_trailer(file, header->header_size);
    auto index = trailer ? format::read_block_index(file, *trailer, header->header_size, impl.limits)
                         : Result<std::vector<format::GcSummary>>(trailer.error());
    if (index) {
      impl.summaries = std::move(*index);
      impl.end = FileEnd::Complete;
      impl.end_offset = file.size();
    } else if (index.error().code == ErrorCode::LimitExceeded || index.error().code == ErrorCode::OutOfMemory) {
      return index.error();
    } else {
      index_error = index.error();
    }
  }
  if (!had_trailer || index_error.code != ErrorCode::Ok) {
    auto scan = format::scan_blocks(file, header->header_size, impl.limits);
    if (!scan) return scan.error();
    impl.summaries = std::move(scan->blocks);
    impl.end = scan->end;
    impl.end_offset = scan->end_offset;
    impl.end_error = scan->end_error;
    // §8: a trailer whose index cannot be used makes the file corrupt, even if every block is whole.
    if (index_error.code != ErrorCode::Ok && impl.end == FileEnd::NoIndex) {
      impl.end = FileEnd::Corrupt;
      impl.end_error = index_error;
    }
  }
  impl.gcs.reserve(impl.summaries.size());
  for (const auto& s : impl.summaries) impl.gcs.push_back(s.entry);
  note_dropped_walks(impl);
  return {};
}

}  // namespace

Recording::Recording(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Recording::~Recording() = default;

Result<std::unique_ptr<Recording>> Recording::from_bytes(std::span<const std::byte> bytes, const ReaderLimits& limits,
                                                        const ReaderOptions& options) {
  try {
    auto impl = std::make_unique<Impl>();
    impl->data = {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
    impl->limits = limits;
    impl->options = options;
    GCSNAP_RETURN_IF_ERROR(open_impl(*impl));
    return std::unique_ptr<Recording>(new Recording(std::move(impl)));
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "opening the recording");
  }
}

Result<std::unique_ptr<Recording>> Recording::open(const std::string& path, const ReaderLimits& limits,
                                                  const ReaderOptions& options) {
  auto io_error = [](const char* what) {
    Error e = make_error(ErrorCode::IoError, what);
    e.sys_errno = errno;
    return e;
  };
  platform::FileHandle fd = platform::open_file(path, platform::OpenMode::Read);
  if (fd == platform::kNoFile) return io_error("cannot open the file");
  platform::FileInfo st;
  if (!platform::file_info(fd, st)) {
    Error e = io_error("cannot stat the file");
    platform::close_file(fd);
    return e;
  }
  if (!st.regular) {
    platform::close_file(fd);
    return make_error(ErrorCode::IoError, "not a regular file");
  }
  try {
    auto impl = std::make_unique<Impl>();
    impl->limits = limits;
    impl->options = options;
    if (st.size > 0) {
      void* p = platform::map_file(fd, static_cast<size_t>(st.size), false);
      if (!p) {
        Error e = io_error("cannot map the file");
        platform::close_file(fd);
        return e;
      }
      impl->map_address = p;
      impl->map_length = static_cast<size_t>(st.size);
      impl->data = {static_cast<const uint8_t*>(p), impl->map_length};
    }
    platform::close_file(fd);
    fd = platform::kNoFile;
    GCSNAP_RETURN_IF_ERROR(open_impl(*impl));
    return std::unique_ptr<Recording>(new Recording(std::move(impl)));
  } catch (const std::bad_alloc&) {
    if (fd != platform::kNoFile) platform::close_file(fd);
    return make_error(ErrorCode::OutOfMemory, "opening the recording");
  }
}

std::span<const GcEntry> Recording::gcs() const noexcept { return impl_->gcs; }
FileEnd Recording::end() const noexcept { return impl_->end; }
uint64_t Recording::end_offset() const noexcept { return impl_->end_offset; }
const Error& Recording::end_error() const noexcept { return impl_->end_error; }
uint64_t Recording::file_size() const noexcept { return impl_->data.size(); }
uint16_t Recording::major_version() const noexcept { return impl_->major; }
uint16_t Recording::minor_version() const noexcept { return impl_->minor; }
uint64_t Recording::required_features() const noexcept { return impl_->required_features; }

std::optional<size_t> Recording::find_gc(uint64_t gc_number) const noexcept {
  const auto& g = impl_->gcs;
  size_t lo = 0, hi = g.size();
  while (lo < hi) {  // GC numbers increase (§6.1), so binary search
    size_t mid = lo + (hi - lo) / 2;
    if (g[mid].info.gc_number < gc_number) lo = mid + 1;
    else hi = mid;
  }
  if (lo < g.size() && g[lo].info.gc_number == gc_number) return lo;
  return std::nullopt;
}

std::optional<size_t> Recording::last_snapshot() const noexcept {
  const auto& g = impl_->gcs;
  for (size_t i = g.size(); i-- > 0;)
    if (g[i].has_heap_walk()) return i;
  return std::nullopt;
}

std::string_view file_end_name(FileEnd end) noexcept {
  switch (end) {
    case FileEnd::Complete: return "complete";
    case FileEnd::NoIndex: return "no-index";
    case FileEnd::Truncated: return "truncated";
    case FileEnd::Corrupt: return "corrupt";
  }
  return "unknown";
}

}  // namespace gcsnap
