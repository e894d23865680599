# The generator must reproduce the committed golden files byte for byte: a format change that
# did not update tests/golden/ (and format-spec.md) fails here.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
# EMULATOR runs a cross-compiled generator (wine for the Windows build); empty otherwise.
execute_process(COMMAND ${EMULATOR} ${GENERATOR} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_golden failed: ${rc}")
endif()
file(GLOB generated RELATIVE ${OUT} ${OUT}/*.snap)
foreach(name ${generated})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${name} ${GOLDEN}/${name} RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "tests/golden/${name} differs from what make_golden writes now")
  endif()
endforeach()
