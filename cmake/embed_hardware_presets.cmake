# Writes the text of every configs/hardware/*.toml (or, with
# -DLABEL=configs/topology, every topology) into a C++ include file (an
# initializer list of {name, text} pairs), so the program carries its
# presets and an installed binary needs no source tree.
# Run as: cmake -DPRESET_DIR=<dir> -DOUTPUT=<file> [-DLABEL=<dir in the repository>] -P embed_hardware_presets.cmake
if(NOT PRESET_DIR OR NOT OUTPUT)
  message(FATAL_ERROR "embed_hardware_presets.cmake needs -DPRESET_DIR=... and -DOUTPUT=...")
endif()
if(NOT LABEL)
  set(LABEL configs/hardware)
endif()
file(GLOB presets "${PRESET_DIR}/*.toml")
list(SORT presets)
set(text "// Generated from ${LABEL}/*.toml by cmake/embed_hardware_presets.cmake. Do not edit.\n")
foreach(preset IN LISTS presets)
  get_filename_component(name "${preset}" NAME_WLE)
  file(READ "${preset}" body)
  string(FIND "${body}" ")shardroof_toml" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${preset} contains the raw-string delimiter ')shardroof_toml'")
  endif()
  string(APPEND text "{\"${name}\", R\"shardroof_toml(${body})shardroof_toml\"},\n")
endforeach()
# Replace the output only when it changes, so an unrelated rebuild does not
# recompile the loader.
file(WRITE "${OUTPUT}.tmp" "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
