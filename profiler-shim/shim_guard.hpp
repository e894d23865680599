#pragma once
// The one guard every COM entry point goes through: nothing thrown crosses into the runtime.
// A failure turns recording off, is said once on stderr, and becomes an HRESULT.

#include <exception>
#include <new>

#include "cor_profiler_abi.hpp"

namespace gcsnap::shim {

/// Turn recording off for good and say why, once. Safe from any thread, never throws.
void report_failure(const char* where, const char* what) noexcept;

template <typename Body>
com::HRESULT guarded(const char* where, com::HRESULT on_error, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    report_failure(where, "out of memory");
  } catch (const std::exception& e) {
    report_failure(where, e.what());
  } catch (...) {
    report_failure(where, "unknown exception");
  }
  return on_error;
}

}  // namespace gcsnap::shim
