# dmlcert_add_certification_test(NAME <name> PLUGIN <target-or-path> LEVEL <level>
#                                [BUDGET smoke|quick|standard|thorough] [TIMEOUT <seconds per call>]
#                                [OPS <operator>...])
#
# Registers a CTest test that certifies a backend plugin with `dmlcert certify`. PLUGIN is a
# CMake target (a MODULE or SHARED library exporting dmlcert_get_backend) or a path to the
# library. The test passes when the plugin is certified at LEVEL. Reports (JSON, JUnit XML,
# Markdown, HTML) and repro files of failures go to ${CMAKE_CURRENT_BINARY_DIR}/dmlcert/<name>/.
function(dmlcert_add_certification_test)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;PLUGIN;LEVEL;BUDGET;TIMEOUT" "OPS")
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
  set(out "${CMAKE_CURRENT_BINARY_DIR}/dmlcert/${ARG_NAME}")
  set(extra)
  if(ARG_TIMEOUT)
    list(APPEND extra --timeout ${ARG_TIMEOUT})
  endif()
  if(ARG_OPS)
    list(JOIN ARG_OPS "," ops)
    list(APPEND extra --ops ${ops})
  endif()
  add_test(NAME ${ARG_NAME}
    COMMAND dmlcert::cli certify --backend "plugin:${library}" --level ${ARG_LEVEL} --budget ${ARG_BUDGET}
            --repro-dir "${out}/repros" --report "${out}/report.json" --junit "${out}/junit.xml"
            --markdown "${out}/report.md" --html "${out}/report.html" ${extra})
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS dmlcert-certification TIMEOUT 3600)
endfunction()
