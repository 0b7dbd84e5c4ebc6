# cmake -DBENCH=<rcuboost-bench> -DDIR=<dir> -DARGS=<option;...;scenario...>
#   [-DSUMMARY=<regex>] [-DEXPECT=<name@peer...>] [-DGOALS=<name@peer...>]
#   -P bench_smoke.cmake
#
# Runs "rcuboost-bench ARGS --json DIR/bench.json" and checks the shape of
# the output (no timing): the summary line first, matching SUMMARY, with
# a key per GOALS; a table per scenario; typed JSON entries, including
# EXPECT and goals on GOALS; each scenario "ran" (its runs passed their
# checks).  n/a (no real-time permission) prints "skip:" unless root.
cmake_minimum_required(VERSION 3.20)

function(fail msg)
  message(FATAL_ERROR "bench_smoke: ${msg}\n--- stderr:\n${err}")
endfunction()

file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
execute_process(COMMAND "${BENCH}" ${ARGS} --json "${DIR}/bench.json"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  fail("rcuboost-bench exited with ${rc}")
elseif(out MATCHES "\n([a-z0-9_]+): n/a")
  execute_process(COMMAND id -u OUTPUT_VARIABLE uid
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(uid EQUAL 0)
    fail("${CMAKE_MATCH_1} reported n/a for root")
  endif()
  message("skip: no real-time permission")
  return()
endif()
set(re "^rcuboost-bench:[^\n]* goals=[0-9]+/[0-9]+ ")
string(REGEX MATCH "${re}\\(ratios rcuboost/urcu-memb[^)\n]*\\)\n" first
  "${out}")
if(NOT first OR (SUMMARY AND NOT first MATCHES "${SUMMARY}"))
  fail("the first line of stdout is not the summary line")
endif()
foreach(g IN LISTS GOALS)
  string(REGEX REPLACE "@.*" "" key "${g}")
  string(FIND "${first}" " ${key}=" pos)
  if(pos LESS 0)
    fail("the summary line lacks '${key}='")
  endif()
endforeach()

file(READ "${DIR}/bench.json" doc)
string(JSON rounds GET "${doc}" params rounds)
string(JSON n LENGTH "${doc}" entries)
math(EXPR last "${n} - 1")
set(seen "")
foreach(i RANGE ${last})
  # Each key present, of its type (GET fails on a missing one).
  foreach(k name scenario unit better rcuboost rcuboost_spread peer
      peer_value peer_spread ratio goal goal_met)
    string(JSON ${k} GET "${doc}" entries ${i} ${k})
  endforeach()
  string(JSON rn LENGTH "${doc}" entries ${i} rcuboost_rounds)
  string(JSON pn LENGTH "${doc}" entries ${i} peer_rounds)
  # null reads as "", booleans as ON/OFF
  if(NOT better MATCHES "^(lower|higher)$" OR NOT goal MATCHES
     "^((<=|>=)[0-9.]+)?$" OR NOT goal_met MATCHES "^(ON|OFF)?$" OR
     (NOT rcuboost_spread STREQUAL "" AND NOT rn EQUAL rounds))
    fail("JSON: entry ${i}: ${better}, goal ${goal}, ${rn} rounds")
  endif()
  if(NOT scenario IN_LIST seen)
    string(JSON status GET "${doc}" ${scenario} status)
    if(NOT out MATCHES "\n${scenario} " OR NOT status STREQUAL "ran")
      fail("scenario ${scenario}: status '${status}', or no table")
    endif()
  endif()
  list(APPEND seen "${scenario}" "${name}@${peer}")
  if(goal)
    list(APPEND seen "goal:${name}@${peer}")
  endif()
endforeach()
list(TRANSFORM GOALS PREPEND "goal:" OUTPUT_VARIABLE goals)
foreach(e IN LISTS EXPECT goals)
  if(NOT e IN_LIST seen)
    fail("JSON: no entry ${e} (goal: with a goal)")
  endif()
endforeach()
message(STATUS "bench_smoke ${ARGS}: ${n} entries, well-formed")
