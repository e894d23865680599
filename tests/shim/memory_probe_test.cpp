// The memory probe's parsers (format-spec.md §6.16) on smaps and cgroup text shaped like the
// kernel's, and one read of this test process's own figures.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "memory_probe.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::shim;

namespace {

constexpr uint64_t kKiB = 1024;

// One smaps entry: a header line and the three fields the probe reads (plus one it skips).
std::string mapping(const char* range, const char* perms, const char* path, uint64_t rss_kb, uint64_t pss_kb = 0,
                    uint64_t swap_kb = 0) {
  std::string s = std::string(range) + " " + perms + " 00000000 00:00 0";
  if (*path) s += std::string("                    ") + path;
  s += "\nSize:               4 kB\nRss:          " + std::to_string(rss_kb) + " kB\nPss:          " +
       std::to_string(pss_kb ? pss_kb : rss_kb) + " kB\nSwap:          " + std::to_string(swap_kb) +
       " kB\nVmFlags: rd wr mr mw me ac\n";
  return s;
}

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST_CASE("account_mappings splits resident memory by the GC's ranges and mapping kinds") {
  std::string smaps;
  smaps += mapping("400000-500000", "r-xp", "/usr/lib/libcoreclr.so", 600);
  smaps += mapping("500000-540000", "r--p", "/app/App.dll", 200);
  smaps += mapping("600000-601000", "---p", "", 0);  // a thread's guard page
  smaps += mapping("601000-700000", "rw-p", "", 300);  // ... and its stack
  smaps += mapping("700000-780000", "r-xp", "/memfd:doublemapper (deleted)", 100);
  smaps += mapping("780000-800000", "rw-s", "/memfd:doublemapper (deleted)", 50);
  smaps += mapping("1000000-1400000", "rw-p", "", 4096);    // 4 MiB, all of it a GC range
  smaps += mapping("1400000-1c00000", "---p", "", 0);      // reserved, not committed
  smaps += mapping("2000000-2800000", "rw-p", "", 8000, 0, 16);  // half inside a GC range
  smaps += mapping("7ffd000-7fff000", "rw-p", "[stack]", 8, 4);
  smaps += mapping("9000000-9100000", "rw-p", "[heap]", 1000);
  GenerationRange bounds[] = {{Generation::Gen2, 0x1000000, 0x200000, 0xc00000},
                              {Generation::LargeObjectHeap, 0x2400000, 0x100000, 0x400000}};
  MemoryAccounting m;
  account_mappings(smaps, bounds, m);
  CHECK(m.has(memory_present::kProcess | memory_present::kGcMappings));
  CHECK(m.rss_bytes == (600 + 200 + 300 + 100 + 50 + 4096 + 8000 + 8 + 1000) * kKiB);
  CHECK(m.pss_bytes == m.rss_bytes - 4 * kKiB);
  CHECK(m.swap_bytes == 16 * kKiB);
  CHECK(m.gc_committed_bytes == 0x400000 + 0x400000);
  CHECK(m.gc_resident_bytes == (4096 + 4000) * kKiB);
  CHECK(m.code_bytes == (600 + 100 + 50) * kKiB);
  CHECK(m.mapped_file_bytes == 200 * kKiB);
  CHECK(m.stack_bytes == (300 + 8) * kKiB);
  CHECK(m.anonymous_bytes == (4000 + 1000) * kKiB);
  CHECK(m.code_bytes + m.mapped_file_bytes + m.stack_bytes + m.anonymous_bytes + m.gc_resident_bytes == m.rss_bytes);
}

TEST_CASE("account_mappings skips lines it cannot read") {
  MemoryAccounting m;
  account_mappings("garbage line\nRss: lots kB\n1000-zz rw-p 0 0 0\n" + mapping("1000-2000", "rw-p", "", 4), {}, m);
  CHECK(m.rss_bytes == 4 * kKiB);
  CHECK(m.anonymous_bytes == 4 * kKiB);
  MemoryAccounting empty;
  account_mappings("", {}, empty);
  CHECK(empty.rss_bytes == 0);
}

TEST_CASE("account_cgroup reads v2 usage and the smallest limit up the tree") {
  const std::filesystem::path root = test::temp_path("cgroup-v2", "");
  write_text(root / "sys/fs/cgroup/pods/app/memory.current", "123456\n");
  write_text(root / "sys/fs/cgroup/pods/app/memory.max", "max\n");
  write_text(root / "sys/fs/cgroup/pods/memory.max", "1073741824\n");
  MemoryAccounting m;
  account_cgroup("0::/pods/app\n", root.string(), m);
  CHECK(m.has(memory_present::kCgroupUsage | memory_present::kCgroupLimit));
  CHECK(m.cgroup_usage_bytes == 123456);
  CHECK(m.cgroup_limit_bytes == 1073741824);

  // A cgroup namespace: the group's own path is not visible, its files are at the root.
  write_text(root / "sys/fs/cgroup/memory.current", "777\n");
  MemoryAccounting ns;
  account_cgroup("0::/elsewhere\n", root.string(), ns);
  CHECK(ns.cgroup_usage_bytes == 777);
  CHECK_FALSE(ns.has(memory_present::kCgroupLimit));
  std::filesystem::remove_all(root);
}

TEST_CASE("account_cgroup reads v1 and treats its huge limit as none") {
  const std::filesystem::path root = test::temp_path("cgroup-v1", "");
  write_text(root / "sys/fs/cgroup/memory/box/memory.usage_in_bytes", "5000\n");
  write_text(root / "sys/fs/cgroup/memory/box/memory.limit_in_bytes", "9223372036854771712\n");
  MemoryAccounting m;
  account_cgroup("9:name=systemd:/\n4:memory:/box\n0::/\n", root.string(), m);
  CHECK(m.cgroup_usage_bytes == 5000);
  CHECK(m.has(memory_present::kCgroupUsage));
  CHECK_FALSE(m.has(memory_present::kCgroupLimit));
  MemoryAccounting none;
  account_cgroup("garbage\n", root.string(), none);
  CHECK(none.present == 0);
  std::filesystem::remove_all(root);
}

TEST_CASE("MemoryProbe reads this process's own figures") {
  MemoryProbe probe;
  MemoryAccounting m;
  probe.read({}, m);
  REQUIRE(m.has(memory_present::kProcess));
  CHECK(m.rss_bytes > 1024 * kKiB);
  CHECK(m.code_bytes > 0);
  CHECK(m.gc_committed_bytes == 0);
}
