#include "memory_probe.hpp"
#include "gcsnap_shim/shim_protocol.hpp"

#include <cstdlib>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <vector>

namespace gcsnap::shim {
namespace {

constexpr uint64_t kMaxGuardBytes = 64 * 1024;  // §6.16: a thread stack's guard mapping

// Fields of one mapping of /proc/PID/smaps.
struct Mapping {
  uint64_t start = 0, end = 0;
  char perms[4] = {'-', '-', '-', '-'};
  std::string_view path;
  uint64_t rss = 0, pss = 0, swap = 0;
  bool is_readable_writable() const noexcept { return perms[0] == 'r' && perms[1] == 'w'; }
  bool is_inaccessible() const noexcept { return perms[0] == '-' && perms[1] == '-' && perms[2] == '-'; }
  bool is_anonymous() const noexcept { return path.empty(); }
};

std::string_view next_token(std::string_view& s) {
  size_t b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) {
    s = {};
    return {};
  }
  s.remove_prefix(b);
  size_t e = s.find(' ');
  std::string_view tok = s.substr(0, e);
  s.remove_prefix(e == std::string_view::npos ? s.size() : e);
  return tok;
}

bool parse_hex(std::string_view s, uint64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parse_dec(std::string_view s, uint64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  return ec == std::errc() && p == s.data() + s.size();
}

// A mapping's header line: "start-end perms offset dev inode [path]".
bool parse_header(std::string_view line, Mapping& m) {
  std::string_view rest = line;
  std::string_view range = next_token(rest), perms = next_token(rest);
  size_t dash = range.find('-');
  if (dash == std::string_view::npos || perms.size() < 4) return false;
  if (!parse_hex(range.substr(0, dash), m.start) || !parse_hex(range.substr(dash + 1), m.end) || m.end < m.start)
    return false;
  std::copy_n(perms.data(), 4, m.perms);
  next_token(rest);  // offset
  next_token(rest);  // device
  next_token(rest);  // inode
  size_t b = rest.find_first_not_of(' ');
  m.path = b == std::string_view::npos ? std::string_view() : rest.substr(b);
  return true;
}

// "Rss:   123 kB" into bytes, when the line is one of the three fields used.
void parse_field(std::string_view line, Mapping& m) {
  uint64_t* field = nullptr;
  if (line.starts_with("Rss:")) field = &m.rss;
  else if (line.starts_with("Pss:")) field = &m.pss;
  else if (line.starts_with("Swap:")) field = &m.swap;
  if (!field) return;
  std::string_view rest = line.substr(line.find(':') + 1);
  uint64_t kb = 0;
  if (parse_dec(next_token(rest), kb)) *field = kb * 1024;
}

// Extents [start, start + max(reserved, length)) of the GC's ranges, sorted and merged.
std::vector<std::pair<uint64_t, uint64_t>> gc_extents(std::span<const GenerationRange> bounds) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const GenerationRange& g : bounds) {
    uint64_t len = std::max(g.length, g.reserved_length);
    if (len == 0 || g.start > UINT64_MAX - len) continue;
    out.emplace_back(g.start, g.start + len);
  }
  std::sort(out.begin(), out.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& e : out) {
    if (!merged.empty() && e.first <= merged.back().second) merged.back().second = std::max(merged.back().second, e.second);
    else merged.push_back(e);
  }
  return merged;
}

uint64_t overlap_bytes(const std::vector<std::pair<uint64_t, uint64_t>>& extents, uint64_t start, uint64_t end) {
  auto it = std::upper_bound(extents.begin(), extents.end(), std::make_pair(start, UINT64_MAX));
  if (it != extents.begin()) --it;
  uint64_t total = 0;
  for (; it != extents.end() && it->first < end; ++it) {
    uint64_t lo = std::max(start, it->first), hi = std::min(end, it->second);
    if (hi > lo) total += hi - lo;
  }
  return total;
}

class Accountant {
 public:
  Accountant(std::span<const GenerationRange> bounds, MemoryAccounting& out) : extents_(gc_extents(bounds)), out_(out) {}

  void add(const Mapping& m) {
    out_.rss_bytes += m.rss;
    out_.pss_bytes += m.pss;
    out_.swap_bytes += m.swap;
    uint64_t rest = m.rss;
    const uint64_t size = m.end - m.start;
    if (m.is_readable_writable() && m.is_anonymous() && size) {
      const uint64_t inside = overlap_bytes(extents_, m.start, m.end);
      if (inside) {
        out_.gc_committed_bytes += inside;
        // Apportioned by the part of the mapping inside the ranges (§6.16).
        const uint64_t resident = static_cast<uint64_t>(static_cast<double>(m.rss) * static_cast<double>(inside) /
                                                        static_cast<double>(size));
        out_.gc_resident_bytes += std::min(resident, m.rss);
        rest -= std::min(resident, m.rss);
      }
    }
    *kind_of(m) += rest;
    previous_ = m;
  }

 private:
  uint64_t* kind_of(const Mapping& m) {
    if (m.path == "[stack]") return &out_.stack_bytes;
    // The runtime's executable memory is mapped twice from one memfd (W^X): both views are code.
    if (m.path.starts_with("/memfd:doublemapper")) return &out_.code_bytes;
    if (m.path.starts_with("[vdso]") || m.path.starts_with("[vsyscall]")) return &out_.code_bytes;
    if (!m.path.empty() && m.path.front() == '/') return m.perms[2] == 'x' ? &out_.code_bytes : &out_.mapped_file_bytes;
    // A thread stack: readable-writable memory right above its small inaccessible guard.
    if (m.is_anonymous() && m.is_readable_writable() && previous_.end == m.start && previous_.is_anonymous() &&
        previous_.is_inaccessible() && previous_.end - previous_.start <= kMaxGuardBytes)
      return &out_.stack_bytes;
    return &out_.anonymous_bytes;
  }

