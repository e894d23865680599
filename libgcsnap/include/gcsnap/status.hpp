#pragma once
/// Errors as values: every fallible libgcsnap function returns a Status or a Result<T>.
/// The codes are pinned (format-spec.md §9); never renumber them.

#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace gcsnap {

enum class ErrorCode : uint16_t {
  Ok = 0,
  IoError = 1,                 ///< open/read/write/mmap failed (errno in Error::sys_errno)
  NotAGcsnapFile = 2,          ///< leading magic missing
  UnsupportedVersion = 3,      ///< major version this reader does not know
  Truncated = 4,               ///< the data ends before a structure it declares
  ChecksumMismatch = 5,        ///< a stored checksum does not match the bytes
  CorruptSection = 6,          ///< a section's encoding is malformed
  LimitExceeded = 7,           ///< a declared size is above a reader cap
  UnknownRequiredFeature = 8,  ///< a required-feature bit this reader does not implement
  InvalidArgument = 9,         ///< the caller passed something unusable
  NotFound = 10,               ///< no such GC, object or type in the recording
  NoHeapWalk = 11,             ///< the GC has no object graph
  DecompressionFailed = 12,    ///< zstd rejected a frame
  InconsistentData = 13,       ///< sections disagree or break an invariant
  InvalidState = 14,           ///< API call out of order (writer)
  OutOfMemory = 15,            ///< an allocation failed
  WalkDropped = 16,            ///< the GC's heap walk was dropped to keep the recording under its size cap
};

/// A small, trivially copyable error: pinned code, file offset, static detail text.
struct Error {
  ErrorCode code = ErrorCode::Ok;
  uint64_t offset = 0;           ///< file offset the error refers to, if any
  const char* detail = "";       ///< static string; never owned
  int sys_errno = 0;             ///< errno for IoError
};

/// Return the stable lower-case name of a code ("checksum-mismatch"; "unknown-error" for a
/// value outside the enumeration), as the CLI prints it and the golden outputs pin it.
std::string_view error_code_name(ErrorCode code) noexcept;

/// Return the one line every gcsnap tool prints for an error: the code's name, the detail,
/// the system error text for IoError, and the offset when there is one:
/// "checksum-mismatch: objects section payload (offset 0x1a40)". The caller adds what the
/// error is about ("app.snap: "). Errors: none (std::bad_alloc if the string cannot be made).
std::string error_text(const Error& error);

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(Error e) noexcept : error_(e) {}  // NOLINT(google-explicit-constructor)
  static Status ok() noexcept { return {}; }
  bool is_ok() const noexcept { return error_.code == ErrorCode::Ok; }
  explicit operator bool() const noexcept { return is_ok(); }
  const Error& error() const noexcept { return error_; }
  ErrorCode code() const noexcept { return error_.code; }

 private:
  Error error_{};
};

inline Error make_error(ErrorCode code, const char* detail, uint64_t offset = 0) noexcept {
  return Error{code, offset, detail, 0};
}

/// Return STATUS's one line (see error_text(const Error&)); "ok" for an ok status.
inline std::string error_text(const Status& status) { return error_text(status.error()); }

/// A value or an Error. Accessing value() of an error is a programming bug.
/// A failed Result always holds an error: one built from an ok Status or an Error whose code
/// is Ok (a bug in the caller, which had no error to return) holds InvalidState instead of
/// claiming a value it never got.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : has_value_(true) { new (&storage_.value) T(std::move(value)); }  // NOLINT
  Result(Error error) noexcept : has_value_(false) { storage_.error = checked(error); }  // NOLINT
  Result(Status status) noexcept : has_value_(false) { storage_.error = checked(status.error()); }  // NOLINT
  Result(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) : has_value_(other.has_value_) {
    if (has_value_) new (&storage_.value) T(std::move(other.storage_.value));
    else storage_.error = other.storage_.error;
  }
  Result& operator=(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      destroy();
      has_value_ = other.has_value_;
      if (has_value_) new (&storage_.value) T(std::move(other.storage_.value));
      else storage_.error = other.storage_.error;
    }
    return *this;
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  ~Result() { destroy(); }

  bool is_ok() const noexcept { return has_value_; }
  explicit operator bool() const noexcept { return has_value_; }
  T& value() & { return storage_.value; }
  const T& value() const& { return storage_.value; }
  T&& value() && { return std::move(storage_.value); }
  T* operator->() { return &storage_.value; }
  const T* operator->() const { return &storage_.value; }
  T& operator*() & { return storage_.value; }
  const T& operator*() const& { return storage_.value; }
  const Error& error() const noexcept { return storage_.error; }
  Status status() const noexcept { return has_value_ ? Status{} : Status{storage_.error}; }

 private:
  static Error checked(const Error& error) noexcept {
    if (error.code != ErrorCode::Ok) return error;
    return make_error(ErrorCode::InvalidState, "a failed Result was built from an ok Status");
  }
  void destroy() noexcept {
    if (has_value_) storage_.value.~T();
  }
  union Storage {
    Storage() noexcept {}
    ~Storage() {}
    T value;
    Error error;
  } storage_;
  bool has_value_;
};

}  // namespace gcsnap

/// Propagate a failed Status/Result out of the current function.
#define GCSNAP_RETURN_IF_ERROR(expr)            \
  do {                                          \
    auto gcsnap_status_ = (expr);               \
    if (!gcsnap_status_.is_ok()) return gcsnap_status_.error(); \
  } while (0)
