# Runs a built program and writes its standard output to a file, failing
# the build when it fails: -DEXE=program -DARGS="arg arg" -DOUT=file
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${EXE} ${args} OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "${EXE} ${ARGS}: exit status ${rc}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
