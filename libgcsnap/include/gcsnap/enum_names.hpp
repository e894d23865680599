#pragma once
/// The names of the library's enumerations, in one place, each a stable lower-case text that
/// the CLI prints and the golden outputs pin. The views point to static strings.

#include <cstdint>
#include <string_view>

namespace gcsnap {

// The enumerations are defined next to what uses them (status.hpp, reader.hpp, model.hpp,
// object_identity.hpp, edge_names.hpp); the names need only their declarations.
enum class ErrorCode : uint16_t;
enum class FileEnd : uint8_t;
enum class RootKind : uint8_t;
enum class Generation : uint8_t;
enum class Fate : uint8_t;
enum class UnnamedReason : uint8_t;

/// Return the stable lower-case name of a code ("checksum-mismatch"; "unknown-error" for a
/// value outside the enumeration).
std::string_view error_code_name(ErrorCode code) noexcept;
/// Return "complete", "no-index", "truncated" or "corrupt" ("unknown" outside the enumeration).
std::string_view file_end_name(FileEnd end) noexcept;
/// Return "stack", "finalizer", "handle" or "other".
std::string_view root_kind_name(RootKind kind) noexcept;
/// Return "gen0", "gen1", "gen2", "loh", "poh", "non-gc-heap" or "unknown".
std::string_view generation_name(Generation generation) noexcept;
/// Return "moved", "stayed", "not-condemned", "non-gc-heap", "died" or "unknown".
std::string_view fate_name(Fate fate) noexcept;
/// Return a short sentence saying why an edge has no name ("" for UnnamedReason::None).
std::string_view unnamed_reason_text(UnnamedReason reason) noexcept;

}  // namespace gcsnap
