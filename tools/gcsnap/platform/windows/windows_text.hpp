#pragma once
// Text at the Windows API boundary: UTF-8 inside gcsnap, UTF-16 in the API.
#include <windows.h>

#include <string>

#include "gcsnap_utf16_text.hpp"
#include "platform/files.hpp"  // utf8(), path_of()

namespace gcsnap::cli {

/// UTF-8 to UTF-16 ("" for text that is not UTF-8: the system then finds no such name).
inline std::wstring widen(const std::string& text) {
  return gcsnap::text::utf16_from_utf8<wchar_t>(text).value_or(std::wstring());
}

/// UTF-16 to UTF-8.
inline std::string narrow(const std::wstring& text) { return gcsnap::text::utf8_from_utf16<wchar_t>(text); }

/// The system's text for error ERR, without the trailing line break.
inline std::string system_message(DWORD err) {
  wchar_t* text = nullptr;
  DWORD n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                           nullptr, err, 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
  std::string out = n && text ? narrow(std::wstring(text, n)) : std::string();
  if (text) LocalFree(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == '.' || out.back() == ' ')) out.pop_back();
  if (out.empty()) out = "error " + std::to_string(err);
  return out;
}

}  // namespace gcsnap::cli
