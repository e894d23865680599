#pragma once
// UTF-8 <-> UTF-16 for the shim's Windows parts (the shim speaks UTF-8 everywhere else).

#include <windows.h>

#include <string>
#include <string_view>

#include "gcsnap_utf16_text.hpp"

namespace gcsnap::shim::os {

/// TEXT as UTF-16; "" when it is not UTF-8 (then the system finds no such name).
inline std::wstring widen(std::string_view text) {
  return gcsnap::text::utf16_from_utf8<wchar_t>(text).value_or(std::wstring());
}

/// TEXT as UTF-8 (an unpaired surrogate becomes U+FFFD).
inline std::string narrow(std::wstring_view text) { return gcsnap::text::utf8_from_utf16<wchar_t>(text); }

/// The system's message for error CODE, on one line.
inline std::string error_text(DWORD code) {
  wchar_t* buffer = nullptr;
  DWORD n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                           nullptr, code, 0, reinterpret_cast<wchar_t*>(&buffer), 0, nullptr);
  std::string text = n ? narrow(std::wstring_view(buffer, n)) : std::string();
  if (buffer) LocalFree(buffer);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == '.' || text.back() == ' '))
    text.pop_back();
  if (text.empty()) text = "Windows error " + std::to_string(code);
  return text;
}

}  // namespace gcsnap::shim::os
