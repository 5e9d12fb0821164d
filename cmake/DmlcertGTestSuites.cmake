# dmlcert_add_gtest_suites(TARGET): one CTest test per GoogleTest suite of TARGET, each running
# `TARGET --gtest_filter=SUITE.*`, found when ctest starts (as gtest_discover_tests' PRE_TEST mode
# finds tests). One process per test cost about 0.4 s of start-up and exit each under the
# sanitizers (shadow memory, the leak check at exit), 520 s of the sanitize run's 1,510 s of test
# time for 1,340 tests that take less than a second; one per suite pays it about 200 times.
# gtest prints each test of a suite as it runs, and names the failing ones at the end.
function(dmlcert_add_gtest_suites target)
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  file(GENERATE OUTPUT "${script}" CONTENT
"set(DMLCERT_GTEST_EXECUTABLE \"$<TARGET_FILE:${target}>\")
set(DMLCERT_GTEST_TARGET \"${target}\")
include(\"${PROJECT_SOURCE_DIR}/cmake/DmlcertGTestSuitesList.cmake\")
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()
