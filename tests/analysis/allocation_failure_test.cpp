// The error contract under memory pressure (docs/library.md "Errors"): the identity and diff
// analyses return OutOfMemory when an allocation fails, they never let std::bad_alloc escape.
// This executable replaces the global operator new so that the N-th allocation on the test
// thread throws, and runs each analysis with N = 0, 1, 2, ... until one run needs no more.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <new>
#include <string>

#include "gcsnap/heap_diff.hpp"
#include "gcsnap/leak_suspects.hpp"
#include "gcsnap/object_diff.hpp"
#include "gcsnap/object_identity.hpp"
#include "gcsnap/root_summary.hpp"
#include "gcsnap/walk_diff.hpp"
#include "gcsnap/writer.hpp"
#include "platform/file_io.hpp"

namespace {
// Allocations left before one fails; negative: never fail. Per thread, so that only the
// calls under test fail (the reader decodes on the calling thread: object_decode_threads 1).
thread_local long t_allocations_left = -1;
}  // namespace

// malloc/free underneath, both ways, so that a sanitizer sees matching pairs. GCC cannot
// see that these replace the global pair and would warn that free() meets operator new.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t size) {
  if (t_allocations_left == 0) throw std::bad_alloc();
  if (t_allocations_left > 0) --t_allocations_left;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them): left to the
// runtime's own, they would meet the free() above and a sanitizer reports the mismatch.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (t_allocations_left == 0) return nullptr;
  if (t_allocations_left > 0) --t_allocations_left;
  return std::malloc(size ? size : 1);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return ::operator new(size, tag);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace gcsnap {
namespace {

// Run CALL with the n-th allocation failing, for every n up to the first run that completes;
// every run must end with OK or OutOfMemory. Returns how many failing runs there were.
size_t run_with_failures(const char* what, const std::function<ErrorCode()>& call) {
  for (long n = 0;; ++n) {
    ErrorCode code = ErrorCode::Ok;
    bool threw = false;
    t_allocations_left = n;
    try {
      code = call();
    } catch (...) {
      threw = true;
    }
    const bool exhausted = t_allocations_left == 0;
    t_allocations_left = -1;
    INFO(what << ": allocation " << n << " failed");
    REQUIRE(!threw);
    if (!exhausted) {
      CHECK(code == ErrorCode::Ok);  // the allocation budget was not used up: nothing failed
      return static_cast<size_t>(n);
    }
    CHECK((code == ErrorCode::OutOfMemory || code == ErrorCode::Ok));
  }
}

std::string write_recording() {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("gcsnap_oom_" + std::to_string(platform::current_process_id()) + ".snap")).string();
  auto w = Writer::create(path);
  REQUIRE(w.is_ok());
  Writer& writer = **w;
  const TypeRecord types[] = {{1, 0, "App.Node", ""}, {2, 0, "System.String", ""}};
  const MethodRecord methods[] = {{0xf1, "App.Program.Main"}};
  for (uint64_t gc = 1; gc <= 3; ++gc) {
    GcInfo info;
    info.gc_number = gc;
    info.generations_collected = 0x7;
    info.compacted = true;
    info.trigger = gc == 2 ? SnapshotTrigger::None : SnapshotTrigger::Policy;
    REQUIRE(writer.begin_gc(info).is_ok());
    if (gc == 1) {
      REQUIRE(writer.add_types(types).is_ok());
      REQUIRE(writer.add_methods(methods).is_ok());
    }
    // Every object moves up by 0x1000 at each GC; GC 3 has two new objects.
    const uint64_t base = 0x10000 + (gc - 1) * 0x1000;
    if (gc > 1) {
      const uint64_t old_start = base - 0x1000, new_start = base, length = 0x400;
      REQUIRE(writer.add_moved_ranges({&old_start, 1}, {&new_start, 1}, {&length, 1}).is_ok());
    }
    if (info.trigger != SnapshotTrigger::None) {
      std::vector<uint64_t> addresses, sizes;
      std::vector<uint32_t> type_ids, counts;
      std::vector<uint8_t> generations;
      std::vector<uint64_t> references;
      const size_t n = gc == 1 ? 8 : 10;
      for (size_t i = 0; i < n; ++i) {
        addresses.push_back(i < 8 ? base + i * 0x40 : base + 0x800 + i * 0x40);
        sizes.push_back(0x20);
        type_ids.push_back(i % 2 ? 2 : 1);
        generations.push_back(0);
        counts.push_back(i + 1 < n ? 1 : 0);
        if (i + 1 < n) references.push_back(i + 1 < 8 ? base + (i + 1) * 0x40 : base + 0x800 + (i + 1) * 0x40);
      }
      REQUIRE(writer.add_objects(addresses, type_ids, sizes, generations, counts, references).is_ok());
      const uint64_t root_objects[] = {base, base + 0x48};  // the second is interior
      const uint8_t kinds[] = {1, 3}, flags[] = {0, 0x4};
      const uint64_t root_ids[] = {0xf1, 7};
      REQUIRE(writer.add_roots(root_objects, kinds, flags, root_ids).is_ok());
      REQUIRE(writer.add_dependent_handles({}, {}).is_ok());
    }
    REQUIRE(writer.end_gc(info).is_ok());
  }
  REQUIRE(writer.close().is_ok());
  return path;
}

}  // namespace

