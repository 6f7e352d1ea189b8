# Runs a command and checks its exit status and output, for tests that must
# fail in a particular way (ctest's WILL_FAIL accepts any failure).
#   cmake -DCMD="prog|arg|arg" -DEXPECT_RC=2 [-DEXPECT_REGEX="re|re"] [-DONCE_REGEX=re] -P expect_exit.cmake
# Every EXPECT_REGEX must match stdout+stderr; ONCE_REGEX must match exactly
# once (e.g. an error that only rank 0 may print).
string(REPLACE "|" ";" cmd "${CMD}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
set(all "${out}${err}")
message("${all}")
if(NOT rc STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}")
endif()
if(DEFINED EXPECT_REGEX)
  string(REPLACE "|" ";" regexes "${EXPECT_REGEX}")
  foreach(re IN LISTS regexes)
    if(NOT all MATCHES "${re}")
      message(FATAL_ERROR "output does not match '${re}'")
    endif()
  endforeach()
endif()
if(DEFINED ONCE_REGEX AND NOT ONCE_REGEX STREQUAL "")
  string(REGEX MATCHALL "${ONCE_REGEX}" hits "${all}")
  list(LENGTH hits n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "'${ONCE_REGEX}' appears ${n} times, expected once")
  endif()
endif()