  std::vector<std::pair<uint64_t, uint64_t>> extents_;
  MemoryAccounting& out_;
  Mapping previous_;
};

bool read_file(const std::string& path, std::string& out) {
  out.clear();
  FILE* f = std::fopen(path.c_str(), "re");
  if (!f) return false;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return true;
}

// A cgroup file holding one number ("max" for no limit: false).
bool read_number(const std::string& path, uint64_t& v) {
  std::string text;
  if (!read_file(path, text)) return false;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return parse_dec(text, v);
}

}  // namespace

void account_mappings(std::string_view smaps, std::span<const GenerationRange> bounds, MemoryAccounting& out) {
  Accountant accountant(bounds, out);
  Mapping current;
  bool open = false;
  while (!smaps.empty()) {
    size_t nl = smaps.find('\n');
    std::string_view line = smaps.substr(0, nl);
    smaps.remove_prefix(nl == std::string_view::npos ? smaps.size() : nl + 1);
    if (line.empty()) continue;
    // Field lines start with a capitalised name and a colon; headers with a hex address.
    const size_t colon = line.find(':'), space = line.find(' ');
    const bool is_field = colon != std::string_view::npos && (space == std::string_view::npos || colon < space);
    if (is_field) {
      if (open) parse_field(line, current);
      continue;
    }
    Mapping next;
    if (!parse_header(line, next)) continue;
    if (open) accountant.add(current);
    current = next;
    open = true;
  }
  if (open) accountant.add(current);
  out.present |= memory_present::kProcess | memory_present::kGcMappings;
}

void account_cgroup(std::string_view proc_cgroup, const std::string& root, MemoryAccounting& out) {
  // Lines "id:controllers:path": v2 is "0::path", v1's memory controller "N:memory:path".
  std::string_view v2_path, v1_path;
  bool has_v2 = false, has_v1 = false;
  while (!proc_cgroup.empty()) {
    size_t nl = proc_cgroup.find('\n');
    std::string_view line = proc_cgroup.substr(0, nl);
    proc_cgroup.remove_prefix(nl == std::string_view::npos ? proc_cgroup.size() : nl + 1);
    size_t a = line.find(':'), b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    std::string_view controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (line.substr(0, a) == "0" && controllers.empty()) {
      has_v2 = true;
      v2_path = path;
    }
    if (controllers == "memory" || controllers.find("memory,") != std::string_view::npos ||
        controllers.ends_with(",memory")) {
      has_v1 = true;
      v1_path = path;
    }
  }
  const std::string base = root + (root.ends_with('/') ? "" : "/") + "sys/fs/cgroup";
  struct Layout {
    std::string dir, usage, limit;
    std::string_view path;
  };
  std::vector<Layout> layouts;
  if (has_v1) layouts.push_back({base + "/memory", "memory.usage_in_bytes", "memory.limit_in_bytes", v1_path});
  if (has_v2) layouts.push_back({base, "memory.current", "memory.max", v2_path});
  for (const Layout& l : layouts) {
    std::string group(l.path);
    while (!group.empty() && group.back() == '/') group.pop_back();
    uint64_t usage = 0;
    // Inside a container with its own cgroup namespace the group may not be visible under its
    // path: the namespace's root directory is then the group.
    std::string dir = l.dir + group;
    if (!read_number(dir + "/" + l.usage, usage)) {
      dir = l.dir;
      group.clear();
      if (!read_number(dir + "/" + l.usage, usage)) continue;
    }
    out.cgroup_usage_bytes = usage;
    out.present |= memory_present::kCgroupUsage;
    // The smallest limit of the group and its parents; v1 writes a huge number for "none".
    uint64_t limit = UINT64_MAX;
    for (;;) {
      uint64_t v = 0;
      if (read_number(l.dir + group + "/" + l.limit, v) && v < limit) limit = v;
      if (group.empty()) break;
      group.erase(group.rfind('/') == std::string::npos ? 0 : group.rfind('/'));
    }
    if (limit < (uint64_t{1} << 62)) {
      out.cgroup_limit_bytes = limit;
      out.present |= memory_present::kCgroupLimit;
    }
    return;
  }
}

const std::string& cgroup_root() {
  static const std::string root = [] {
    const char* test_root = std::getenv(kEnvTestCgroupRoot);
    return std::string(test_root && *test_root ? test_root : "/");
  }();
  return root;
}

bool read_cgroup_limit(uint64_t& usage, uint64_t& limit) noexcept {
  try {
    std::string text;
    if (!read_file("/proc/self/cgroup", text)) return false;
    MemoryAccounting figures;
    account_cgroup(text, cgroup_root(), figures);
    const uint32_t both = memory_present::kCgroupUsage | memory_present::kCgroupLimit;
    if ((figures.present & both) != both) return false;
    usage = figures.cgroup_usage_bytes;
    limit = figures.cgroup_limit_bytes;
    return true;
  } catch (...) {
    return false;  // out of memory: no figures, so no guard this time
  }
}

void MemoryProbe::read_proc_files(std::span<const GenerationRange> bounds, MemoryAccounting& out) noexcept {
  try {
    if (read_file("/proc/self/smaps", smaps_)) account_mappings(smaps_, bounds, out);
    if (read_file("/proc/self/cgroup", cgroup_)) account_cgroup(cgroup_, cgroup_root(), out);
  } catch (...) {
    // Out of memory while reading: the figures read so far stay, the rest are not present.
  }
}

}  // namespace gcsnap::shim
