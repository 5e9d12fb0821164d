# The layers point one way (docs/design.md, "Layers"): core <- backends <- plugin host <- engine
# <- CLI. A target that links a library of a layer above it (directly or through its interface)
# stops the configuration here, before anything builds on the inversion.
function(dmlcert_check_layer target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "MUST_NOT_LINK")
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

dmlcert_check_layer(dmlcert_harness MUST_NOT_LINK dmlcert_reference dmlcert_optimized dmlcert_plugin
                    dmlcert_backends dmlcert_properties dmlcert_engine)
dmlcert_check_layer(dmlcert_properties MUST_NOT_LINK dmlcert_reference dmlcert_optimized dmlcert_plugin
                    dmlcert_backends dmlcert_engine)
dmlcert_check_layer(dmlcert_engine MUST_NOT_LINK dmlcert_reference dmlcert_optimized dmlcert_plugin dmlcert_backends)
foreach(backend dmlcert_reference dmlcert_optimized)
  if(TARGET ${backend})
    dmlcert_check_layer(${backend} MUST_NOT_LINK dmlcert_plugin dmlcert_backends dmlcert_engine)
  endif()
endforeach()
