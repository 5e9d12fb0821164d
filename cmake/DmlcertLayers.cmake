# The layers (docs/design.md, "Layers"), as the folders show them: each layer's library is built
# from its folder's files alone, and links only the layers it stands on. A target whose sources
# leave its folder, or that links a library it must not (directly or through its interface), stops
# the configuration here, before anything builds on the inversion.
#
#   layer        folder                     library
#   core         harness/core               dmlcert_harness
#   backends     backends/reference, ...    dmlcert_reference, dmlcert_optimized
#   plugin host  backends/plugin            dmlcert_plugin
#   registry     backends/registry.cpp      dmlcert_backends
#   generators   properties                 dmlcert_properties
#   engine       harness/engine             dmlcert_engine
#   CLI          harness/cli                dmlcert
function(dmlcert_check_layer target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "FOLDER" "MUST_NOT_LINK")
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  foreach(source IN LISTS sources)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${source_dir} OUTPUT_VARIABLE path)
    cmake_path(IS_PREFIX ARG_FOLDER "${path}" NORMALIZE inside)
    if(NOT inside)
      message(FATAL_ERROR "${target} builds ${source}, outside its layer's folder ${ARG_FOLDER} "
                          "(docs/design.md, \"Layers\")")
    endif()
  endforeach()
  get_target_property(links ${target} LINK_LIBRARIES)
  get_target_property(interface ${target} INTERFACE_LINK_LIBRARIES)
  foreach(lib IN LISTS links interface)
    foreach(forbidden IN LISTS ARG_MUST_NOT_LINK)
      if(lib MATCHES "(^|[^a-z_])${forbidden}($|[^a-z_])")
        message(FATAL_ERROR "${target} links ${forbidden} (${lib}): a layer may only link the layers below it "
                            "(docs/design.md, \"Layers\")")
      endif()
    endforeach()
  endforeach()
endfunction()

set(DMLCERT_ABOVE_THE_CORE dmlcert_reference dmlcert_optimized dmlcert_plugin dmlcert_backends dmlcert_properties
    dmlcert_engine)
dmlcert_check_layer(dmlcert_harness FOLDER ${PROJECT_SOURCE_DIR}/harness/core MUST_NOT_LINK ${DMLCERT_ABOVE_THE_CORE})
dmlcert_check_layer(dmlcert_reference FOLDER ${PROJECT_SOURCE_DIR}/backends/reference
                    MUST_NOT_LINK dmlcert_optimized dmlcert_plugin dmlcert_backends dmlcert_properties dmlcert_engine)
if(TARGET dmlcert_optimized)
  dmlcert_check_layer(dmlcert_optimized FOLDER ${PROJECT_SOURCE_DIR}/backends/optimized
                      MUST_NOT_LINK dmlcert_reference dmlcert_plugin dmlcert_backends dmlcert_properties dmlcert_engine)
endif()
dmlcert_check_layer(dmlcert_plugin FOLDER ${PROJECT_SOURCE_DIR}/backends/plugin
                    MUST_NOT_LINK dmlcert_reference dmlcert_optimized dmlcert_backends dmlcert_properties dmlcert_engine)
dmlcert_check_layer(dmlcert_backends FOLDER ${PROJECT_SOURCE_DIR}/backends MUST_NOT_LINK dmlcert_properties dmlcert_engine)
dmlcert_check_layer(dmlcert_properties FOLDER ${PROJECT_SOURCE_DIR}/properties
                    MUST_NOT_LINK dmlcert_reference dmlcert_optimized dmlcert_plugin dmlcert_backends dmlcert_engine)
dmlcert_check_layer(dmlcert_engine FOLDER ${PROJECT_SOURCE_DIR}/harness/engine
                    MUST_NOT_LINK dmlcert_reference dmlcert_optimized dmlcert_plugin dmlcert_backends)
dmlcert_check_layer(dmlcert FOLDER ${PROJECT_SOURCE_DIR}/harness/cli)
