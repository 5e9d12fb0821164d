# The vendor section of README.md, as a vendor follows it: installs the dmlcert build tree to a
# prefix, then configures, builds and tests tests/external_project (the README's CMakeLists.txt
# and a C plugin) against that package with every package but CMake's own hidden, so that only the
# abi component's requirements are met. Arguments: -DDMLCERT_BUILD=... -DSOURCE=... -DWORK=...
# -DGENERATOR=...
set(prefix "${WORK}/prefix")
file(REMOVE_RECURSE "${WORK}")
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install "${DMLCERT_BUILD}" --prefix "${prefix}")
set(hidden)
foreach(package Eigen3 nlohmann_json CLI11 rapidcheck GTest benchmark Torch)
  list(APPEND hidden "-DCMAKE_DISABLE_FIND_PACKAGE_${package}=ON")
endforeach()
step(${CMAKE_COMMAND} -S "${SOURCE}" -B "${WORK}/build" -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}"
     -DCMAKE_BUILD_TYPE=Release ${hidden})
step(${CMAKE_COMMAND} --build "${WORK}/build" -j 2)
step(${CMAKE_CTEST_COMMAND} --test-dir "${WORK}/build" --output-on-failure)
