#include "format/section.hpp"

#include <cstring>
#include <new>

#include <zstd.h>
#include "format/xxh3_wide.hpp"

#include "format/byte_io.hpp"
#include "platform/thread_cache.hpp"

namespace gcsnap::format {
namespace {

uint32_t header_checksum(const uint8_t* h) noexcept {
  uint8_t copy[kSectionHeaderSize];
  std::memcpy(copy, h, kSectionHeaderSize);
  std::memset(copy + 4, 0, 4);
  return static_cast<uint32_t>(xxh3_64(copy, kSectionHeaderSize));
}

// One compression/decompression context per thread: creating them costs more than a
// small chunk's compression.
struct ZstdContexts {
  ZSTD_CCtx* cctx = nullptr;
  ZSTD_DCtx* dctx = nullptr;
  bool cctx_ready = false;
  int cctx_level = 0;  // the level cctx's parameters were set for, when cctx_ready
  ~ZstdContexts() {
    ZSTD_freeCCtx(cctx);
    ZSTD_freeDCtx(dctx);
  }
};
ZstdContexts& t_zstd() { return platform::thread_cached<ZstdContexts>(); }

// §4.3: the reader never lets zstd use a window above 2^27 bytes.
constexpr int kWindowLogMax = 27;

// Return this thread's decompression context, or nullptr when zstd cannot create one or
// refuses the window limit (a context without the limit must not be used).
ZSTD_DCtx* thread_dctx() noexcept {
  if (!t_zstd().dctx) {
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    if (dctx && ZSTD_isError(ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, kWindowLogMax))) {
      ZSTD_freeDCtx(dctx);
      dctx = nullptr;
    }
    t_zstd().dctx = dctx;
  }
  return t_zstd().dctx;
}

// Long-distance matching finds the runs that repeat far apart inside a chunk (objects of one
// type laid out alike, hundreds of KiB apart): 3 % smaller objects sections at no measurable
// cost in CPU (bench, 1 M and 10 M objects; docs/performance.md). It only changes what the
// writer searches for: any zstd decoder reads the frames, within the reader's window limit
// (LDM raises zstd's default window to 2^27, the reader's limit; a single-shot decode into
// the section's buffer needs no window memory of its own).
// Return this thread's compression context set up for LEVEL. Throws std::bad_alloc when zstd
// cannot create one; returns nullptr when zstd refuses the parameters (then the caller stores
// the payload raw, as it does an incompressible one: the file stays valid, only larger).
ZSTD_CCtx* thread_cctx(int level) {
  if (!t_zstd().cctx) t_zstd().cctx = ZSTD_createCCtx();
  if (!t_zstd().cctx) throw std::bad_alloc();
  if (!t_zstd().cctx_ready || t_zstd().cctx_level != level) {
    t_zstd().cctx_ready = false;
    if (ZSTD_isError(ZSTD_CCtx_reset(t_zstd().cctx, ZSTD_reset_session_and_parameters)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(t_zstd().cctx, ZSTD_c_compressionLevel, level)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(t_zstd().cctx, ZSTD_c_enableLongDistanceMatching, 1)))
      return nullptr;
    t_zstd().cctx_level = level;
    t_zstd().cctx_ready = true;
  }
  return t_zstd().cctx;
}

}  // namespace

uint64_t checksum64(std::span<const uint8_t> bytes) noexcept { return xxh3_64(bytes.data(), bytes.size()); }

void encode_section_header(const SectionHeader& h, uint8_t* out) noexcept {
  store_le16(out, h.type);
  out[2] = static_cast<uint8_t>(h.codec);
  out[3] = h.flags;
  store_le32(out + 4, 0);
  store_le64(out + 8, h.item_count);
  store_le64(out + 16, h.stored_size);
  store_le64(out + 24, h.decoded_size);
  store_le64(out + 32, h.payload_checksum);
  store_le32(out + 4, header_checksum(out));
}

Result<SectionHeader> decode_section_header(std::span<const uint8_t> bytes, uint64_t file_offset) noexcept {
  if (bytes.size() < kSectionHeaderSize)
    return make_error(ErrorCode::Truncated, "section header cut short", file_offset);
  const uint8_t* p = bytes.data();
  if (load_le32(p + 4) != header_checksum(p))
    return make_error(ErrorCode::ChecksumMismatch, "section header checksum", file_offset);
  SectionHeader h;
  h.type = load_le16(p);
  uint8_t codec = p[2];
  h.flags = p[3];
  h.item_count = load_le64(p + 8);
  h.stored_size = load_le64(p + 16);
  h.decoded_size = load_le64(p + 24);
  h.payload_checksum = load_le64(p + 32);
  if (codec > static_cast<uint8_t>(Codec::Zstd))
    return make_error(ErrorCode::CorruptSection, "unknown section codec", file_offset);
  h.codec = static_cast<Codec>(codec);
  if (h.codec == Codec::Raw && h.stored_size != h.decoded_size)
    return make_error(ErrorCode::CorruptSection, "raw section sizes disagree", file_offset);
  return h;
}

