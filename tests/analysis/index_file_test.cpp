// Writing an index file (index_write.hpp's IndexFile) as a build does: what the build reads
// back of the arrays it wrote (the columns it gave back, the holder table's forward graph).
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis_index/index_layout.hpp"
#include "analysis_index/index_write.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;
namespace L = gcsnap::index_layout;

namespace {

template <typename T>
std::span<unsigned char> writable_bytes(std::vector<T>& v) {
  return {reinterpret_cast<unsigned char*>(v.data()), v.size() * sizeof(T)};
}

}  // namespace

TEST_CASE("an index array written before a failed write still reads back; one not written does not") {
  L::Counts counts;
  counts.nodes = 300000;  // the addresses take three frames
  const auto place = L::place(counts);
  REQUIRE(place);
  std::vector<uint64_t> addresses(counts.nodes), sizes(counts.nodes);
  for (size_t i = 0; i < addresses.size(); ++i) {
    addresses[i] = 0x7f0000001000 + 24 * i + 8 * (i % 7);
    sizes[i] = 24 + 8 * (i % 5);
  }
  for (const bool on_disk : {false, true}) {
    INFO("on disk: " << on_disk);
    TempFile index{"index-file", ".gcidx"};
    std::optional<detail::IndexFile> file;
    if (on_disk) {
      auto created = detail::IndexFile::create(index.path());
      REQUIRE(created);
      file.emplace(std::move(*created));
    } else {
      file.emplace(detail::IndexFile::in_memory());
    }
    file->write_array(L::kAddresses, *place, detail::index_bytes(std::span<const uint64_t>(addresses)));
    file->write_array(L::kSizes, *place, detail::index_bytes(std::span<const uint64_t>(sizes)));
    file->fail(EIO);  // a later array failed to write: the file will not be kept
    CHECK(file->written(L::kSizes));
    CHECK_FALSE(file->written(L::kTypeIds));
    std::vector<uint64_t> back(counts.nodes);
    REQUIRE(file->read_back(L::kAddresses, *place, writable_bytes(back)));
    CHECK(back == addresses);
    REQUIRE(file->read_back(L::kSizes, *place, writable_bytes(back)));
    CHECK(back == sizes);
    std::vector<uint32_t> type_ids(counts.nodes);
    CHECK_FALSE(file->read_back(L::kTypeIds, *place, writable_bytes(type_ids)));
    std::vector<uint64_t> short_out(counts.nodes - 1);
    CHECK_FALSE(file->read_back(L::kSizes, *place, writable_bytes(short_out)));
    CHECK_FALSE(file->finish({}).is_ok());
    CHECK_FALSE(std::filesystem::exists(index.path()));
  }
}
