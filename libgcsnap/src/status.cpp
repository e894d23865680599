#include "gcsnap/status.hpp"

#include <charconv>
#include <cstring>

namespace gcsnap {

std::string error_text(const Error& error) {
  std::string text(error_code_name(error.code));
  if (error.detail && *error.detail) text.append(": ").append(error.detail);
  if (error.sys_errno != 0) text.append(": ").append(std::strerror(error.sys_errno));
  if (error.offset != 0) {
    char hex[16];
    const auto end = std::to_chars(hex, hex + sizeof hex, error.offset, 16).ptr;
    text.append(" (offset 0x").append(hex, end).append(")");
  }
  return text;
}

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
    case ErrorCode::WalkDropped: return "walk-dropped";
    case ErrorCode::DecompressionFailed: return "decompression-failed";
    case ErrorCode::InconsistentData: return "inconsistent-data";
    case ErrorCode::InvalidState: return "invalid-state";
    case ErrorCode::OutOfMemory: return "out-of-memory";
  }
  return "unknown-error";
}

}  // namespace gcsnap
