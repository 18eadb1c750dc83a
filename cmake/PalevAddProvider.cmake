# SPDX-License-Identifier: MIT
# palev_add_provider(): run palev-gen on a manifest and wire its output into a target.
#
#   palev_add_provider(<target> <manifest>
#                      [PROVIDER_NAME <ETWNAME=LTTNGNAME>...]
#                      [PROVIDERS <lttng-name>...]
#                      [OUTPUT_DIRECTORY <dir>])
#
# Generates the provider files at build time (rerun only when the manifest or palev-gen change),
# adds <P>-events.c and the include directory to <target>, links it with paleventing and -ldl
# (never -llttng-ust), and builds each probe provider lib<P>-lttng.so next to <target>, where the
# loader finds it. PROVIDERS lists the LTTng provider names of the manifest; when omitted they are
# asked from palev-gen at configure time (palev-gen must then already be built, as it is when
# paleventing comes from find_package()).

function(palev_add_provider target manifest)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "OUTPUT_DIRECTORY" "PROVIDER_NAME;PROVIDERS")
  get_filename_component(manifest "${manifest}" ABSOLUTE)
  if(TARGET palev-gen)
    set(gen palev-gen)
    set(gen_file $<TARGET_FILE:palev-gen>)
  else()
    set(gen paleventing::palev-gen)
    set(gen_file $<TARGET_FILE:paleventing::palev-gen>)
  endif()
  set(renames)
  foreach(r ${arg_PROVIDER_NAME})
    list(APPEND renames --provider-name ${r})
  endforeach()
  if(NOT arg_PROVIDERS)
    get_target_property(gen_path ${gen} LOCATION)
    execute_process(COMMAND ${gen_path} providers ${renames} ${manifest}
      OUTPUT_VARIABLE providers ERROR_VARIABLE errors RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "palev_add_provider(${target}): palev-gen providers failed:\n${errors}")
    endif()
    string(REPLACE "\n" ";" arg_PROVIDERS "${providers}")
    list(FILTER arg_PROVIDERS EXCLUDE REGEX "^$")
  endif()
  if(NOT arg_OUTPUT_DIRECTORY)
    get_filename_component(stem "${manifest}" NAME_WE)
    set(arg_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/palev-gen/${target}/${stem})
  endif()
  set(dir ${arg_OUTPUT_DIRECTORY})

  set(outputs)
  foreach(p ${arg_PROVIDERS})
    list(APPEND outputs ${dir}/${p}-tp.h ${dir}/${p}-probe.c ${dir}/${p}-events.h ${dir}/${p}-events.c)
  endforeach()
  add_custom_command(OUTPUT ${outputs}
    COMMAND ${gen_file} generate ${renames} -o ${dir} ${manifest}
    DEPENDS ${gen} ${manifest}
    COMMENT "palev-gen: ${manifest}"
    VERBATIM)

  pkg_check_modules(PALEV_LTTNG_UST REQUIRED IMPORTED_TARGET lttng-ust>=2.13)
  foreach(p ${arg_PROVIDERS})
    set(probe ${p}-lttng)
    if(NOT TARGET ${probe})
      # The probe provider: C (C++ probes get dynamic initialisers), the only lttng-ust user.
      add_library(${probe} MODULE ${dir}/${p}-probe.c ${dir}/${p}-tp.h)
      set_target_properties(${probe} PROPERTIES PREFIX lib OUTPUT_NAME ${p}-lttng C_STANDARD 11)
      target_include_directories(${probe} PRIVATE ${dir})
      target_link_libraries(${probe} PRIVATE PkgConfig::PALEV_LTTNG_UST)
    endif()
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      set_target_properties(${probe} PROPERTIES LIBRARY_OUTPUT_DIRECTORY $<TARGET_FILE_DIR:${target}>)
    endif()
    add_dependencies(${target} ${probe})
    target_sources(${target} PRIVATE ${dir}/${p}-events.c ${dir}/${p}-events.h)
  endforeach()
  target_include_directories(${target} PRIVATE ${dir})
  if(TARGET paleventing)
    target_link_libraries(${target} PRIVATE paleventing ${CMAKE_DL_LIBS})
  else()
    target_link_libraries(${target} PRIVATE paleventing::paleventing ${CMAKE_DL_LIBS})
  endif()
endfunction()
