#pragma once
// What the finish_recording tests share: a small recording written to bytes with where each
// block ends, and the check that a finished file is sound.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gcsnap/gcsnap.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

namespace gcsnap::test {

inline void write_bytes(const std::string& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

struct Sample {
  std::vector<ModelGc> model;
  std::vector<std::byte> bytes;
  std::vector<uint64_t> block_ends;  ///< where each complete block ends
};

inline Sample make_sample(uint64_t seed, size_t gcs) {
  ModelOptions mo;
  mo.max_objects = 12;
  mo.max_roots = 6;
  Sample s;
  s.model = make_random_gcs(seed, gcs, mo);
  const std::string path = temp_path("finish-src-" + std::to_string(seed));
  WriterOptions wo;
  wo.chunk_items = 5;  // several chunk sections per column: cuts land inside blocks often
  wo.background_compression = false;
  REQUIRE(write_model(path, s.model, wo).is_ok());
  s.bytes = read_file_bytes(path);
  std::remove(path.c_str());
  auto rec = Recording::from_bytes(s.bytes);
  REQUIRE(rec);
  for (const auto& e : (*rec)->gcs()) s.block_ends.push_back(e.block_offset + e.block_size);
  return s;
}

/// Every GC of the file at PATH passes verify_gc, and it ends complete.
inline void require_sound(const std::string& path, const Sample& s, size_t complete) {
  auto rec = Recording::open(path);
  REQUIRE(rec);
  const Recording& r = **rec;
  CHECK(r.end() == FileEnd::Complete);
  REQUIRE(r.gcs().size() == complete);
  CHECK(compare_with_model(r, s.model, complete) == "");
  for (size_t i = 0; i < r.gcs().size(); ++i) CHECK(r.verify_gc(i).is_ok());
}

}  // namespace gcsnap::test
