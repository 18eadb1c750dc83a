# SPDX-License-Identifier: MIT
# libpaleventing's own provider, read from its manifest: manifest/eventsource.man is the one
# place its name and GUID are written; pcm_own.h and the build take them from there.
#   include()d: palev_own_provider(MANIFEST HEADER) sets PALEV_OWN_PROVIDER and PALEV_OWN_GUID
#                and writes HEADER (only when its text changes).
#   as a script: cmake -DMANIFEST=... -DHEADER=... -P own_provider.cmake (tests/fuzz/build.sh).
set(PALEV_OWN_PROVIDER_TEMPLATE ${CMAKE_CURRENT_LIST_DIR}/pcm_own.h.in)

function(palev_own_provider manifest header)
  file(READ ${manifest} text)
  string(REGEX MATCHALL "<provider[ \t\r\n][^>]*>" providers "${text}")
  list(LENGTH providers count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "${manifest}: ${count} <provider> elements; libpaleventing's own "
                        "manifest has exactly one")
  endif()
  if(NOT providers MATCHES "[ \t\r\n]name=\"([A-Za-z_][A-Za-z0-9_]*)\"")
    message(FATAL_ERROR "${manifest}: the provider has no name usable as a C identifier")
  endif()
  set(name ${CMAKE_MATCH_1})
  set(hex "[0-9a-fA-F]")
  if(NOT providers MATCHES "[ \t\r\n]guid=\"{(${hex}${hex}${hex}${hex}${hex}${hex}${hex}${hex})-(${hex}${hex}${hex}${hex})-(${hex}${hex}${hex}${hex})-(${hex}${hex}${hex}${hex})-(${hex}${hex}${hex}${hex}${hex}${hex}${hex}${hex}${hex}${hex}${hex}${hex})}\"")
    message(FATAL_ERROR "${manifest}: the provider has no guid=\"{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}\"")
  endif()
  string(TOLOWER "${CMAKE_MATCH_1}-${CMAKE_MATCH_2}-${CMAKE_MATCH_3}-${CMAKE_MATCH_4}-${CMAKE_MATCH_5}" guid)
  set(PCM_GUID_D1 0x${CMAKE_MATCH_1})
  set(PCM_GUID_D2 0x${CMAKE_MATCH_2})
  set(PCM_GUID_D3 0x${CMAKE_MATCH_3})
  string(REGEX REPLACE "(..)" "0x\\1, " d4 "${CMAKE_MATCH_4}${CMAKE_MATCH_5}")
  string(REGEX REPLACE ", $" "" PCM_GUID_D4 "${d4}")
  set(PCM_OWN_PROVIDER ${name})
  set(PCM_OWN_GUID ${guid})
  get_filename_component(top ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.. ABSOLUTE)
  file(RELATIVE_PATH PCM_OWN_MANIFEST_PATH ${top} ${manifest})
  configure_file(${PALEV_OWN_PROVIDER_TEMPLATE} ${header} @ONLY)
  set(PALEV_OWN_PROVIDER ${name} PARENT_SCOPE)
  set(PALEV_OWN_GUID ${guid} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  if(NOT MANIFEST OR NOT HEADER)
    message(FATAL_ERROR "usage: cmake -DMANIFEST=eventsource.man -DHEADER=pcm_own.h -P own_provider.cmake")
  endif()
  palev_own_provider(${MANIFEST} ${HEADER})
endif()
