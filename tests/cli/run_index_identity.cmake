# Run one gcsnap command from the recording alone and with the analysis index, and require
# byte-identical results (exit code, stdout, stderr) (format-spec.md §12):
#   1. with --no-cache (must write no index);
#   2. as is, with no index present: the commands that build the index (BUILDS=ON) must leave it;
#   3. after `gcsnap index SPEC`, answering from the index.
#   -DGCSNAP=<binary> -DARGS="a|b|c" -DSPEC=<FILE or FILE:N> -DINDEX=<its index file> -DBUILDS=ON|OFF
cmake_minimum_required(VERSION 3.20)
string(REPLACE "|" ";" args "${ARGS}")
file(REMOVE "${INDEX}")
execute_process(COMMAND ${GCSNAP} ${args} --no-cache RESULT_VARIABLE rc0 OUTPUT_VARIABLE out0 ERROR_VARIABLE err0)
if(EXISTS "${INDEX}")
  message(FATAL_ERROR "--no-cache wrote ${INDEX}")
endif()
set(plain "exit ${rc0}\n--- stdout\n${out0}--- stderr\n${err0}")
if(out0 STREQUAL "" AND err0 STREQUAL "")
  message(FATAL_ERROR "gcsnap ${args} --no-cache printed nothing\n${plain}")
endif()
foreach(run build use)
  if(run STREQUAL "use")
    execute_process(COMMAND ${GCSNAP} index ${SPEC} RESULT_VARIABLE irc OUTPUT_VARIABLE iout ERROR_VARIABLE ierr)
    if(NOT irc EQUAL 0 OR NOT EXISTS "${INDEX}")
      message(FATAL_ERROR "gcsnap index ${SPEC} failed (exit ${irc}) or wrote no ${INDEX}\n${iout}${ierr}")
    endif()
    if(BUILDS AND NOT iout MATCHES "up to date")
      message(FATAL_ERROR "gcsnap ${args} did not leave a valid index:\n${iout}")
    endif()
  endif()
  execute_process(COMMAND ${GCSNAP} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(indexed "exit ${rc}\n--- stdout\n${out}--- stderr\n${err}")
  if(NOT indexed STREQUAL plain)
    message(FATAL_ERROR "gcsnap ${args}: output with the index (${run}) differs\n=== with\n${indexed}=== without\n${plain}")
  endif()
endforeach()
