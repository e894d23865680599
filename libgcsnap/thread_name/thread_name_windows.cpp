#include <windows.h>

#include <cstring>
#include <string>

#include "gcsnap_thread_name.hpp"

namespace gcsnap::platform {

// SetThreadDescription (Windows 10 1607) looked up at run time: older systems (and Wine 8 has
// it as a stub) simply keep the thread unnamed.
void set_thread_name(const char* name) noexcept {
  using SetDescription = HRESULT(WINAPI*)(HANDLE, PCWSTR);
  HMODULE kernel = GetModuleHandleW(L"kernel32.dll");
  if (!kernel) return;
  auto set = reinterpret_cast<SetDescription>(reinterpret_cast<void*>(GetProcAddress(kernel, "SetThreadDescription")));
  if (!set) return;
  try {
    const int size = static_cast<int>(std::strlen(name));
    const int n = MultiByteToWideChar(CP_UTF8, 0, name, size, nullptr, 0);
    if (n <= 0) return;
    std::wstring wide(static_cast<size_t>(n), L'\0');
    MultiByteToWideChar(CP_UTF8, 0, name, size, wide.data(), n);
    (void)set(GetCurrentThread(), wide.c_str());
  } catch (...) {
  }
}

}  // namespace gcsnap::platform
