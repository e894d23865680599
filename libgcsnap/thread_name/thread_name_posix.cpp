#include <pthread.h>

#include "gcsnap_thread_name.hpp"

namespace gcsnap::platform {

void set_thread_name(const char* name) noexcept { (void)pthread_setname_np(pthread_self(), name); }

}  // namespace gcsnap::platform
