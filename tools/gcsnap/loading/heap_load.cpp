#include "loading/heap_load.hpp"

#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "loading/index_orphans.hpp"
#include "output/output.hpp"
#include "platform/console.hpp"

namespace gcsnap::cli {

void add_no_cache_option(CLI::App& cmd, bool& no_cache) {
  cmd.add_flag("--no-cache", no_cache,
               "answer from the recording alone: do not use or write the analysis index (FILE.N.gcidx)");
}

IndexProgress terminal_progress(const std::string& file) {
  if (!is_terminal(stderr)) return {};
  return [file](std::string_view stage) { fmt::print(stderr, "gcsnap: {}: {}...\n", file, stage); };
}

void LoadedHeap::load_or_fail(const GcHeapOptions& options) {
  auto status = load(sel.file, *sel.recording, sel.index, options);
  if (!status) fail_on(sel.file, status.error());
}

std::unique_ptr<LoadedHeap> load_heap(const std::string& spec, std::optional<uint64_t> gc, HeapNeeds needs,
                                      const IndexChoice& index) {
  auto heap = std::make_unique<LoadedHeap>();
  heap->sel = open_selected_gc(spec, gc, GcNeed::HeapWalk);
  GcHeapOptions options;
  options.index = !index.supported || index.no_cache ? IndexUse::Ignore
                  : index.never_build                 ? IndexUse::Existing
                                                      : IndexUse::Build;
  options.needs = needs;
  if (options.index == IndexUse::Build) options.progress = terminal_progress(heap->sel.file);
  heap->load_or_fail(options);
  if (options.index == IndexUse::Build) {
    // An index was used or built beside the recording: those an earlier recording at this path
    // left are of no use, and building one more leaves at most kMaxBuiltIndexFiles of them
    // (docs/cli.md "gcsnap index").
    remove_orphan_indexes(heap->sel.file, *heap->sel.recording);
    if (heap->saved_index())
      cap_index_files(heap->sel.file, heap->sel.number(), kMaxBuiltIndexFiles);
  }
  return heap;
}

IndexedPoints open_indexed_points(const std::string& spec, std::optional<uint64_t> gc) {
  IndexedPoints out{std::make_unique<LoadedHeap>(), nullptr};
  out.heap->sel = open_selected_gc(spec, gc, GcNeed::HeapWalk);
  const SelectedGc& sel = out.heap->sel;
  out.points = value_or_fail(HeapPoints::open(sel.file, *sel.recording, sel.index, IndexUse::OnlyExisting), sel.file);
  if (!out.points) return out;
  auto names = sel.recording->read_names(sel.index);
  if (!names) fail_on(sel.file, names.error());
  out.heap->names = std::move(names).value();
  return out;
}

const DominatorTree& LoadedHeap::dominators(bool include_weak) {
  return *value_or_fail(find_dominators(include_weak), sel.file);
}

std::vector<TypeStats> LoadedHeap::type_histogram(bool include_weak, const TypeHistogramOptions& options) {
  return value_or_fail(find_type_histogram(include_weak, options), sel.file);
}

std::pair<uint64_t, uint64_t> LoadedHeap::unreachable(bool include_weak) {
  return value_or_fail(find_unreachable(include_weak), sel.file);
}

std::vector<std::string> LoadedHeap::notes() const {
  std::vector<std::string> out;
  const GraphBuildStats& s = graph.stats();
  if (s.unresolved_references)
    out.push_back(fmt::format("{} of {} references point at no recorded object and were ignored",
                              s.unresolved_references, s.references));
  if (s.unresolved_roots)
    out.push_back(fmt::format("{} roots point at no recorded object and were ignored", s.unresolved_roots));
  if (!has_dependent)
    out.push_back("this recording has no dependent-handle section: objects kept alive only by a "
                  "ConditionalWeakTable look unreachable");
  else if (s.dependent_edges < s.dependent_handles)
    out.push_back(fmt::format("{} of {} dependent handles point at no recorded object and were ignored",
                              s.dependent_handles - s.dependent_edges, s.dependent_handles));
  const DropCounts& d = sel.entry().drops;
  if (d.any())
    out.push_back(fmt::format("the recorder dropped data at this GC (roots {}, objects {}, references {}): "
                              "answers may be incomplete", d.roots, d.objects, d.references));
  return out;
}

NodeIndex find_object_or_fail(const LoadedHeap& heap, uint64_t address) {
  auto found = heap.graph.find_object(address);
  if (found) return *found;
  std::string hint;
  // Not an object's start, so a zero-size object is never the one found here.
  if (auto node = heap.graph.find_containing(address)) {
    const uint64_t start = heap.graph.address(*node);
    hint = fmt::format(" (it is inside {} {} at offset +0x{:x})", format_address(start), heap.type_name(*node),
                       address - start);
  }
  throw CliError(fmt::format("{}: {} is not the address of an object in GC {}{}", heap.sel.file,
                             format_address(address), heap.sel.number(), hint),
                 kExitUsage);
}

}  // namespace gcsnap::cli
