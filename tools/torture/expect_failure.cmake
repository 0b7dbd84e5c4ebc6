# Run rcuboost-torture with an injected bug and require that its checker
# reports it: exit status 1, a "FAIL" summary, and an "Errors:" line that
# matches EXPECT (e.g. " (pipe|poison)=[1-9]").  Anything else (a pass, a
# crash, a sanitizer abort, a watchdog abort) fails this test.
# Usage: cmake -DTORTURE=path "-DARGS=a;b;c" "-DEXPECT=regex" -P expect_failure.cmake
execute_process(COMMAND ${TORTURE} ${ARGS}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
message("${out}")
string(LENGTH "${err}" err_len)
if(err_len GREATER 4000)
  string(SUBSTRING "${err}" 0 4000 err)
  set(err "${err}\n[stderr truncated]")
endif()
message("${err}")
if(NOT rc STREQUAL "1")
  message(FATAL_ERROR "expected exit status 1 from the checker, got '${rc}'")
endif()
if(NOT out MATCHES "rcuboost-torture: FAIL errors=[1-9]")
  message(FATAL_ERROR "no FAIL summary line: the checker did not see the injected bug")
endif()
if(NOT out MATCHES "\nErrors:[^\n]*${EXPECT}")
  message(FATAL_ERROR "the Errors: line does not match '${EXPECT}'")
endif()
message("OK: the injected bug was detected")
