# Installs the dmlcert build tree to a prefix, then configures, builds and tests the external
# toy project against that installed package. Arguments: -DDMLCERT_BUILD=... -DSOURCE=...
# -DWORK=... -DGENERATOR=...
set(prefix "${WORK}/prefix")
file(REMOVE_RECURSE "${WORK}")
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install "${DMLCERT_BUILD}" --prefix "${prefix}")
step(${CMAKE_COMMAND} -S "${SOURCE}" -B "${WORK}/build" -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}"
     -DCMAKE_BUILD_TYPE=Release)
step(${CMAKE_COMMAND} --build "${WORK}/build" -j 2)
step(${CMAKE_CTEST_COMMAND} --test-dir "${WORK}/build" --output-on-failure)
