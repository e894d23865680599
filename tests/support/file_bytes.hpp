#pragma once
// Whole-file bytes for tests that damage an index or a recording in place: read it, poke a
// value at an offset, write it back, and re-seal an index header after a forged field.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

// xxhash is header-only here, as in the library.
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "analysis_index/index_layout.hpp"

namespace gcsnap::test {

inline std::vector<char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Same-size contents are written in place: Windows cannot truncate a file mapped in memory,
// and a test may still hold an index read from PATH.
inline void spit(const std::string& path, const std::vector<char>& bytes) {
  std::error_code ec;
  const bool same_size = std::filesystem::file_size(path, ec) == bytes.size() && !ec;
  std::fstream out(path, std::ios::binary | std::ios::out | (same_size ? std::ios::in : std::ios::trunc));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// FROM moved onto TO, replacing it: Windows' rename refuses an existing target, so TO goes
// first (nothing may still hold it open or mapped).
inline bool replace_file(const std::string& from, const std::string& to) {
  std::remove(to.c_str());
  return std::rename(from.c_str(), to.c_str()) == 0;
}

template <typename T>
T load_at(const std::vector<char>& b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

template <typename T>
void store_at(std::vector<char>& b, size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}

// An index header's own hash recomputed, so that a forged header field is read, not refused.
inline void rehash_index_header(std::vector<char>& b) {
  store_at<uint64_t>(b, index_layout::kOffHeaderHash, XXH3_64bits(b.data(), index_layout::kOffHeaderHash));
}

}  // namespace gcsnap::test
