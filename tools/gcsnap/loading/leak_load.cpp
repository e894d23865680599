#include "loading/leak_load.hpp"

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "loading/gc_select.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/root_summary.hpp"

namespace gcsnap::cli {

namespace {

std::string list_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + (names[i].empty() ? "(global)" : names[i]);
  if (names.size() > 3) out += fmt::format(" and {} more", names.size() - 3);
  return out;
}

std::string describe_app(const AppIdentity& app) {
  if (app.modules.empty() && app.namespaces.empty()) return "only framework types";
  if (app.modules.empty()) return "namespaces " + list_names(app.namespaces);
  return "modules " + list_names(app.modules);
}

}  // namespace

std::unique_ptr<LoadedLeaks> load_leaks(const std::vector<std::string>& files, const LeakOptions& options,
                                        bool use_index) {
  auto loaded = std::make_unique<LoadedLeaks>();
  loaded->files = files;
  AppIdentity first_app;
  for (size_t i = 0; i < files.size(); ++i) {
    loaded->recordings.push_back(open_recording(files[i]));
    if (loaded->recordings.back()->gcs().empty()) {
      throw CliError(fmt::format("{}: the recording has no GCs, so no heap walk ({})", files[i], kHowToGetWalks),
                     kExitBadInput);
    }
    AppIdentity app = value_or_fail(identify_app(*loaded->recordings.back()), files[i]);
    if (i == 0) {
      first_app = std::move(app);
    } else if (!is_same_app(first_app, app)) {
      throw CliError(fmt::format("{}: not a recording of the same app as {} (its own types: {}; {}'s: {})", files[i],
                                 files[0], describe_app(app), files[0], describe_app(first_app)),
                     kExitUsage);
    }
  }
  std::vector<const Recording*> recordings;
  bool any_walk = false;
  for (const auto& r : loaded->recordings) {
    recordings.push_back(r.get());
    for (const GcEntry& gc : r->gcs()) any_walk = any_walk || gc.has_heap_walk();
  }
  if (!any_walk) {
    throw CliError(fmt::format("{}: no heap walk to compare ({})",
                               files.size() == 1 ? files[0] : "none of these recordings has one", kHowToGetWalks),
                   kExitBadInput);
  }
  auto report = use_index ? find_leak_suspects(recordings, files, options) : find_leak_suspects(recordings, options);
  if (!report) {
    std::string names = files[0];
    if (files.size() > 1) names += fmt::format(" (and {} more)", files.size() - 1);
    fail_on(names, report.error());
  }
  loaded->report = std::move(report).value();
  return loaded;
}

std::string describe_point(const AccumulationPoint& p) {
  if (!p.found) return {};
  if (p.is_owner) return fmt::format("{} (owner; entered from {} objects)", p.type, p.entries);
  if (p.via_array.empty()) return p.type;
  return fmt::format("{} (via {})", p.type, p.via_array);
}

std::string describe_shape(const PathShape& shape) {
  // As diff prints a path: "[kind flags] -> Type -> ... -> Type".
  const std::string flags = root_flags_text(shape.root_flags);
  std::string out = fmt::format("[{}{}{}]", root_kind_name(shape.root_kind), flags.empty() ? "" : " ", flags);
  for (const auto& type : shape.types) out += " -> " + type;
  return out;
}

std::string describe_counts(const LeakSuspect& suspect, size_t max) {
  const auto& s = suspect.series;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool elided = s.size() > max && i >= max / 2 && i < s.size() - max / 2;
    if (elided) {
      if (i == max / 2) out += " …";
      continue;
    }
    out += fmt::format("{}{}", out.empty() ? "" : " ", s[i].count);
  }
  return out;
}

}  // namespace gcsnap::cli
