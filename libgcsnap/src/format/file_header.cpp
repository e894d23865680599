#include "format/file_header.hpp"

#include <cstring>

#include "format/byte_io.hpp"
#include "format/format_constants.hpp"
#include "format/section.hpp"

namespace gcsnap::format {

Result<FileHeader> parse_file_header(std::span<const uint8_t> file) noexcept {
  // §3: magic first, so that any other file says "not a gcsnap file" whatever its length.
  const size_t magic_len = file.size() < 8 ? file.size() : 8;
  if (file.empty() || std::memcmp(file.data(), kFileMagic, magic_len) != 0)  // an empty span may hold nullptr
    return make_error(ErrorCode::NotAGcsnapFile, "leading magic missing");
  if (file.size() < 12) return make_error(ErrorCode::Truncated, "file shorter than its header");
  FileHeader h;
  h.major = load_le16(file.data() + 8);
  h.minor = load_le16(file.data() + 10);
  if (h.major != kMajorVersion) return make_error(ErrorCode::UnsupportedVersion, "unknown major version", 8);
  if (file.size() < kFileHeaderSize) return make_error(ErrorCode::Truncated, "file shorter than its header");
  h.header_size = load_le32(file.data() + 12);
  // §3: a later minor version may grow the header; the checksum covers header_size - 8 bytes.
  if (h.header_size < kFileHeaderSize || h.header_size > 4096 || (h.header_size & 7) != 0)
    return make_error(ErrorCode::CorruptSection, "bad header size", 12);
  if (file.size() < h.header_size) return make_error(ErrorCode::Truncated, "file shorter than its header");
  const size_t body = h.header_size - 8;
  if (load_le64(file.data() + body) != checksum64(file.subspan(0, body)))
    return make_error(ErrorCode::ChecksumMismatch, "file header checksum", body);
  h.required_features = load_le64(file.data() + 16);
  h.optional_features = load_le64(file.data() + 24);
  if ((h.required_features & ~kKnownRequiredFeatures) != 0)
    return make_error(ErrorCode::UnknownRequiredFeature, "unknown required-feature bit", 16);
  return h;
}

bool has_trailer_magic(std::span<const uint8_t> file) noexcept {
  return file.size() >= kTrailerSize && std::memcmp(file.data() + file.size() - 8, kTrailerMagic, 8) == 0;
}

Result<Trailer> parse_trailer(std::span<const uint8_t> file, uint32_t header_size) noexcept {
  const uint64_t at = file.size() - kTrailerSize;
  const uint8_t* t = file.data() + at;
  if (load_le64(t + 16) != checksum64({t, 16})) return make_error(ErrorCode::ChecksumMismatch, "trailer checksum", at);
  Trailer tr;
  tr.block_index_offset = load_le64(t);
  tr.block_index_size = load_le64(t + 8);
  // §7.2: the index ends exactly where the trailer starts.
  if (tr.block_index_offset < header_size || tr.block_index_offset > at || tr.block_index_size != at - tr.block_index_offset ||
      tr.block_index_size < kSectionHeaderSize)
    return make_error(ErrorCode::CorruptSection, "trailer points outside the file", at);
  return tr;
}

}  // namespace gcsnap::format
