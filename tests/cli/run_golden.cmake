# Run one gcsnap command in WORKDIR and compare its exit code, stdout and stderr with a golden
# file; WORKDIR's path is written "<dir>" so that the files do not depend on the build tree.
#   -DGCSNAP=<binary> -DARGS="a|b|c" -DWORKDIR=<dir> -DEXPECTED=<file> [-DUPDATE=ON]
string(REPLACE "|" ";" args "${ARGS}")
unset(ENV{GCSNAP_WIDTH})  # golden output is what pipes get: full names
execute_process(COMMAND ${GCSNAP} ${args} WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REPLACE "${WORKDIR}/" "<dir>/" out "${out}")
string(REPLACE "${WORKDIR}/" "<dir>/" err "${err}")
set(actual "exit ${rc}\n--- stdout\n${out}--- stderr\n${err}")
if(UPDATE)
  file(WRITE "${EXPECTED}" "${actual}")
  return()
endif()
file(READ "${EXPECTED}" expected)
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "output of gcsnap ${args} differs from ${EXPECTED}\n=== actual\n${actual}=== expected\n${expected}")
endif()
