# Run by ctest (cmake/DmlcertGTestSuites.cmake): lists DMLCERT_GTEST_EXECUTABLE's suites and adds a
# test for each. A binary that cannot list its tests (not built, crashing at start) is one failing
# test that says so, not a silently empty run.
execute_process(COMMAND "${DMLCERT_GTEST_EXECUTABLE}" --gtest_list_tests
  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 120)
if(NOT status EQUAL 0)
  add_test("${DMLCERT_GTEST_TARGET}_lists_its_tests" "${DMLCERT_GTEST_EXECUTABLE}" --gtest_list_tests)
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  # A suite's line starts in the first column and ends with its name's dot ("Prefix/Suite." for a
  # parameterized one, maybe followed by "  # TypeParam = ..."); its tests' lines are indented.
  if(line MATCHES "^([^ #][^ ]*)\\.( |$)")
    set(suite "${CMAKE_MATCH_1}")
    add_test("${suite}" "${DMLCERT_GTEST_EXECUTABLE}" "--gtest_filter=${suite}.*")
  endif()
endforeach()
