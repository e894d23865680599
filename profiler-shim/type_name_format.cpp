#include "type_name_format.hpp"

#include <algorithm>

namespace gcsnap::shim {
namespace {

// "List`1" -> "List"; a name without a well-formed suffix is kept as it is.
std::string_view without_arity(std::string_view name) noexcept {
  const size_t tick = name.rfind('`');
  if (tick == std::string_view::npos || tick + 1 == name.size()) return name;
  for (size_t i = tick + 1; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(0, tick);
}

void append_args(std::string& out, std::span<const std::string> args) {
  out += '<';
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += ", ";  // ClrMD's separator, comma and space
    out += args[i];
  }
  out += '>';
}

}  // namespace

unsigned arity_of(std::string_view metadata_name) noexcept {
  const std::string_view stem = without_arity(metadata_name);
  if (stem.size() == metadata_name.size()) return 0;
  unsigned n = 0;
  for (char c : metadata_name.substr(stem.size() + 1)) {
    if (n > 1000) return n;  // no real type has that many; stop before overflowing
    n = n * 10 + static_cast<unsigned>(c - '0');
  }
  return n;
}

std::string assemble_type_name(std::span<const std::string> chain, std::span<const std::string> args) {
  std::string out;
  size_t used = 0;
  for (size_t k = 0; k < chain.size(); ++k) {
    if (k > 0) out += '+';
    out += without_arity(chain[k]);
    size_t take = std::min<size_t>(arity_of(chain[k]), args.size() - used);
    if (k + 1 == chain.size()) take = args.size() - used;  // leftovers: the innermost name
    if (take > 0) {
      append_args(out, args.subspan(used, take));
      used += take;
    }
  }
  return out;
}

std::string assemble_method_name(std::string_view method, std::span<const std::string> args) {
  std::string out(method);
  if (!args.empty()) append_args(out, args);
  return out;
}

}  // namespace gcsnap::shim
