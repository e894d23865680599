# Every target of this project builds with the same warnings: each one calls
# gcsnap_set_warnings. They are set per target (PRIVATE), so that consumers of the installed
# package never inherit them. scripts/build.sh prints the flags and the warnings.
# MSVC (the msvc preset, never built here) gets its nearest equivalents; the GCC/Clang flags
# stay behind the check.
if(MSVC)
  set(GCSNAP_WARNING_FLAGS /W4 /permissive- /utf-8)
else()
  set(GCSNAP_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wnon-virtual-dtor)
endif()
list(JOIN GCSNAP_WARNING_FLAGS " " gcsnap_warning_text)
message(STATUS "gcsnap warning flags: ${gcsnap_warning_text}")

function(gcsnap_set_warnings target)
  target_compile_options(${target} PRIVATE ${GCSNAP_WARNING_FLAGS})
endfunction()
