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

/// The frames of a coded array of RAW_BYTES bytes; nullopt when the frame lengths do not fit
/// CODED exactly or a frame does not say it decodes to its share of RAW_BYTES.
std::optional<std::vector<std::span<const unsigned char>>> split_frames(std::span<const unsigned char> coded, uint64_t raw_bytes);

/// Decode frame number INDEX (its zstd bytes FRAME) of an array into OUT, that frame's bytes of
/// the array (kFrameBytes, or fewer for the last). False when it does not decode to exactly that.
bool decode_frame(std::span<const unsigned char> frame, size_t index, ArrayCoding coding, std::span<unsigned char> out);

}  // namespace gcsnap::detail
