#pragma once
// Files and folders where the systems differ, one implementation per operating system
// (posix/files_posix.cpp, windows/files_windows.cpp): UTF-8 names as paths (Windows paths
// are UTF-16), a private temporary folder, the local time of file names, and the output file
// an attached shim writes (created here, then handed over the control channel: a descriptor
// over the Unix socket, a HANDLE that the control client duplicates into the shim's process).

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <string>

namespace gcsnap::cli {

/// UTF-8 text as a path, and a path as UTF-8 text.
std::filesystem::path path_of(const std::string& text);
std::string utf8(const std::filesystem::path& path);
/// Whether anything (a file, a folder, a dangling link) has the name PATH.
bool path_taken(const std::string& path);
/// Create a folder only this user can use, named PREFIX plus a unique tail, in the temporary
/// folder ($TMPDIR or /tmp; %TEMP%); return its name. Throws CliError (kExitNotRecorded).
std::string make_private_directory(const std::string& prefix);
/// NOW as local time.
std::tm local_time(std::time_t now);

/// The output file of an attached session: created by gcsnap, so it belongs to the user of
/// gcsnap and lives where gcsnap sees it, then handed to the shim.
class AttachOutput {
 public:
  /// Create PATH, which must not exist, for reading and writing. Throws CliError
  /// ("output path not writable: PATH: why", kExitNotRecorded).
  explicit AttachOutput(const std::string& path);
  ~AttachOutput();
  AttachOutput(const AttachOutput&) = delete;
  AttachOutput& operator=(const AttachOutput&) = delete;

  /// The descriptor (POSIX) or HANDLE (Windows) for shim::send_control_request; -1 once closed.
  intptr_t handle() const noexcept { return handle_; }
  /// Close gcsnap's own handle (the shim keeps its copy).
  void close() noexcept;
  /// Close and delete the file (nothing was recorded into it).
  void discard() noexcept;

 private:
  std::string path_;
  intptr_t handle_ = -1;
};

}  // namespace gcsnap::cli