TEST_CASE("identity and diff analyses return OutOfMemory instead of throwing", "[identity][diff][oom]") {
  const std::string path = write_recording();
  ReaderOptions options;
  options.object_decode_threads = 1;
  auto opened = Recording::open(path, {}, options);
  REQUIRE(opened.is_ok());
  const Recording& rec = **opened;
  REQUIRE(rec.gcs().size() == 3);
  auto a = read_heap_walk(rec, 0);
  auto b = read_heap_walk(rec, 2);
  REQUIRE(a.is_ok());
  REQUIRE(b.is_ok());
  // The fixture is what the diff below is about: 8 objects followed, 2 new ones.
  auto whole = diff_walks(rec, *a, *b);
  REQUIRE(whole.is_ok());
  CHECK(whole->surviving_count == 8);
  CHECK(whole->new_count == 2);

  size_t failing_runs = 0;
  failing_runs += run_with_failures("read_heap_walk", [&] { return read_heap_walk(rec, 2).status().code(); });
  failing_runs += run_with_failures("diff_walks", [&] { return diff_walks(rec, *a, *b, 1).status().code(); });
  failing_runs += run_with_failures("diff_walks reversed", [&] { return diff_walks(rec, *b, *a).status().code(); });
  failing_runs += run_with_failures("diff_roots_by_content", [&] { return diff_roots_by_content(*a, *b).status().code(); });
  failing_runs += run_with_failures("follow_address", [&] { return follow_address(rec, 0, a->objects.addresses[3]).status().code(); });
  failing_runs += run_with_failures("count_by_type + diff_by_type", [&] {
    auto ta = count_by_type(a->objects, a->names);
    if (!ta) return ta.error().code;
    auto tb = count_by_type(b->objects, b->names);
    if (!tb) return tb.error().code;
    return diff_by_type(*ta, *tb, true).status().code();
  });
  failing_runs += run_with_failures("diff_roots + summarize_root_diff", [&] {
    auto roots = diff_roots(a->roots, {}, b->roots);
    if (!roots) return roots.error().code;
    return summarize_root_diff(a->roots, b->roots, *roots).status().code();
  });
  failing_runs += run_with_failures("summarize_roots", [&] { return summarize_roots(b->roots).status().code(); });
  failing_runs += run_with_failures("filter_roots", [&] { return filter_roots(b->roots, 0, 0).status().code(); });
  const std::vector<size_t> rows = {0, 1, 2, 3};
  failing_runs += run_with_failures("group_by_type",
                                    [&] { return group_by_type(b->objects, b->names, rows).status().code(); });
  const Recording* recordings[] = {&rec};
  LeakOptions leak_options;
  leak_options.min_walks = 2;
  failing_runs += run_with_failures("find_leak_suspects",
                                    [&] { return find_leak_suspects(recordings, leak_options).status().code(); });
  failing_runs += run_with_failures("identify_app", [&] { return identify_app(rec).status().code(); });
  const uint32_t chain[] = {1, 2, 2, 2, 3};
  failing_runs += run_with_failures("collapse_repeats", [&] { return collapse_repeats(chain).status().code(); });
  // Every call above allocates, so every one of them was made to fail at least once.
  CHECK(failing_runs >= 13);
  std::filesystem::remove(path);
}

}  // namespace gcsnap