void build_section(uint16_t type, uint64_t item_count, std::span<const uint8_t> payload, int level, ByteBuffer& out) {
  SectionHeader h;
  h.type = type;
  h.item_count = item_count;
  h.decoded_size = payload.size();
  const size_t start = out.size();
  bool compressed = false;
  if (level > kNoCompression && payload.size() > 64) {
    ZSTD_CCtx* cctx = thread_cctx(level);
    const size_t bound = ZSTD_compressBound(payload.size());
    // zstd writes into uninitialised room: no zero fill of the bound.
    uint8_t* dst = cctx ? out.room(kSectionHeaderSize + bound) + kSectionHeaderSize : nullptr;
    size_t n = cctx ? ZSTD_compress2(cctx, dst, bound, payload.data(), payload.size()) : payload.size();
    if (!ZSTD_isError(n) && n < payload.size()) {
      out.commit(kSectionHeaderSize + n);
      h.codec = Codec::Zstd;
      h.stored_size = n;
      compressed = true;
    }
  }
  if (!compressed) {
    uint8_t* dst = out.room(kSectionHeaderSize + payload.size());
    if (!payload.empty()) std::memcpy(dst + kSectionHeaderSize, payload.data(), payload.size());
    out.commit(kSectionHeaderSize + payload.size());
    h.codec = Codec::Raw;
    h.stored_size = payload.size();
  }
  h.payload_checksum = checksum64({out.data() + start + kSectionHeaderSize, static_cast<size_t>(h.stored_size)});
  encode_section_header(h, out.data() + start);
}

void build_section(uint16_t type, uint64_t item_count, std::span<const uint8_t> payload, int level,
                   std::vector<uint8_t>& out) {
  ByteBuffer b;
  build_section(type, item_count, payload, level, b);
  out.insert(out.end(), b.data(), b.data() + b.size());
}

Status check_payload_frame(const SectionHeader& h, std::span<const uint8_t> stored, uint64_t file_offset) noexcept {
  if (stored.size() != h.stored_size) return make_error(ErrorCode::Truncated, "section payload cut short", file_offset);
  return check_hashed_payload_frame(h, stored, file_offset, checksum64(stored));
}

Status check_hashed_payload_frame(const SectionHeader& h, std::span<const uint8_t> stored, uint64_t file_offset,
                                  uint64_t checksum) noexcept {
  if (stored.size() != h.stored_size) return make_error(ErrorCode::Truncated, "section payload cut short", file_offset);
  if (checksum != h.payload_checksum)
    return make_error(ErrorCode::ChecksumMismatch, "section payload checksum", file_offset);
  if (h.codec == Codec::Zstd) {
    // §4.3: the frame must declare its content size, equal to the header's, and fill the
    // payload. Checked before allocating, so a header's decoded_size alone never costs memory.
    unsigned long long declared = ZSTD_getFrameContentSize(stored.data(), stored.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR || declared == ZSTD_CONTENTSIZE_UNKNOWN || declared != h.decoded_size)
      return make_error(ErrorCode::DecompressionFailed, "zstd frame content size", file_offset);
    size_t frame = ZSTD_findFrameCompressedSize(stored.data(), stored.size());
    if (ZSTD_isError(frame) || frame != stored.size())
      return make_error(ErrorCode::DecompressionFailed, "zstd frame size", file_offset);
  }
  return {};
}

Status decode_payload(const SectionHeader& h, std::span<const uint8_t> stored, uint64_t file_offset,
                      std::vector<uint8_t>& out) noexcept {
  GCSNAP_RETURN_IF_ERROR(check_payload_frame(h, stored, file_offset));
  try {
    out.resize(static_cast<size_t>(h.decoded_size));
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "section payload", file_offset);
  }
  if (h.codec == Codec::Raw) {
    if (!stored.empty()) std::memcpy(out.data(), stored.data(), stored.size());
    return {};
  }
  ZSTD_DCtx* dctx = thread_dctx();
  if (!dctx) return make_error(ErrorCode::OutOfMemory, "zstd context (not created or refused the window limit)", file_offset);
  size_t n = ZSTD_decompressDCtx(dctx, out.data(), out.size(), stored.data(), stored.size());
  if (ZSTD_isError(n) || n != h.decoded_size)
    return make_error(ErrorCode::DecompressionFailed, "zstd rejected the frame", file_offset);
  return {};
}

}  // namespace gcsnap::format
