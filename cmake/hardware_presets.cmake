# Hardware presets (configs/hardware/*.toml) and their loader, added to
# shardroof_core. The preset files are compiled in (see
# embed_hardware_presets.cmake); the source tree's copy is still preferred
# while it exists, so an edited preset needs no rebuild.
set(_shardroof_preset_dir ${PROJECT_SOURCE_DIR}/configs/hardware)
file(GLOB _shardroof_presets CONFIGURE_DEPENDS ${_shardroof_preset_dir}/*.toml)
set(_shardroof_presets_inc ${PROJECT_BINARY_DIR}/generated/shardroof/hardware_presets.inc)
add_custom_command(
  OUTPUT ${_shardroof_presets_inc}
  COMMAND ${CMAKE_COMMAND} -DPRESET_DIR=${_shardroof_preset_dir} -DOUTPUT=${_shardroof_presets_inc}
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_hardware_presets.cmake
  DEPENDS ${_shardroof_presets} ${PROJECT_SOURCE_DIR}/cmake/embed_hardware_presets.cmake
  COMMENT "Embedding hardware presets from configs/hardware"
  VERBATIM)
target_sources(shardroof_core PRIVATE ${PROJECT_SOURCE_DIR}/src/model/hardware.cpp ${_shardroof_presets_inc})
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/model/hardware.cpp PROPERTIES
  COMPILE_DEFINITIONS "SHARDROOF_SOURCE_HARDWARE_DIR=\"${_shardroof_preset_dir}\""
  OBJECT_DEPENDS ${_shardroof_presets_inc})
# `sweep --model-hw`: the preset comparison and its reporter.
target_sources(shardroof_core PRIVATE ${PROJECT_SOURCE_DIR}/src/model/preset_target.cpp
                                     ${PROJECT_SOURCE_DIR}/src/report/preset_report.cpp)
# Topologies past two levels (configs/topology/*.toml, model/topology.h),
# compiled in the same way.
set(_shardroof_topology_dir ${PROJECT_SOURCE_DIR}/configs/topology)
file(GLOB _shardroof_topologies CONFIGURE_DEPENDS ${_shardroof_topology_dir}/*.toml)
set(_shardroof_topologies_inc ${PROJECT_BINARY_DIR}/generated/shardroof/topology_presets.inc)
add_custom_command(
  OUTPUT ${_shardroof_topologies_inc}
  COMMAND ${CMAKE_COMMAND} -DPRESET_DIR=${_shardroof_topology_dir} -DOUTPUT=${_shardroof_topologies_inc}
          -DLABEL=configs/topology -P ${PROJECT_SOURCE_DIR}/cmake/embed_hardware_presets.cmake
  DEPENDS ${_shardroof_topologies} ${PROJECT_SOURCE_DIR}/cmake/embed_hardware_presets.cmake
  COMMENT "Embedding topologies from configs/topology"
  VERBATIM)
target_sources(shardroof_core PRIVATE ${PROJECT_SOURCE_DIR}/src/model/topology.cpp ${_shardroof_topologies_inc})
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/model/topology.cpp PROPERTIES
  COMPILE_DEFINITIONS "SHARDROOF_SOURCE_TOPOLOGY_DIR=\"${_shardroof_topology_dir}\""
  OBJECT_DEPENDS ${_shardroof_topologies_inc})
