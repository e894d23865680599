#pragma once
// Files and folders where the systems differ, one implementation per operating system
// (posix/files_posix.cpp, windows/files_windows.cpp): UTF-8 names as paths (Windows paths
// are UTF-16), a private temporary folder, the local time of file names, and the output file
// an attached shim writes (created here, then handed over the control channel: a descriptor
// over the Unix socket, a HANDLE that the control client duplicates into the shim's process).

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>

namespace gcsnap::cli {

/// UTF-8 text as a path, and a path as UTF-8 text.
std::filesystem::path path_of(const std::string& text);
std::string utf8(const std::filesystem::path& path);
/// Whether anything (a file, a folder, a dangling link) has the name PATH.
bool path_taken(const std::string& path);

// What prepare_output (process/record_launch.hpp) asks of the file system: the answers only,
// its rules and messages are its own.
/// Whether C separates folders in a path: '/' (POSIX); '/' or '\\' (Windows).
bool is_path_separator(char c) noexcept;
/// PATH made absolute against the current folder; nullopt when that folder cannot be told.
std::optional<std::string> absolute_path(const std::string& path);
/// The folder part of the absolute PATH.
std::string parent_directory(const std::string& path);
/// Whether PATH names a folder (a link to one counts).
bool is_directory(const std::string& path);
/// Why a new file cannot be made in folder DIR, in the system's words; "" when it can.
std::string why_not_writable(const std::string& dir);
/// What has the name PATH: nothing, a folder, or anything else (on POSIX a link is not
/// followed: a link is Other).
enum class NameKind { None, Directory, Other };
NameKind name_kind(const std::string& path);
/// Remove the file PATH: "" when done, otherwise why not, in the system's words.
std::string remove_file(const std::string& path);
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
