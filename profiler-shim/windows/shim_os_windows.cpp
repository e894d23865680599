#include <windows.h>
#include <psapi.h>
#include <shellapi.h>

#include <cstdio>

#include "shim_os.hpp"
#include "windows/win_text.hpp"

namespace gcsnap::shim::os {

long current_pid() noexcept { return static_cast<long>(GetCurrentProcessId()); }

void write_stderr(std::string_view text) noexcept {
  HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
  if (err == nullptr || err == INVALID_HANDLE_VALUE) return;
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    DWORD written = 0;
    if (!WriteFile(err, p, static_cast<DWORD>(left), &written, nullptr) || written == 0) return;
    p += written;
    left -= written;
  }
}

// SetThreadDescription (Windows 10 1607) looked up at run time: older systems keep the
// thread unnamed.
void name_this_thread(const char* name) noexcept {
  using SetDescription = HRESULT(WINAPI*)(HANDLE, PCWSTR);
  HMODULE kernel = GetModuleHandleW(L"kernel32.dll");
  if (!kernel) return;
  auto set = reinterpret_cast<SetDescription>(reinterpret_cast<void*>(GetProcAddress(kernel, "SetThreadDescription")));
  if (!set) return;
  try {
    (void)set(GetCurrentThread(), widen(name).c_str());
  } catch (...) {
  }
}

ThreadClocks read_thread_clocks() noexcept {
  ThreadClocks c;
  LARGE_INTEGER count{}, frequency{};
  if (QueryPerformanceCounter(&count) && QueryPerformanceFrequency(&frequency) && frequency.QuadPart > 0) {
    c.wall_ns = uint64_t(double(count.QuadPart) * 1e9 / double(frequency.QuadPart));
  }
  FILETIME created{}, exited{}, kernel{}, user{};
  if (GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user)) {
    auto ticks = [](FILETIME t) { return (uint64_t(t.dwHighDateTime) << 32) | t.dwLowDateTime; };
    c.cpu_ns = (ticks(kernel) + ticks(user)) * 100;  // FILETIME counts 100 ns
  }
  return c;  // Windows counts page faults per process only
}

uint64_t resident_bytes() noexcept {
  PROCESS_MEMORY_COUNTERS counters{};
  counters.cb = sizeof(counters);
  // kernel32's K32 name (Windows 7 on): no psapi.dll to link.
  if (!K32GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof(counters))) return 0;
  return counters.WorkingSetSize;
}

void* map_memory(size_t bytes) noexcept {
  return VirtualAlloc(nullptr, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void unmap_memory(void* p, size_t) noexcept { VirtualFree(p, 0, MEM_RELEASE); }

void populate_memory(void*, size_t) noexcept {}

namespace {

std::string slashes(std::string path) {
  for (char& c : path) c = c == '\\' ? '/' : c;
  return path;
}

}  // namespace

CommandLine this_command_line() {
  CommandLine line;
  int argc = 0;
  wchar_t** argv = CommandLineToArgvW(GetCommandLineW(), &argc);
  if (argv) {
    for (int i = 0; i < argc; ++i) line.argv.push_back(slashes(narrow(argv[i])));
    LocalFree(argv);
  }
  std::wstring buffer(32768, L'\0');
  DWORD n = GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
  if (n > 0 && n < buffer.size()) line.exe = slashes(narrow(std::wstring_view(buffer.data(), n)));
  n = GetCurrentDirectoryW(static_cast<DWORD>(buffer.size()), buffer.data());
  line.cwd = n > 0 && n < buffer.size() ? slashes(narrow(std::wstring_view(buffer.data(), n))) : std::string(".");
  return line;
}

bool is_regular_file(const std::string& path) noexcept {
  try {
    DWORD attributes = GetFileAttributesW(widen(path).c_str());
    return attributes != INVALID_FILE_ATTRIBUTES && !(attributes & FILE_ATTRIBUTE_DIRECTORY);
  } catch (...) {
    return false;
  }
}

FileHandle create_new_file(const std::string& path, bool& existed, std::string& why) {
  // Shared like a POSIX file: gcsnap may read, rename or delete it while the app records.
  HANDLE h = CreateFileW(widen(path).c_str(), GENERIC_READ | GENERIC_WRITE,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, CREATE_NEW,
                         FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD code = GetLastError();
    existed = code == ERROR_FILE_EXISTS || code == ERROR_ALREADY_EXISTS;
    why = error_text(code);
    return kNoFile;
  }
  existed = false;
  return reinterpret_cast<FileHandle>(h);
}

void close_file(FileHandle f) noexcept {
  if (f != kNoFile) CloseHandle(reinterpret_cast<HANDLE>(f));
}

void remove_file(const std::string& path) noexcept {
  try {
    DeleteFileW(widen(path).c_str());
  } catch (...) {
  }
}

bool write_whole_file(const std::string& path, std::string_view text) noexcept {
  try {
    std::wstring temporary = widen(path + ".tmp");
    HANDLE h = CreateFileW(temporary.c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr,
                           CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) return false;
    DWORD written = 0;
    bool whole = WriteFile(h, text.data(), static_cast<DWORD>(text.size()), &written, nullptr) &&
                 written == text.size();
    CloseHandle(h);
    if (whole && MoveFileExW(temporary.c_str(), widen(path).c_str(), MOVEFILE_REPLACE_EXISTING)) return true;
    DeleteFileW(temporary.c_str());
    return false;
  } catch (...) {
    return false;
  }
}

bool process_exists(long pid) noexcept {
  HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(pid));
  if (!h) return GetLastError() != ERROR_INVALID_PARAMETER;  // access denied: it lives
  bool running = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
  CloseHandle(h);
  return running;
}

void keep_module_loaded() noexcept {
  HMODULE self = nullptr;
  (void)GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                           reinterpret_cast<LPCWSTR>(reinterpret_cast<void*>(&keep_module_loaded)), &self);
}

}  // namespace gcsnap::shim::os
