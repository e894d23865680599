#include "loading/gc_select.hpp"

#include <algorithm>
#include <filesystem>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"

namespace gcsnap::cli {

GcSpec parse_gc_spec(const std::string& argument) {
  const size_t colon = argument.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == argument.size()) return {argument, std::nullopt};
  const std::string digits = argument.substr(colon + 1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) || digits.size() > 19)
    return {argument, std::nullopt};
  std::error_code ec;
  if (std::filesystem::exists(argument, ec)) return {argument, std::nullopt};
  return {argument.substr(0, colon), std::stoull(digits)};
}

std::unique_ptr<Recording> open_recording(const std::string& file) {
  auto opened = Recording::open(file);
  if (!opened) fail_on(file, opened.error());
  return std::move(opened).value();
}

std::string describe_gc_numbers(const std::vector<uint64_t>& numbers, size_t limit) {
  std::string s;
  size_t items = 0;
  for (size_t i = 0; i < numbers.size();) {
    size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    if (items == limit) {
      s += fmt::format(", ... ({} in all)", numbers.size());
      break;
    }
    if (items) s += ", ";
    s += j == i ? fmt::format("{}", numbers[i]) : fmt::format("{}-{}", numbers[i], numbers[j]);
    ++items;
    i = j + 1;
  }
  return s;
}

namespace {

std::vector<uint64_t> gc_numbers(const Recording& recording, bool heap_walk_only) {
  std::vector<uint64_t> out;
  for (const auto& gc : recording.gcs())
    if (!heap_walk_only || gc.has_heap_walk()) out.push_back(gc.info.gc_number);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

size_t select_gc(const Recording& recording, const std::string& file, std::optional<uint64_t> gc, GcNeed need) {
  if (recording.gcs().empty()) {
    throw CliError(need == GcNeed::HeapWalk
                       ? fmt::format("{}: the recording has no GCs, so no heap walk ({})", file, kHowToGetWalks)
                       : fmt::format("{}: the recording has no GCs", file),
                   kExitBadInput);
  }
  if (!gc) {
    if (need == GcNeed::Any) return recording.gcs().size() - 1;
    auto last = recording.last_snapshot();
    if (!last) throw CliError(fmt::format("{}: no GC in the recording has a heap walk ({})", file, kHowToGetWalks),
                              kExitBadInput);
    return *last;
  }
  auto index = recording.find_gc(*gc);
  if (!index)
    throw CliError(fmt::format("{}: GC {} is not in the recording (it has GCs {})", file, *gc,
                               describe_gc_numbers(gc_numbers(recording, false))),
                   kExitUsage);
  if (need == GcNeed::HeapWalk && !recording.gcs()[*index].has_heap_walk()) {
    const auto with_walk = gc_numbers(recording, true);
    // format §6.17: the walk was there, and the size cap took it.
    const char* why = recording.gcs()[*index].walk_dropped() ? "'s heap walk was dropped to keep the recording under its "
                                                               "size cap (--max-size)"
                                                             : " has no heap walk";
    throw CliError(fmt::format("{}: GC {}{}; {}", file, *gc, why,
                               with_walk.empty() ? fmt::format("no GC in the recording has one ({})", kHowToGetWalks)
                                                 : "GCs with one: " + describe_gc_numbers(with_walk)),
                   kExitUsage);
  }
  return *index;
}

SelectedGc open_selected_gc(const std::string& spec, std::optional<uint64_t> gc_option, GcNeed need) {
  GcSpec parsed = parse_gc_spec(spec);
  if (parsed.gc && gc_option && *parsed.gc != *gc_option)
    throw CliError(fmt::format("{}: GC given twice ({} and --gc {})", spec, *parsed.gc, *gc_option), kExitUsage);
  if (gc_option) parsed.gc = gc_option;
  SelectedGc selected;
  selected.file = parsed.file;
  selected.recording = open_recording(parsed.file);
  selected.index = select_gc(*selected.recording, parsed.file, parsed.gc, need);
  return selected;
}

void add_gc_option(CLI::App& cmd, std::optional<uint64_t>& gc, const std::string& help) {
  cmd.add_option_function<uint64_t>(
      "--gc", [&gc](const uint64_t& n) { gc = n; },
      help.empty() ? "GC number to use (default: see docs/cli.md \"Selecting a GC\")" : help);
}

}  // namespace gcsnap::cli
