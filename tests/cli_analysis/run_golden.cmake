# Run one gcsnap command and compare stdout (and the exit code) with a golden file.
#   -DGCSNAP=<binary> -DARGS="a|b|c" -DFIXTURE=<snap> -DEXPECTED=<file> [-DUPDATE=1]
# Golden files keep the output with the fixture directory replaced by "<dir>".
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${GCSNAP} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
get_filename_component(dir "${FIXTURE}" DIRECTORY)
string(REPLACE "${dir}/" "<dir>/" out "${out}")
string(REPLACE "${dir}/" "<dir>/" err "${err}")
set(actual "exit ${rc}\n--- stdout\n${out}--- stderr\n${err}")
if(UPDATE)
  file(WRITE "${EXPECTED}" "${actual}")
  return()
endif()
file(READ "${EXPECTED}" expected)
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "output differs from ${EXPECTED}\n=== actual\n${actual}=== expected\n${expected}")
endif()
