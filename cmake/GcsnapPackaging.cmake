# What a user installs (the "runtime" component) and the release packages CPack makes of it.
# `cmake --install BUILD --component runtime` (scripts/install.sh) and the packages
# (scripts/package.sh: cpack -G "TGZ;DEB") hold the same files:
#   bin/gcsnap, lib/gcsnap/libgcsnap_profiler.so (where `gcsnap` looks for it),
#   share/man/man1/gcsnap.1, share/doc/gcsnap/ (README.md, format-spec.md, docs/*.md and the
#   images they show, docs/*.png).
# The library, its headers and its CMake package are the "development" component.
install(FILES ${PROJECT_SOURCE_DIR}/docs/gcsnap.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/format-spec.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs COMPONENT runtime
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png")

set(GCSNAP_DESCRIPTION "Record the .NET GC heap at every garbage collection, then ask why an object is still alive and what changed between two moments of the heap")
set(CPACK_PACKAGE_NAME gcsnap)
set(CPACK_PACKAGE_VENDOR gcsnap)
set(CPACK_PACKAGE_CONTACT "gcsnap maintainers <gcsnap@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Record and analyse the .NET GC heap")
set(CPACK_PACKAGE_DESCRIPTION "${GCSNAP_DESCRIPTION}.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_FILE_NAME gcsnap-${PROJECT_VERSION}-linux-x64)
# One package of the runtime component alone (build dir; project; component; subdirectory).
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};gcsnap;runtime;/")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
# scripts/package.sh passes CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= X)" with the newest glibc
# symbol version the binaries use (they need nothing else).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
include(CPack)
