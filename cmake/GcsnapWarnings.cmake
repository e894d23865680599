# Warnings are set per target so that consumers of the installed package never inherit them.
function(gcsnap_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                         -Wno-sign-conversion -Wnon-virtual-dtor)
endfunction()
