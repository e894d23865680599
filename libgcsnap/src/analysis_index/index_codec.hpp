#pragma once
// The coding of one analysis index array on disk (format-spec.md §12.3): frames of at most
// 1 MiB of the array's bytes, each transformed (a per-array rule: as is, delta from the element
// before, or difference from the element's own index; then the elements' bytes split into
// planes) and compressed as one zstd frame. Internal to the library.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gcsnap::detail {

/// How an array's elements are transformed before zstd (format-spec.md §12.3).
enum class Transform : uint8_t { None, Delta, Self };

struct ArrayCoding {
  uint8_t width = 1;  ///< element width in bytes: 1, 4 or 8
  Transform transform = Transform::None;
};

/// One frame holds this many bytes of an array (the last one fewer).
inline constexpr size_t kFrameBytes = size_t{1} << 20;

/// Append the coded form of RAW (whole elements of CODING's width) to OUT. Throws
/// std::bad_alloc; false when zstd fails.
bool encode_array(std::span<const unsigned char> raw, ArrayCoding coding, std::vector<unsigned char>& out);

/// Append frame number INDEX of the coded form of RAW (its length prefix and zstd frame: what
/// encode_array appends for that frame) to OUT, so that an array can be written a frame at a
/// time. Throws std::bad_alloc; false when zstd fails or RAW has no such frame.
bool encode_frame(std::span<const unsigned char> raw, size_t index, ArrayCoding coding,
                  std::vector<unsigned char>& out);

/// How a walk over an array's piece lengths ended (locate_pieces).
enum class PieceWalk : uint8_t {
  Ok,
  Short,       ///< a length runs past the coded bytes, or too few bytes for the pieces
  Long,        ///< bytes left after the last piece
  Unreadable,  ///< READ_LENGTH could not read a length (an I/O error)
};

/// Where each piece of a coded array starts (its u32 length, then its zstd frame), relative to
/// the array's first coded byte, into STARTS: a walk over the lengths, which must fill the
/// CODED_SIZE bytes exactly with as many pieces as RAW_BYTES need (format-spec.md §12.4 item 4).
/// READ_LENGTH(at) returns the u32 at AT, or nullopt when it cannot be read. The one frame
/// locator of the readers: over mapped bytes (split_frames) and over positioned reads
/// (IndexStream). Throws std::bad_alloc.
template <typename ReadLength>
PieceWalk locate_pieces(uint64_t coded_size, uint64_t raw_bytes, const ReadLength& read_length,
                        std::vector<uint64_t>& starts) {
  const uint64_t count = (raw_bytes + kFrameBytes - 1) / kFrameBytes;
  starts.clear();
  if (count > coded_size / 4) return PieceWalk::Short;  // cannot all fit: damage, not a large allocation
  starts.reserve(static_cast<size_t>(count));
  uint64_t at = 0;
  for (uint64_t p = 0; p < count; ++p) {
    if (coded_size - at < 4) return PieceWalk::Short;
    const std::optional<uint32_t> len = read_length(at);
    if (!len) return PieceWalk::Unreadable;
    if (*len > coded_size - at - 4) return PieceWalk::Short;
    starts.push_back(at);
    at += 4 + uint64_t{*len};
  }
  return at == coded_size ? PieceWalk::Ok : PieceWalk::Long;
}

/// The frames of a coded array of RAW_BYTES bytes (locate_pieces over CODED); nullopt when the
/// frame lengths do not fit CODED exactly or a frame does not say it decodes to its share of
/// RAW_BYTES.
std::optional<std::vector<std::span<const unsigned char>>> split_frames(std::span<const unsigned char> coded, uint64_t raw_bytes);

/// Decode frame number INDEX (its zstd bytes FRAME) of an array into OUT, that frame's bytes of
/// the array (kFrameBytes, or fewer for the last). False when it does not decode to exactly that.
bool decode_frame(std::span<const unsigned char> frame, size_t index, ArrayCoding coding, std::span<unsigned char> out);

}  // namespace gcsnap::detail
