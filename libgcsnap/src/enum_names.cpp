#include "gcsnap/enum_names.hpp"

#include "gcsnap/edge_names.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/object_identity.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

std::string_view error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::Ok: return "ok";
    case ErrorCode::IoError: return "io-error";
    case ErrorCode::NotAGcsnapFile: return "not-a-gcsnap-file";
    case ErrorCode::UnsupportedVersion: return "unsupported-version";
    case ErrorCode::Truncated: return "truncated";
    case ErrorCode::ChecksumMismatch: return "checksum-mismatch";
    case ErrorCode::CorruptSection: return "corrupt-section";
    case ErrorCode::LimitExceeded: return "limit-exceeded";
    case ErrorCode::UnknownRequiredFeature: return "unknown-required-feature";
    case ErrorCode::InvalidArgument: return "invalid-argument";
    case ErrorCode::NotFound: return "not-found";
    case ErrorCode::NoHeapWalk: return "no-heap-walk";
    case ErrorCode::DecompressionFailed: return "decompression-failed";
    case ErrorCode::InconsistentData: return "inconsistent-data";
    case ErrorCode::InvalidState: return "invalid-state";
    case ErrorCode::OutOfMemory: return "out-of-memory";
  }
  return "unknown-error";
}

std::string_view file_end_name(FileEnd end) noexcept {
  switch (end) {
    case FileEnd::Complete: return "complete";
    case FileEnd::NoIndex: return "no-index";
    case FileEnd::Truncated: return "truncated";
    case FileEnd::Corrupt: return "corrupt";
  }
  return "unknown";
}

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

std::string_view fate_name(Fate fate) noexcept {
  switch (fate) {
    case Fate::Moved: return "moved";
    case Fate::Stayed: return "stayed";
    case Fate::NotCondemned: return "not-condemned";
    case Fate::NonGcHeap: return "non-gc-heap";
    case Fate::Died: return "died";
    case Fate::Unknown: return "unknown";
  }
  return "unknown";
}

std::string_view unnamed_reason_text(UnnamedReason reason) noexcept {
  switch (reason) {
    case UnnamedReason::None: return "";
    case UnnamedReason::NoSlots: return "the recording has no reference slots for this GC";
    case UnnamedReason::SlotUnknown: return "the recorder did not find the reference in its object";
    case UnnamedReason::NoLayout: return "no field layout was recorded for the referencing type";
    case UnnamedReason::NoField: return "no recorded field lies at the reference's offset";
  }
  return "";
}

}  // namespace gcsnap
