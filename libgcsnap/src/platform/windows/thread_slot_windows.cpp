#include <windows.h>

#include <new>

#include "platform/thread_cache.hpp"

namespace gcsnap::platform {

// Fiber-local storage: its callback runs at thread exit with the thread's value, while the
// thread's other storage is still there.
unsigned long create_thread_slot(ThreadSlotCleanup cleanup) {
  const DWORD slot = FlsAlloc(reinterpret_cast<PFLS_CALLBACK_FUNCTION>(cleanup));
  if (slot == FLS_OUT_OF_INDEXES) throw std::bad_alloc();
  return slot;
}

void* thread_slot_value(unsigned long slot) noexcept { return FlsGetValue(slot); }

void set_thread_slot_value(unsigned long slot, void* value) {
  if (!FlsSetValue(slot, value)) throw std::bad_alloc();
}

}  // namespace gcsnap::platform
