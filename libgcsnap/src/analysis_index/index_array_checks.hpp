#pragma once
// The machinery of checking an analysis index's arrays (format-spec.md §12.4 item 4) on the
// image read_analysis_index decodes them into: an array handed over in chunks that are hashed
// as they are checked, and the jobs of one read run on two threads. Internal to the library.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <system_error>
#include <thread>
#include <vector>

#include "format/xxh3_wide.hpp"

#include "analysis_index/index_layout.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::detail {

namespace L = index_layout;

// Run WORK (which takes its share from a queue both calls pull from) on this thread and, when
// HELP, on a second one at the same time; without a thread to be had, this one does it all.
template <typename Work>
void run_on_two_threads(Work& work, bool help) {
  std::thread helper;
  if (help) {
    try {
      helper = std::thread(std::ref(work));
    } catch (const std::system_error&) {
    }
  }
  work();
  if (helper.joinable()) helper.join();
}

inline Error damaged(ErrorCode code, const char* detail, uint64_t offset = 0) { return make_error(code, detail, offset); }

// The checks read each array in chunks of this size: small enough to stay in the L2 cache
// between the rules and the hash, large enough that a read costs little per byte.
constexpr size_t kChunk = size_t{1} << 20;

// BadSecondElement: a job checking two arrays found a bad element in the second.
enum class ArrayCheck : uint8_t { Ok, BadElement, BadSecondElement, BadChecksum, Unreadable };

// Where the checks read an index from: the decoded image, in place.
class Source {
 public:
  explicit Source(std::span<const std::byte> bytes) : bytes_(bytes) {}
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  std::span<const std::byte> bytes() const noexcept { return bytes_; }
  /// LEN bytes at AT, 8-byte aligned.
  const std::byte* read(uint64_t at, size_t) const noexcept { return bytes_.data() + at; }
  int error() const noexcept { return 0; }

 private:
  std::span<const std::byte> bytes_;
};

// Check array WHICH: hand its bytes to VISIT chunk by chunk, whole records of RECORD bytes each
// (VISIT(data, length, index of the first record) returns false on a bad element), hashing each
// chunk after it, then compare with the array's checksum (§12.2).
template <typename Visit>
ArrayCheck chunks(Source& src, const L::Placement& place, size_t which, size_t record, Visit&& visit) {
  const uint64_t begin = place.offset[which], end = begin + place.bytes[which];
  XXH3_state_t hash;
  XXH3_64bits_reset(&hash);
  const size_t per_chunk = kChunk / record * record;
  for (uint64_t at = begin; at < end;) {
    const size_t len = static_cast<size_t>(std::min<uint64_t>(end - at, per_chunk));
    const std::byte* data = src.read(at, len);
    if (!data) return ArrayCheck::Unreadable;
    if (!visit(data, len, (at - begin) / record)) return ArrayCheck::BadElement;
    format::xxh3_update(&hash, data, len);
    at += len;
  }
  const uint64_t expected = L::load<uint64_t>(src.bytes().data() + L::hash_offset(which));
  return XXH3_64bits_digest(&hash) == expected ? ArrayCheck::Ok : ArrayCheck::BadChecksum;
}

// Records one by one: CHECK(first field as T, record bytes, record index) -> bool. The root's
// node and the type's id are the fields handed over.
static_assert(L::kRootNode == 0 && L::kTypeId == 0 && L::kDependentPrimary == 0);
template <typename T, typename Check>
ArrayCheck each(Source& src, const L::Placement& place, size_t which, size_t record, Check&& check) {
  return chunks(src, place, which, record, [&](const std::byte* data, size_t len, uint64_t first) {
    for (size_t at = 0; at < len; at += record, ++first)
      if (!check(L::load<T>(data + at), data + at, first)) return false;
    return true;
  });
}

// Plain arrays a chunk at a time: RULE(const T* values, count, index of the first) -> bool. The
// rules are written as branch-free reductions over the chunk, so the compiler can vectorize them.
template <typename T, typename Rule>
ArrayCheck typed(Source& src, const L::Placement& place, size_t which, Rule&& rule) {
  return chunks(src, place, which, sizeof(T), [&](const std::byte* data, size_t len, uint64_t first) {
    return rule(reinterpret_cast<const T*>(data), len / sizeof(T), first);
  });
}

// The checks of one read: jobs added in the order of §12.3, run by this thread and (for a large
// index) one more, since a 10 M-object index has ~500 MB to hash for one question. A job owns
// the state its rules keep; jobs share nothing but the results they copy out (roots, types).
class CheckJobs {
 public:
  /// RULE names a bad element (SECOND_RULE: one in the second array of a two-array job).
  void add(const char* rule, std::function<ArrayCheck(Source&)> run, const char* second_rule = "") {
    jobs_.push_back(Job{rule, second_rule, std::move(run), ArrayCheck::Ok, 0});
  }

  /// Run every job; the error of the first that failed, in the order they were added.
  std::optional<Error> run(std::span<const std::byte> bytes, uint64_t file_size);

 private:
  struct Job {
    const char* rule;
    const char* second_rule;
    std::function<ArrayCheck(Source&)> run;
    ArrayCheck result;
    int error;
  };
  std::vector<Job> jobs_;
  std::atomic<bool> out_of_memory_{false};
};

}  // namespace gcsnap::detail
