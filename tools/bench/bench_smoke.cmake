# cmake -DBENCH=<rcuboost-bench> -DJSON=<file> -P bench_smoke.cmake
# cmake -DCHECK_ONLY=1 -DJSON=<file> -P bench_smoke.cmake   (check an existing file)
#
# Runs rcuboost-bench --quick --json JSON and checks the output's shape:
# exit status 0, the summary line first on stdout, and a JSON file with
# every expected entry for every peer, each field of the right type.
# No timing is asserted.
cmake_minimum_required(VERSION 3.20)

if(NOT JSON OR (NOT BENCH AND NOT CHECK_ONLY))
  message(FATAL_ERROR "usage: cmake -DBENCH=<rcuboost-bench> -DJSON=<file> -P bench_smoke.cmake")
endif()

if(NOT CHECK_ONLY)
  file(REMOVE "${JSON}")
  execute_process(COMMAND "${BENCH}" --quick --json "${JSON}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rcuboost-bench exited with ${rc}:\n${err}")
  endif()

  string(REGEX MATCH "^rcuboost-bench: [^\n]*goals=[0-9]+/[0-9]+ \\(ratios rcuboost/urcu-memb\\)\n" first "${out}")
  if(NOT first)
    message(FATAL_ERROR "the first line of stdout is not the summary line")
  endif()
  foreach(key read readers readers.call retire.reads retire.total retire.rss retire.paced sync
          sync.alone uperf sync.busy call call.2t call.lat)
    string(FIND "${first}" " ${key}=" pos)
    if(pos LESS 0)
      message(FATAL_ERROR "the summary line lacks '${key}='")
    endif()
  endforeach()
endif()

include(${CMAKE_CURRENT_LIST_DIR}/bench_json.cmake)
json_read("${JSON}")

json_expect(tool STRING tool)
if(NOT tool STREQUAL "rcuboost-bench")
  message(FATAL_ERROR "JSON: tool is '${tool}'")
endif()
json_expect(peer0 STRING main_peer)
json_expect(params OBJECT params)
json_expect(rounds NUMBER params rounds)
json_expect(sides ARRAY sides)
json_expect(entries ARRAY entries)
string(JSON n LENGTH "${doc}" entries)
if(n EQUAL 0)
  message(FATAL_ERROR "JSON: no entries")
endif()

set(seen "")
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  json_expect(name STRING entries ${i} name)
  json_expect(scenario STRING entries ${i} scenario)
  json_expect(unit STRING entries ${i} unit)
  json_expect(better STRING entries ${i} better)
  json_expect(v NUMBER entries ${i} rcuboost)
  json_expect(v NUMBER entries ${i} rcuboost_spread)
  json_expect(v ARRAY entries ${i} rcuboost_rounds)
  json_expect(peer STRING entries ${i} peer)
  json_expect(v "NUMBER;NULL" entries ${i} peer_value)
  json_expect(v "NUMBER;NULL" entries ${i} peer_spread)
  json_expect(v ARRAY entries ${i} peer_rounds)
  json_expect(ratio "NUMBER;NULL" entries ${i} ratio)
  json_expect(goal "STRING;NULL" entries ${i} goal)
  json_expect(met "BOOLEAN;NULL" entries ${i} goal_met)
  if(NOT better MATCHES "^(lower|higher)$")
    message(FATAL_ERROR "JSON: entry ${i}: better is '${better}'")
  endif()
  if(goal AND NOT goal MATCHES "^(<=|>=)[0-9.]+$")
    message(FATAL_ERROR "JSON: entry ${i}: goal is '${goal}'")
  endif()
  string(JSON rn LENGTH "${doc}" entries ${i} rcuboost_rounds)
  if(NOT rn EQUAL rounds)
    message(FATAL_ERROR "JSON: entry ${i}: ${rn} rounds, params say ${rounds}")
  endif()
  list(APPEND seen "${name}@${peer}")
endforeach()

set(expected read readers readers.updates readers.call readers.call.upd readers.call.lat
  retire.reads retire.total retire.rss retire.reads.cpu retire.paced retire.paced.upd
  retire.paced.cpu retire.paced.lib sync sync.p99 sync.alone uperf
  sync.busy sync.busy.p99
  call call.enqueue call.2t call.2t.enqueue call.lat call.lat.p99)
foreach(name IN LISTS expected)
  expect_in_list(seen "entry (name@peer)" "${name}@urcu-memb" "${name}@urcu-mb" "${name}@urcu-qsbr"
    "${name}@ck-epoch")
  # The goal-carrying figures must carry their goal for the main peer.
endforeach()
foreach(i RANGE ${last})
  string(JSON name GET "${doc}" entries ${i} name)
  string(JSON peer GET "${doc}" entries ${i} peer)
  string(JSON gt TYPE "${doc}" entries ${i} goal)
  if(peer STREQUAL "urcu-memb" AND name MATCHES "^(read|readers|readers\\.call|retire\\.reads|retire\\.rss|sync|uperf|sync\\.busy|call\\.lat)$"
     AND NOT gt STREQUAL "STRING")
    message(FATAL_ERROR "JSON: entry '${name}' for urcu-memb has no goal")
  endif()
  if(peer STREQUAL "ck-epoch" AND name MATCHES "^(retire\\.total|sync\\.alone|call|call\\.2t)$"
     AND NOT gt STREQUAL "STRING")
    message(FATAL_ERROR "JSON: entry '${name}' for ck-epoch has no goal")
  endif()
endforeach()
message(STATUS "bench_smoke: ${n} entries, well-formed")
