# Cross-compile for 64-bit Windows with Debian's mingw-w64 (g++-mingw-w64-x86-64-posix: the posix
# thread model gives std::thread). scripts/build-windows.sh passes GCSNAP_WINDOWS_DEPS, the prefix
# its dependencies for Windows are installed into; programs still come from the build machine.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(gcsnap_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${gcsnap_mingw}-gcc-posix)
set(CMAKE_CXX_COMPILER ${gcsnap_mingw}-g++-posix)
set(CMAKE_RC_COMPILER ${gcsnap_mingw}-windres)
set(CMAKE_AR ${gcsnap_mingw}-gcc-ar-posix CACHE FILEPATH "")
set(CMAKE_RANLIB ${gcsnap_mingw}-gcc-ranlib-posix CACHE FILEPATH "")

set(CMAKE_FIND_ROOT_PATH /usr/${gcsnap_mingw})
if(DEFINED ENV{GCSNAP_WINDOWS_DEPS})
  list(PREPEND CMAKE_FIND_ROOT_PATH $ENV{GCSNAP_WINDOWS_DEPS})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# One self-contained .exe/.dll each: the C++ runtime, libgcc and winpthread linked in, so that
# nothing beside them has to be shipped or found on PATH.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static")
