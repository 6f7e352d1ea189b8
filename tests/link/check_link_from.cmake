cmake_minimum_required(VERSION 3.19)
# `sweep --link-from`: W and alpha come from a link record.
#   cmake -DLAUNCH="mpiexec;-n;2;...;shardroof" -DDIR=<scratch dir> -P check_link_from.cmake
file(MAKE_DIRECTORY ${DIR})
set(link_json ${DIR}/link_for_sweep.json)
set(sweep_json ${DIR}/sweep_from_link.json)
file(REMOVE ${link_json} ${sweep_json})
execute_process(COMMAND ${LAUNCH} link -b 1M -e 16M -f 4 -n 5 -w 2 --json ${link_json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "shardroof link exited with ${rc}\n${out}\n${err}")
endif()
execute_process(COMMAND ${LAUNCH} sweep --B 64 --F 64 --D 16:64:x2 --warmup 1 --iters 2 --link-from ${link_json}
                        --json ${sweep_json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "shardroof sweep --link-from exited with ${rc}\n${out}\n${err}")
endif()
if(NOT out MATCHES "from --link-from")
  message(FATAL_ERROR "the sweep table does not say where W came from:\n${out}")
endif()
file(READ ${link_json} link_doc)
file(READ ${sweep_json} sweep_doc)
string(JSON link_W GET "${link_doc}" model_link W_bytes_per_s)
string(JSON link_alpha GET "${link_doc}" model_link alpha_s)
string(JSON sweep_W GET "${sweep_doc}" ceilings W_bytes_per_s)
string(JSON sweep_alpha GET "${sweep_doc}" ceilings alpha_s)
string(JSON source GET "${sweep_doc}" ceilings link_source)
# Compare as numbers: JSON writers may print the same double differently.
if(NOT sweep_W EQUAL link_W OR NOT sweep_alpha EQUAL link_alpha)
  message(FATAL_ERROR "sweep used W ${sweep_W}, alpha ${sweep_alpha}; the link file says W ${link_W}, alpha ${link_alpha}")
endif()
if(NOT source MATCHES "link_for_sweep.json")
  message(FATAL_ERROR "ceilings.link_source is '${source}'")
endif()
# A file that is not a link record is refused before anything runs.
execute_process(COMMAND ${LAUNCH} sweep --B 64 --F 64 --D 16 --link-from ${sweep_json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--link-from: .* has no \"pairs\" list")
  message(FATAL_ERROR "sweep --link-from <not a link file>: exit ${rc}\n${out}\n${err}")
endif()
message(STATUS "sweep --link-from ok: W ${sweep_W}, alpha ${sweep_alpha} from ${source}")
