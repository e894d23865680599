# Run the gcsnap binary and compare stdout, stderr and the exit code with committed files.
# -DCLI=<binary> -DARGS=<;-list> -DWORKDIR=<dir> -DEXPECTED=<path prefix> [-DUPDATE=1]
execute_process(COMMAND ${CLI} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(got "exit: ${rc}\n--- stdout\n${out}--- stderr\n${err}")
if(UPDATE)
  file(WRITE ${EXPECTED}.txt "${got}")
  return()
endif()
file(READ ${EXPECTED}.txt want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "output of gcsnap ${ARGS} differs from ${EXPECTED}.txt\n--- got:\n${got}\n--- want:\n${want}")
endif()
