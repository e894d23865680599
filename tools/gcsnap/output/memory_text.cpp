#include "output/memory_text.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "output/output.hpp"

namespace gcsnap::cli {
namespace {

// Advice thresholds: a share of the resident memory, or of the managed heap.
constexpr double kMostlyNative = 0.5;
constexpr double kMostlyFree = 0.5;
constexpr uint64_t kWorthSaying = 16ull << 20;  // below this, free space is not a problem
constexpr size_t kNamedHolders = 5;
// Native and other memory is the .NET runtime's own (code, mapped files, its heaps) up to this
// much: 50-86 MiB measured in the e2e sample app on .NET 8-11 under record, 130 MiB in the e2e
// ASP.NET Core service (docs/cli.md "gcsnap info").
constexpr uint64_t kRuntimeBaseline = 192ull << 20;
// Growth of native and other memory that points at native allocations: small apps grow it by
// up to 30 MiB between their first and last GC (startup, gcsnap's buffers), and the GC's own
// bookkeeping grows with the managed heap (+17 to +36 MiB beside a 256 MiB managed leak).
constexpr uint64_t kNativeGrowth = 64ull << 20;

double share(uint64_t part, uint64_t whole) { return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0; }

std::string percent(uint64_t part, uint64_t whole) { return fmt::format("{:.0f} %", 100 * share(part, whole)); }

int64_t delta(uint64_t from, uint64_t to) { return static_cast<int64_t>(to) - static_cast<int64_t>(from); }

// The kinds of non-managed memory, largest first: "anonymous 1.2 GiB, code 80.0 MiB, ...".
std::string native_parts(const MemoryAccounting& m) {
  std::vector<std::pair<uint64_t, const char*>> parts = {{m.app_anonymous_bytes(), "anonymous (native allocations)"},
                                                        {m.code_bytes, "code"},
                                                        {m.mapped_file_bytes, "mapped files"},
                                                        {m.stack_bytes, "thread stacks"}};
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s;
  for (const auto& [bytes, name] : parts) {
    if (!bytes) continue;
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", name, format_bytes(bytes));
  }
  return s;
}

// Pinned handles and pinned-object-heap or large objects of GC I's walk, largest first, named
// by type: what can keep free space between objects from being compacted away.
std::vector<std::string> fragmentation_holders(const Recording& r, size_t i, uint64_t& pinned_roots) {
  std::vector<std::string> out;
  pinned_roots = 0;
  auto roots = r.read_roots(i);
  auto objects = r.gcs()[i].has_heap_walk() ? r.read_objects(i) : Result<ObjectTable>(make_error(ErrorCode::NoHeapWalk, ""));
  auto names = r.read_names(i);
  if (!roots || !objects || !names) return out;
  std::vector<uint64_t> pinned;
  for (size_t k = 0; k < roots->object_ids.size(); ++k)
    if ((roots->flags[k] & root_flags::kPinning) && roots->object_ids[k]) pinned.push_back(roots->object_ids[k]);
  std::sort(pinned.begin(), pinned.end());
  pinned_roots = pinned.size();
  // type -> (count, bytes) of the holders.
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> by_type;
  const ObjectTable& t = *objects;
  for (size_t k = 0; k < t.size(); ++k) {
    const bool is_pinned = std::binary_search(pinned.begin(), pinned.end(), t.addresses[k]);
    const bool is_large = t.generations[k] == Generation::LargeObjectHeap || t.generations[k] == Generation::PinnedObjectHeap;
    if (!is_pinned && !is_large) continue;
    auto& [count, bytes] = by_type[t.type_ids[k]];
    ++count;
    bytes += t.sizes[k];
  }
  std::vector<std::pair<uint32_t, std::pair<uint64_t, uint64_t>>> sorted(by_type.begin(), by_type.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  for (size_t k = 0; k < sorted.size() && k < kNamedHolders; ++k)
    out.push_back(fmt::format("{} x{} ({})", names->type_name(sorted[k].first), sorted[k].second.first,
                              format_bytes(sorted[k].second.second)));
  return out;
}

// The resident bytes of each kind of non-managed memory that grew from A to B, largest first:
// "anonymous (native allocations) +250.0 MiB, code +1.0 MiB".
std::string native_growth_parts(const MemoryAccounting& a, const MemoryAccounting& b) {
  std::vector<std::pair<int64_t, const char*>> parts = {
      {delta(a.app_anonymous_bytes(), b.app_anonymous_bytes()), "anonymous (native allocations)"},
      {delta(a.code_bytes, b.code_bytes), "code"},
      {delta(a.mapped_file_bytes, b.mapped_file_bytes), "mapped files"},
      {delta(a.stack_bytes, b.stack_bytes), "thread stacks"}};
  std::stable_sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string s;
  for (const auto& [bytes, name] : parts)
    if (bytes > 0) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", name, format_delta_bytes(bytes));
  return s;
}

// The first GC before AT whose record has the process's and the GC's figures: where the
// growth of native and other memory is measured from.
std::optional<size_t> first_memory_gc(const Recording& r, size_t at) {
  for (size_t i = 0; i < at; ++i) {
    auto m = r.read_memory_accounting(i);
    if (m && *m && (*m)->has(memory_present::kProcess | memory_present::kGcMappings)) return i;
  }
  return std::nullopt;
}

constexpr const char* kNativeTools =
    "gcsnap sees the GC heap only: find native allocations with heaptrack (heaptrack --pid PID) or Valgrind's "
    "massif, and the mappings with pmap -X PID";

// The note on native and other memory at GC AT (docs/cli.md "gcsnap info"): by what grew since
// the first GC with a record when that growth is native (>= kNativeGrowth, and at least half the
// managed heap's growth: the GC's bookkeeping grows with the heap); else, when most memory is not
// managed, whether it is within the runtime's own footprint. The native tools are named unless
// it is that footprint.
std::optional<std::string> native_advice(const Recording& r, size_t at, const MemoryAccounting& m) {
  // The app's resident memory: without what gcsnap itself held (format §6.16).
  const uint64_t native = m.native_and_other_bytes(), app_rss = m.rss_bytes - m.gcsnap_bytes();
  const std::optional<size_t> from = first_memory_gc(r, at);
  const MemoryAccounting first = from ? **r.read_memory_accounting(*from) : m;
  const std::string span =
      from ? fmt::format("from GC {} to GC {}", r.gcs()[*from].info.gc_number, r.gcs()[at].info.gc_number) : "";
  const int64_t grown = delta(first.native_and_other_bytes(), native);
  const int64_t managed_grown = delta(first.gc_resident_bytes, m.gc_resident_bytes);
  if (grown >= static_cast<int64_t>(kNativeGrowth) && grown >= managed_grown / 2)
    return fmt::format(
        "native and other memory grew by {} {} (to {}, {} of the resident memory; the managed heap {}): {}; {}",
        format_bytes(static_cast<uint64_t>(grown)), span, format_bytes(native), percent(native, app_rss),
        format_delta_bytes(managed_grown), native_growth_parts(first, m), kNativeTools);
  if (!app_rss || share(native, app_rss) <= kMostlyNative) return std::nullopt;
  const std::string head = fmt::format("most of the resident memory ({}) is not the managed heap: {}",
                                       percent(native, app_rss), native_parts(m));
  const std::string growth = from ? fmt::format("it changed by {} {}", format_delta_bytes(grown), span)
                                  : "no earlier GC has a memory record to tell whether it grows";
  if (native > kRuntimeBaseline) return fmt::format("{}; {}; {}", head, growth, kNativeTools);
  return fmt::format("{}; {} is within the .NET runtime's own footprint in a small app (50-130 MiB measured: its code, "
                     "mapped files and own heaps), and {}{}",
                     head, format_bytes(native), growth, from ? ": no sign of a native leak" : "");
}

}  // namespace

std::string memory_summary(const MemoryAccounting& m) {
  std::string s = fmt::format("managed heap {} of {} resident", format_bytes(m.gc_resident_bytes), format_bytes(m.rss_bytes));
  if (m.has(memory_present::kLiveObjects))
    s += fmt::format(": {} live objects, {} free or fragmented", format_bytes(m.live_object_bytes),
                     format_bytes(m.free_or_fragmented_bytes()));
  s += fmt::format("; {} native and other", format_bytes(m.native_and_other_bytes()));
  // The recorder's own chunks and buffers are not the app's (format §6.16 "gcsnap").
  if (m.gcsnap_bytes()) s += fmt::format("; {} held by gcsnap", format_bytes(m.gcsnap_bytes()));
  if (m.has(memory_present::kCgroupLimit))
    s += fmt::format(" (cgroup {} of {} limit)", format_bytes(m.cgroup_usage_bytes), format_bytes(m.cgroup_limit_bytes));
  return s;
}

std::string memory_bar(const MemoryAccounting& m, size_t width) {
  const uint64_t total = std::max(m.rss_bytes, m.gc_resident_bytes);
  const bool live_known = m.has(memory_present::kLiveObjects);
  const uint64_t live = live_known ? std::min(m.live_object_bytes, m.gc_resident_bytes) : 0;
  const uint64_t gcsnap = m.gcsnap_bytes();
  const uint64_t parts[4] = {live, m.gc_resident_bytes - live, total - m.gc_resident_bytes - gcsnap, gcsnap};
  size_t cells[4];
  size_t used = 0;
  for (int k = 0; k < 4; ++k) {
    cells[k] = static_cast<size_t>(share(parts[k], total) * static_cast<double>(width) + 0.5);
    if (parts[k] && cells[k] == 0) cells[k] = 1;
    used += cells[k];
  }
  // Rounding: the largest part gives or takes the difference.
  int largest = static_cast<int>(std::max_element(parts, parts + 4) - parts);
  if (used > width) cells[largest] -= std::min(cells[largest], used - width);
  else cells[largest] += width - used;
  const char marks[4] = {'#', live_known ? '=' : '+', '.', '~'};
  std::string bar = "[";
  for (int k = 0; k < 4; ++k) bar.append(cells[k], marks[k]);
  bar += "]";
  bar += live_known ? "  # live objects  = free or fragmented  . native and other" : "  + managed heap  . native and other";
  if (gcsnap) bar += "  ~ gcsnap";
  return bar;
}

std::vector<std::string> memory_advice(const Recording& r, size_t i, const MemoryAccounting& m) {
  std::vector<std::string> out;
  if (auto line = native_advice(r, i, m)) out.push_back(std::move(*line));
  const uint64_t free = m.free_or_fragmented_bytes();
  if (m.has(memory_present::kLiveObjects) && free >= kWorthSaying && share(free, m.gc_resident_bytes) > kMostlyFree) {
    uint64_t pinned_roots = 0;
    std::vector<std::string> holders = fragmentation_holders(r, i, pinned_roots);
    std::string line = fmt::format("{} of the managed heap ({}) is free or fragmented", percent(free, m.gc_resident_bytes),
                                   format_bytes(free));
    if (!holders.empty()) {
      line += fmt::format("; {} pinned handle(s); pinned and large objects that can hold gaps open: ", pinned_roots);
      for (size_t k = 0; k < holders.size(); ++k) line += (k ? ", " : "") + holders[k];
    } else {
      line += "; no pinned handle or large object in this GC's walk: the GC has not given free space back yet";
    }
    out.push_back(line);
  }
  return out;
}

std::optional<size_t> memory_summary_gc(const Recording& r) {
  std::optional<size_t> any;
  for (size_t i = r.gcs().size(); i-- > 0;) {
    auto m = r.read_memory_accounting(i);
    if (!m || !*m || !(*m)->has(memory_present::kProcess)) continue;
    if ((*m)->has(memory_present::kLiveObjects)) return i;
    if (!any) any = i;
  }
  return any;
}

}  // namespace gcsnap::cli
