#include <windows.h>

#include <string>

#include "platform/thread_name.hpp"
#include "platform/windows/win_error.hpp"

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
    (void)set(GetCurrentThread(), widen(name).c_str());
  } catch (...) {
  }
}

}  // namespace gcsnap::platform
