#include "gcsnap/model.hpp"

namespace gcsnap {

std::string_view root_kind_name(RootKind kind) noexcept {
  switch (kind) {
    case RootKind::Stack: return "stack";
    case RootKind::Finalizer: return "finalizer";
    case RootKind::Handle: return "handle";
    case RootKind::Other: return "other";
  }
  return "other";
}

std::string_view generation_name(Generation generation) noexcept {
  switch (generation) {
    case Generation::Gen0: return "gen0";
    case Generation::Gen1: return "gen1";
    case Generation::Gen2: return "gen2";
    case Generation::LargeObjectHeap: return "loh";
    case Generation::PinnedObjectHeap: return "poh";
    case Generation::NonGcHeap: return "non-gc-heap";
    case Generation::Unknown: return "unknown";
  }
  return "unknown";
}

}  // namespace gcsnap
