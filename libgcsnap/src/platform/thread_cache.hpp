#pragma once
// One object of type T per thread (a scratch buffer, a codec context), made on a thread's first
// use and destroyed when that thread exits: what `thread_local T` gives, with the Windows side
// built differently. There, with mingw-w64's emulated TLS, a thread_local's destructor can run
// after the thread's TLS block was freed (it crashed under Wine), so the object lives in a
// fiber-local slot instead, whose exit callback is handed the object itself.
// TAG tells apart two caches of the same type.

#if defined(_WIN32)
#include <new>
#endif

namespace gcsnap::platform {

#if defined(_WIN32)
using ThreadSlotCleanup = void (*)(void*) noexcept;
/// A new per-thread slot; CLEANUP receives a thread's non-null value when the thread exits.
/// Throws std::bad_alloc when the system has no slot left.
unsigned long create_thread_slot(ThreadSlotCleanup cleanup);
/// The calling thread's value of SLOT (null until set).
void* thread_slot_value(unsigned long slot) noexcept;
/// Set the calling thread's value of SLOT; throws std::bad_alloc on failure.
void set_thread_slot_value(unsigned long slot, void* value);
#endif

/// The calling thread's T for TAG, value-initialised on first use. Throws what T() throws.
template <typename T, typename Tag = T>
T& thread_cached() {
#if defined(_WIN32)
  static const unsigned long slot = create_thread_slot([](void* p) noexcept { delete static_cast<T*>(p); });
  if (void* p = thread_slot_value(slot)) return *static_cast<T*>(p);
  T* made = new T();
  try {
    set_thread_slot_value(slot, made);
  } catch (...) {
    delete made;
    throw;
  }
  return *made;
#else
  thread_local T value{};
  return value;
#endif
}

}  // namespace gcsnap::platform
