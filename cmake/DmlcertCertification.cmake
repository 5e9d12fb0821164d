# dmlcert_add_certification_test(NAME <name> PLUGIN <target-or-path> LEVEL <level>
#                                [BUDGET smoke|quick|standard|thorough] [TIMEOUT <seconds per call>]
#                                [OPS <operator>...] [EXPECT <file>] [COVERAGE] [ARGS <certify option>...])
#
# Registers a CTest test that certifies a backend plugin with `dmlcert certify`. PLUGIN is a
# CMake target (a MODULE or SHARED library exporting dmlcert_get_backend) or a path to the
# library. The test passes when the plugin is certified at LEVEL. Reports (JSON, JUnit XML,
# Markdown, HTML) and repro files of failures go to ${CMAKE_CURRENT_BINARY_DIR}/dmlcert/<name>/.
# OPS narrows the scope to these operators; EXPECT names a file of known failures (relative to
# the calling CMakeLists.txt), which then do not fail the test; ARGS go to `dmlcert certify` as
# they are. COVERAGE compiles PLUGIN (a target) with SanitizerCoverage through
# dmlcert_instrument_plugin() (cmake/DmlcertCoverage.cmake; needs clang), and the reports then say
# how much of its code the run reached, with an lcov tracefile (coverage.info) and genhtml's pages
# (coverage/index.html) beside them (docs/coverage.md).
#
# The test's CTest TIMEOUT follows the budget (smoke 5 min, quick 15 min, standard 1 h, thorough 4 h), and
# dmlcert is told to stop 2 minutes before it (--time-limit), so that even a backend that hangs
# or crawls ends with a complete set of reports, marked incomplete; dmlcert also rewrites them
# every 10 s, so a run killed from outside still leaves one behind.
function(dmlcert_add_certification_test)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "COVERAGE" "NAME;PLUGIN;LEVEL;BUDGET;TIMEOUT;EXPECT" "OPS;ARGS")
  if(NOT ARG_NAME OR NOT ARG_PLUGIN)
    message(FATAL_ERROR "dmlcert_add_certification_test: NAME and PLUGIN are required")
  endif()
  if(NOT ARG_LEVEL)
    set(ARG_LEVEL 5_0)
  endif()
  if(NOT ARG_BUDGET)
    set(ARG_BUDGET quick)
  endif()
  if(TARGET ${ARG_PLUGIN})
    set(library "$<TARGET_FILE:${ARG_PLUGIN}>")
  else()
    get_filename_component(library "${ARG_PLUGIN}" ABSOLUTE)
  endif()
  if(ARG_BUDGET STREQUAL "smoke")
    set(ctest_timeout 300)
  elseif(ARG_BUDGET STREQUAL "quick")
    set(ctest_timeout 900)
  elseif(ARG_BUDGET STREQUAL "standard")
    set(ctest_timeout 3600)
  elseif(ARG_BUDGET STREQUAL "thorough")
    set(ctest_timeout 14400)
  else()
    message(FATAL_ERROR "dmlcert_add_certification_test: BUDGET must be smoke, quick, standard or thorough, "
                        "not '${ARG_BUDGET}'")
  endif()
  math(EXPR time_limit "${ctest_timeout} - 120")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/dmlcert/${ARG_NAME}")
  set(extra --time-limit ${time_limit})
  if(ARG_TIMEOUT)
    list(APPEND extra --timeout ${ARG_TIMEOUT})
  endif()
  if(ARG_OPS)
    list(JOIN ARG_OPS "," ops)
    list(APPEND extra --ops ${ops})
  endif()
  if(ARG_EXPECT)
    get_filename_component(expect "${ARG_EXPECT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND extra --expect "${expect}")
  endif()
  if(ARG_COVERAGE)
    if(NOT TARGET ${ARG_PLUGIN})
      message(FATAL_ERROR "dmlcert_add_certification_test(${ARG_NAME}): COVERAGE needs PLUGIN to be a target "
                          "(it is compiled with SanitizerCoverage); for a prebuilt library, build it with the "
                          "flags docs/coverage.md gives and pass ARGS --coverage-html <dir>")
    endif()
    dmlcert_instrument_plugin(${ARG_PLUGIN})
    list(APPEND extra --coverage-lcov "${out}/coverage.info" --coverage-html "${out}/coverage")
  endif()
  list(APPEND extra ${ARG_ARGS})
  add_test(NAME ${ARG_NAME}
    COMMAND dmlcert::cli certify --backend "plugin:${library}" --level ${ARG_LEVEL} --budget ${ARG_BUDGET}
            --repro-dir "${out}/repros" --report "${out}/report.json" --junit "${out}/junit.xml"
            --markdown "${out}/report.md" --html "${out}/report.html" ${extra})
  # COST: a parallel ctest without timings of an earlier run (a fresh build) starts the costliest
  # tests first; a certification left for last would run alone at the end.
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS dmlcert-certification TIMEOUT ${ctest_timeout}
    COST ${ctest_timeout})
endfunction()
