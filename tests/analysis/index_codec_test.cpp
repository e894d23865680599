// The coding of an analysis index array (format-spec.md §12.3): each frame's zstd content is the
// transformed elements' byte planes, whatever the input's alignment in memory, and decodes back.
#include "analysis_index/index_codec.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include <catch2/catch.hpp>
#include <zstd.h>

using namespace gcsnap::detail;

namespace {

// The planes of frame INDEX of RAW as the format defines them, element by element: the
// transform of each element, then its byte B at plane B.
std::vector<unsigned char> reference_planes(std::span<const unsigned char> raw, size_t index, ArrayCoding c) {
  const size_t at = index * kFrameBytes;
  const size_t bytes = std::min(kFrameBytes, raw.size() - at);
  const size_t count = bytes / c.width;
  std::vector<unsigned char> planes(bytes);
  uint64_t prev = 0;
  for (size_t k = 0; k < count; ++k) {
    uint64_t v = 0;
    std::memcpy(&v, raw.data() + at + k * c.width, c.width);
    uint64_t t = v;
    if (c.transform == Transform::Delta) t = v - prev;
    if (c.transform == Transform::Self) t = v - (at / c.width + k);
    prev = v;
    for (size_t b = 0; b < c.width; ++b) planes[b * count + k] = static_cast<unsigned char>(t >> (8 * b));
  }
  return planes;
}

// RAW's coded frames, each checked against reference_planes and decoded back into OUT.
void check_frames(std::span<const unsigned char> raw, ArrayCoding c, const std::vector<unsigned char>& coded) {
  auto frames = split_frames(coded, raw.size());
  REQUIRE(frames);
  REQUIRE(frames->size() == (raw.size() + kFrameBytes - 1) / kFrameBytes);
  std::vector<unsigned char> back(raw.size());
  for (size_t f = 0; f < frames->size(); ++f) {
    const auto want = reference_planes(raw, f, c);
    std::vector<unsigned char> planes(want.size());
    const size_t n = ZSTD_decompress(planes.data(), planes.size(), (*frames)[f].data(), (*frames)[f].size());
    REQUIRE(n == want.size());
    REQUIRE((planes == want));  // a bool: Catch would print 1 MiB vectors
    const size_t at = f * kFrameBytes;
    REQUIRE(decode_frame((*frames)[f], f, c, std::span(back).subspan(at, want.size())));
  }
  REQUIRE(std::equal(back.begin(), back.end(), raw.begin(), raw.end()));
}

}  // namespace

TEST_CASE("an index array codes to the format's byte planes at any alignment, and decodes back") {
  const ArrayCoding coding = GENERATE(ArrayCoding{4, Transform::None}, ArrayCoding{4, Transform::Delta},
                                      ArrayCoding{4, Transform::Self}, ArrayCoding{8, Transform::None},
                                      ArrayCoding{8, Transform::Delta}, ArrayCoding{1, Transform::None});
  // Rising values with random low bits (as addresses and node ids are): two whole frames and
  // a part, so that frames after the first (their element index, their own delta) are covered.
  std::mt19937_64 rng(coding.width * 10 + static_cast<unsigned>(coding.transform));
  const size_t count = (2 * kFrameBytes + 4096 + 8) / coding.width;
  std::vector<unsigned char> raw(count * coding.width);
  uint64_t v = 0x7f00'0000'0000;
  for (size_t k = 0; k < count; ++k) {
    v += rng() % 4096;
    std::memcpy(raw.data() + k * coding.width, &v, coding.width);
  }
  std::vector<unsigned char> aligned;
  REQUIRE(encode_array(raw, coding, aligned));
  check_frames(raw, coding, aligned);

  // The same elements one byte off their alignment code to the same bytes.
  std::vector<unsigned char> shifted_store(raw.size() + 1);
  std::memcpy(shifted_store.data() + 1, raw.data(), raw.size());
  const std::span<const unsigned char> shifted(shifted_store.data() + 1, raw.size());
  std::vector<unsigned char> from_shifted;
  REQUIRE(encode_array(shifted, coding, from_shifted));
  REQUIRE((from_shifted == aligned));

  // A frame at a time, as the build writes an array, gives the same bytes too.
  std::vector<unsigned char> framed;
  for (size_t f = 0; f * kFrameBytes < raw.size(); ++f) REQUIRE(encode_frame(raw, f, coding, framed));
  REQUIRE((framed == aligned));
}
