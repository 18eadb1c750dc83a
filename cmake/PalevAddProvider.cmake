# SPDX-License-Identifier: MIT
# palev_add_provider(): run palev-gen on a manifest and wire its output into a target.
#
#   palev_add_provider(<target> <manifest>
#                      [PROVIDER_NAME <ETWNAME=LTTNGNAME>...]
#                      [PROVIDERS <lttng-name>...]
#                      [SYMBOL_PREFIX <prefix>]
#                      [OUTPUT_DIRECTORY <dir>]
#                      [USDT])
#
# Generates the provider files at build time (rerun when the manifest or palev-gen change) into
# OUTPUT_DIRECTORY (default: <current binary dir>/palev-gen/<target>/<manifest stem>), adds each
# <P>-events.c and that directory to <target>, links it with paleventing::paleventing and -ldl
# (never -llttng-ust), and builds each probe provider lib<P>-lttng.so (the MODULE target <P>-lttng,
# C, linked with lttng-ust) next to <target>, where the loader finds it (beside the executable, or
# beside the shared library or plugin whose P-events.c registers it): install it there too.
#
# SYMBOL_PREFIX names the stubs FireEvent<prefix><Sym>() (and EventEnabled, EventDescriptor), so
# one translation unit can include two manifests whose events share symbols.
#
# PROVIDERS lists the LTTng provider names of the manifest (after PROVIDER_NAME renames). With the
# installed package it may be omitted: it is then asked from palev-gen at configure time, again
# whenever the manifest changes. Inside the paleventing build tree (or add_subdirectory()),
# palev-gen does not exist yet at configure time, so PROVIDERS is required there.
#
# USDT: every event is also the USDT probe <P>:<Event> with a semaphore (palev-gen generate --usdt),
# for bpftrace, BCC, perf probe and SystemTap; needs sys/sdt.h (Debian: systemtap-sdt-dev).
#
# Works with find_package(paleventing) and inside paleventing's own tree; needs the C language.

# The generator: the build target inside paleventing's tree, else the imported one.
function(_palev_generator out_gen out_imported)
  if(TARGET palev-gen)
    get_target_property(imported palev-gen IMPORTED)
    if(NOT imported)
      set(${out_gen} palev-gen PARENT_SCOPE)
      set(${out_imported} FALSE PARENT_SCOPE)
      return()
    endif()
  endif()
  if(NOT TARGET paleventing::palev-gen)
    message(FATAL_ERROR "palev_add_provider(): no palev-gen: call find_package(paleventing) first")
  endif()
  set(${out_gen} paleventing::palev-gen PARENT_SCOPE)
  set(${out_imported} TRUE PARENT_SCOPE)
endfunction()

