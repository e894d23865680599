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

}  // namespace gcsnap
