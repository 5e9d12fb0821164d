# dmlcert_instrument_plugin(<target> [SOURCES <source>...])
#
# Compiles a backend plugin with clang's SanitizerCoverage (-fsanitize-coverage=inline-8bit-counters,
# pc-table) so that `dmlcert certify` reports how much of its code the run reached
# (docs/coverage.md), and adds the weak registration hooks that let it link with
# -Wl,--no-undefined and load outside dmlcert. SOURCES narrows the instrumentation to those files
# of the target (the kernels, say); without it every C and C++ source of the target is
# instrumented. Code the target links from a static library is instrumented only if that library
# is compiled with the same flags (its own target_compile_options). Needs clang: GCC has no
# inline-8bit-counters.
set(DMLCERT_COVERAGE_HOOKS "${CMAKE_CURRENT_LIST_DIR}/dmlcert_coverage_hooks.c")
set(DMLCERT_COVERAGE_FLAGS -fsanitize-coverage=inline-8bit-counters,pc-table)

function(dmlcert_instrument_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "dmlcert_instrument_plugin(${target}): SanitizerCoverage's inline-8bit-counters need "
                        "clang; this build's compilers are ${CMAKE_C_COMPILER_ID} and ${CMAKE_CXX_COMPILER_ID} "
                        "(configure with -DCMAKE_CXX_COMPILER=clang++)")
  endif()
  if(ARG_SOURCES)
    set_property(SOURCE ${ARG_SOURCES} TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS
      ${DMLCERT_COVERAGE_FLAGS})
  else()
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:${DMLCERT_COVERAGE_FLAGS}>)
  endif()
  target_sources(${target} PRIVATE ${DMLCERT_COVERAGE_HOOKS})
  # Line tables name the source files and lines of the certificate's coverage.
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:-gline-tables-only>)
endfunction()