# The LTTng provider names palev-gen derives from the manifest (only with an imported palev-gen).
function(_palev_query_providers out gen manifest renames)
  get_target_property(gen_path ${gen} LOCATION)
  execute_process(COMMAND ${gen_path} providers ${renames} ${manifest}
    OUTPUT_VARIABLE providers ERROR_VARIABLE errors RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "palev_add_provider(): ${gen_path} providers ${manifest} exited ${rc}:\n"
                        "${errors}")
  endif()
  string(REGEX REPLACE "\n+$" "" providers "${providers}")
  string(REPLACE "\n" ";" providers "${providers}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${manifest})
  set(${out} ${providers} PARENT_SCOPE)
endfunction()

# The probe provider lib<p>-lttng.so, built once per provider name however many targets use it.
function(_palev_probe p dir manifest target)
  set(probe ${p}-lttng)
  if(TARGET ${probe})
    get_target_property(from ${probe} PALEV_MANIFEST)
    if(NOT from STREQUAL manifest)
      message(FATAL_ERROR "palev_add_provider(${target}): provider ${p} of ${manifest} is already "
                          "built from ${from}")
    endif()
    return()
  endif()
  if(NOT TARGET PkgConfig::PALEV_LTTNG_UST)
    if(NOT COMMAND pkg_check_modules)
      find_package(PkgConfig REQUIRED)
    endif()
    pkg_check_modules(PALEV_LTTNG_UST REQUIRED IMPORTED_TARGET GLOBAL lttng-ust>=2.13)
  endif()
  # C only: probe units compiled as C++ get dynamic initialisers. The only lttng-ust user.
  add_library(${probe} MODULE ${dir}/${p}-probe.c ${dir}/${p}-tp.h)
  set_target_properties(${probe} PROPERTIES
    PREFIX lib OUTPUT_NAME ${p}-lttng C_STANDARD 11 PALEV_MANIFEST ${manifest})
  target_include_directories(${probe} PRIVATE ${dir})
  target_link_libraries(${probe} PRIVATE PkgConfig::PALEV_LTTNG_UST)
endfunction()

function(palev_add_provider target manifest)
  cmake_parse_arguments(PARSE_ARGV 2 arg "USDT" "OUTPUT_DIRECTORY;SYMBOL_PREFIX" "PROVIDER_NAME;PROVIDERS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "palev_add_provider(${target}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "palev_add_provider(): no target named \"${target}\"")
  endif()
  if(NOT CMAKE_C_COMPILER_LOADED)
    message(FATAL_ERROR "palev_add_provider(${target}): generated code is C: enable the C language "
                        "(project(... LANGUAGES C CXX))")
  endif()
  get_filename_component(manifest "${manifest}" ABSOLUTE)
  if(NOT EXISTS ${manifest})
    message(FATAL_ERROR "palev_add_provider(${target}): no manifest ${manifest}")
  endif()
  _palev_generator(gen imported)
  set(renames)
  foreach(r ${arg_PROVIDER_NAME})
    list(APPEND renames --provider-name ${r})
  endforeach()
  set(prefix)
  if(arg_SYMBOL_PREFIX)
    set(prefix --symbol-prefix ${arg_SYMBOL_PREFIX})
  endif()
  set(usdt)
  if(arg_USDT)
    find_path(PALEV_SDT_INCLUDE_DIR sys/sdt.h)
    if(NOT PALEV_SDT_INCLUDE_DIR)
      message(FATAL_ERROR "palev_add_provider(${target} USDT): sys/sdt.h not found "
                          "(Debian: apt-get install systemtap-sdt-dev)")
    endif()
    set(usdt --usdt)
  endif()

  if(NOT arg_PROVIDERS)
    if(NOT imported)
      message(FATAL_ERROR "palev_add_provider(${target}): inside the paleventing build palev-gen "
                          "is not built at configure time: list the providers with PROVIDERS")
    endif()
    _palev_query_providers(arg_PROVIDERS ${gen} ${manifest} "${renames}")
  endif()
  set(dir ${arg_OUTPUT_DIRECTORY})
  if(NOT dir)
    get_filename_component(stem "${manifest}" NAME_WE)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/palev-gen/${target}/${stem})
  endif()
  get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})

  set(outputs)
  foreach(p ${arg_PROVIDERS})
    list(APPEND outputs ${dir}/${p}-tp.h ${dir}/${p}-probe.c ${dir}/${p}-events.h ${dir}/${p}-events.c)
  endforeach()
  if(imported)
    set(gen_dep $<TARGET_FILE:${gen}>)
  else()
    set(gen_dep ${gen})
  endif()
  # palev-gen leaves files whose content did not change untouched (nothing recompiles); the stamp,
  # listed first, is what make compares, so a rebuilt palev-gen does not rerun this on every build.
  add_custom_command(OUTPUT ${dir}/palev-gen.stamp ${outputs}
    COMMAND ${gen} generate ${usdt} ${renames} ${prefix} -o ${dir} ${manifest}
    COMMAND ${CMAKE_COMMAND} -E touch ${dir}/palev-gen.stamp
    DEPENDS ${gen_dep} ${manifest}
    COMMENT "palev-gen: ${manifest}"
    VERBATIM)

  get_target_property(type ${target} TYPE)
  foreach(p ${arg_PROVIDERS})
    if(TARGET ${p}-lttng)
      set(first FALSE)
    else()
      set(first TRUE)
    endif()
    _palev_probe(${p} ${dir} ${manifest} ${target})
    if(type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
      if(first)
        set_target_properties(${p}-lttng PROPERTIES LIBRARY_OUTPUT_DIRECTORY $<TARGET_FILE_DIR:${target}>)
      else()
        # Built for another target already: a copy next to this one (a no-op in the same place).
        add_custom_command(TARGET ${target} POST_BUILD
          COMMAND ${CMAKE_COMMAND} -E copy_if_different $<TARGET_FILE:${p}-lttng> $<TARGET_FILE_DIR:${target}>
          VERBATIM)
      endif()
    endif()
    add_dependencies(${target} ${p}-lttng)
    target_sources(${target} PRIVATE ${dir}/${p}-events.c ${dir}/${p}-events.h)
    # Stack events walk frame pointers: the cold emit functions keep them whatever the host does,
    # so a stack starts at the caller of FireEvent<Sym>() (docs/stacks.md). They call
    # libpaleventing through the GOT, without a PLT stub (one indirect jump less per string
    # converted: docs/performance.md, row 3).
    set_property(SOURCE ${dir}/${p}-events.c APPEND PROPERTY COMPILE_OPTIONS
                 -fno-omit-frame-pointer -fno-plt)
  endforeach()
  target_include_directories(${target} PRIVATE ${dir})
  if(arg_USDT)
    target_include_directories(${target} SYSTEM PRIVATE ${PALEV_SDT_INCLUDE_DIR})
  endif()
  target_link_libraries(${target} PRIVATE paleventing::paleventing ${CMAKE_DL_LIBS})
endfunction()
