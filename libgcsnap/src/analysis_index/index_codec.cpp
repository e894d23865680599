// The coding of an analysis index array (format-spec.md §12.3, "Coding").
#include "analysis_index/index_codec.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include <zstd.h>

#include "platform/thread_cache.hpp"

namespace gcsnap::detail {

namespace {

constexpr int kLevel = 1;  // transformed integer columns gain nothing above (shared reference §1.3)

template <typename T>
T load(const unsigned char* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void store(unsigned char* p, T v) noexcept {
  std::memcpy(p, &v, sizeof v);
}

// The bytes of COUNT elements of VALUES into planes at PLANES, one loop per plane. The restrict
// pointers are what lets the compiler vectorize: a byte store may alias anything, so through the
// thread-cached vector it reloaded the vector's data pointer and stored a byte per iteration
// (the transform was ~20 % of the index build's coding).
template <typename T>
void split_planes(const T* __restrict values, size_t count, unsigned char* __restrict planes) noexcept {
  for (size_t b = 0; b < sizeof(T); ++b) {
    unsigned char* __restrict plane = planes + b * count;
    const unsigned shift = static_cast<unsigned>(8 * b);
    for (size_t k = 0; k < count; ++k) plane[k] = static_cast<unsigned char>(values[k] >> shift);
  }
}

// COUNT elements from IN, the first at array index FIRST, transformed into byte planes: the
// transform into VALUES first, then one loop per plane (no dependence between elements there).
template <typename T>
void forward_transform(const unsigned char* in, size_t count, uint64_t first, Transform t, unsigned char* planes) {
  if (t == Transform::None && reinterpret_cast<uintptr_t>(in) % alignof(T) == 0) {
    split_planes<T>(reinterpret_cast<const T*>(in), count, planes);  // an array's own elements: no copy
    return;
  }
  auto& cached = platform::thread_cached<std::vector<T>, struct ForwardValues>();
  cached.resize(count);
  T* __restrict values = cached.data();
  std::memcpy(values, in, count * sizeof(T));
  if (t == Transform::Delta) {
    T prev = 0;
    for (size_t k = 0; k < count; ++k) {
      const T v = values[k];
      values[k] = static_cast<T>(v - prev);
      prev = v;
    }
  } else if (t == Transform::Self) {
    for (size_t k = 0; k < count; ++k) values[k] = static_cast<T>(values[k] - static_cast<T>(first + k));
  }
  split_planes<T>(values, count, planes);
}

// Gather the planes into elements, then undo the transform in place: two loops, so that the
// first (the larger cost) has no dependence between elements and the compiler can vectorize it.
template <typename T>
void inverse_transform(const unsigned char* planes, size_t count, uint64_t first, Transform t, unsigned char* out) {
  const unsigned char* p[8] = {};
  for (size_t b = 0; b < sizeof(T); ++b) p[b] = planes + b * count;
  T* values = reinterpret_cast<T*>(out);  // OUT is the array's place in the image: aligned for T
  if constexpr (sizeof(T) == 4) {
    for (size_t k = 0; k < count; ++k)
      values[k] = static_cast<uint32_t>(p[0][k]) | static_cast<uint32_t>(p[1][k]) << 8 |
                  static_cast<uint32_t>(p[2][k]) << 16 | static_cast<uint32_t>(p[3][k]) << 24;
  } else {
    for (size_t k = 0; k < count; ++k)
      values[k] = static_cast<uint64_t>(p[0][k]) | static_cast<uint64_t>(p[1][k]) << 8 |
                  static_cast<uint64_t>(p[2][k]) << 16 | static_cast<uint64_t>(p[3][k]) << 24 |
                  static_cast<uint64_t>(p[4][k]) << 32 | static_cast<uint64_t>(p[5][k]) << 40 |
                  static_cast<uint64_t>(p[6][k]) << 48 | static_cast<uint64_t>(p[7][k]) << 56;
  }
  if (t == Transform::Delta) {
    T sum = 0;
    for (size_t k = 0; k < count; ++k) values[k] = sum = static_cast<T>(sum + values[k]);
  } else if (t == Transform::Self) {
    for (size_t k = 0; k < count; ++k) values[k] = static_cast<T>(values[k] + static_cast<T>(first + k));
  }
}

void transform(std::span<const unsigned char> in, uint64_t first, ArrayCoding c, unsigned char* out) {
  const size_t count = in.size() / c.width;
  if (c.width == 4) forward_transform<uint32_t>(in.data(), count, first, c.transform, out);
  else if (c.width == 8) forward_transform<uint64_t>(in.data(), count, first, c.transform, out);
  else std::memcpy(out, in.data(), in.size());
}

struct CCtx {
  ZSTD_CCtx* p = ZSTD_createCCtx();
  ~CCtx() { ZSTD_freeCCtx(p); }
};
struct DCtx {
  ZSTD_DCtx* p = ZSTD_createDCtx();
  ~DCtx() { ZSTD_freeDCtx(p); }
};

}  // namespace

namespace {

ZSTD_CCtx* frame_context() {
  CCtx& cctx = platform::thread_cached<CCtx>();
  if (!cctx.p) throw std::bad_alloc();
  ZSTD_CCtx_reset(cctx.p, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx.p, ZSTD_c_compressionLevel, kLevel);
  ZSTD_CCtx_setParameter(cctx.p, ZSTD_c_checksumFlag, 1);
  return cctx.p;
}

bool append_frame(ZSTD_CCtx* cctx, std::span<const unsigned char> piece, uint64_t first, ArrayCoding coding,
                  std::vector<unsigned char>& out) {
  auto& planes = platform::thread_cached<std::vector<unsigned char>, struct EncodePlanes>();
  planes.resize(piece.size());
  transform(piece, first, coding, planes.data());
  const size_t bound = ZSTD_compressBound(piece.size());
  const size_t start = out.size();
  out.resize(start + 4 + bound);
  const size_t n = ZSTD_compress2(cctx, out.data() + start + 4, bound, planes.data(), piece.size());
  if (ZSTD_isError(n) || n > UINT32_MAX) return false;
  store<uint32_t>(out.data() + start, static_cast<uint32_t>(n));
  out.resize(start + 4 + n);
  return true;
}

}  // namespace

bool encode_array(std::span<const unsigned char> raw, ArrayCoding coding, std::vector<unsigned char>& out) {
  ZSTD_CCtx* cctx = frame_context();
  for (size_t at = 0; at < raw.size(); at += kFrameBytes)
    if (!append_frame(cctx, raw.subspan(at, std::min(kFrameBytes, raw.size() - at)), at / coding.width, coding, out))
      return false;
  return true;
}

bool encode_frame(std::span<const unsigned char> raw, size_t index, ArrayCoding coding,
                  std::vector<unsigned char>& out) {
  const size_t at = index * kFrameBytes;
  if (at >= raw.size()) return false;
  return append_frame(frame_context(), raw.subspan(at, std::min(kFrameBytes, raw.size() - at)), at / coding.width,
                      coding, out);
}

std::optional<std::vector<std::span<const unsigned char>>> split_frames(std::span<const unsigned char> coded,
                                                                        uint64_t raw_bytes) {
  std::vector<uint64_t> starts;
  const auto length_at = [&](uint64_t at) -> std::optional<uint32_t> { return load<uint32_t>(coded.data() + at); };
  if (locate_pieces(coded.size(), raw_bytes, length_at, starts) != PieceWalk::Ok) return std::nullopt;
  std::vector<std::span<const unsigned char>> frames;
  frames.reserve(starts.size());
  for (size_t f = 0; f < starts.size(); ++f) {
    const auto at = static_cast<size_t>(starts[f]);
    const auto frame = coded.subspan(at + 4, load<uint32_t>(coded.data() + at));
    const uint64_t want = std::min<uint64_t>(kFrameBytes, raw_bytes - f * kFrameBytes);
    if (ZSTD_getFrameContentSize(frame.data(), frame.size()) != want) return std::nullopt;
    frames.push_back(frame);
  }
  return frames;
}

bool decode_frame(std::span<const unsigned char> frame, size_t index, ArrayCoding coding, std::span<unsigned char> out) {
  DCtx& dctx = platform::thread_cached<DCtx>();
  auto& planes = platform::thread_cached<std::vector<unsigned char>, struct DecodePlanes>();
  if (!dctx.p) throw std::bad_alloc();
  // One frame, exactly OUT's size: a frame that would decode to more, or that ends early, or
  // whose content checksum fails, is damaged.
  if (ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size()) return false;
  const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size != out.size()) return false;
  unsigned char* target = out.data();
  if (coding.width > 1) {
    planes.resize(out.size());
    target = planes.data();
  }
  const size_t n = ZSTD_decompressDCtx(dctx.p, target, out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n) || n != out.size()) return false;
  const uint64_t first = uint64_t{index} * kFrameBytes / coding.width;
  if (coding.width == 4) inverse_transform<uint32_t>(target, out.size() / 4, first, coding.transform, out.data());
  else if (coding.width == 8) inverse_transform<uint64_t>(target, out.size() / 8, first, coding.transform, out.data());
  return true;
}

}  // namespace gcsnap::detail
