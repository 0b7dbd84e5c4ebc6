# Included by bench_smoke.cmake, bench_inversion_smoke.cmake and
# bench_x_smoke.cmake.
#
# json_expect(VAR TYPES KEY...): the value at KEY... of the JSON text in
# the caller's variable "doc" must have one of TYPES (a list of string(JSON
# TYPE) names: STRING, NUMBER, BOOLEAN, NULL, OBJECT, ARRAY); sets VAR to
# it (empty for NULL, OBJECT and ARRAY).  A failure ends the script.
function(json_expect var type)
  string(JSON t ERROR_VARIABLE e TYPE "${doc}" ${ARGN})
  if(e)
    message(FATAL_ERROR "JSON: ${ARGN}: ${e}")
  endif()
  set(ok FALSE)
  foreach(allowed IN LISTS type)
    if(t STREQUAL allowed)
      set(ok TRUE)
    endif()
  endforeach()
  if(NOT ok)
    message(FATAL_ERROR "JSON: ${ARGN}: type ${t}, expected ${type}")
  endif()
  if(NOT t STREQUAL "NULL" AND NOT t STREQUAL "OBJECT" AND NOT t STREQUAL "ARRAY")
    string(JSON v GET "${doc}" ${ARGN})
    set(${var} "${v}" PARENT_SCOPE)
  else()
    set(${var} "" PARENT_SCOPE)
  endif()
endfunction()

# json_read(FILE): the JSON text of FILE into the caller's variable "doc";
# ends the script if there is no such file.
macro(json_read file)
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "no JSON file written at ${file}")
  endif()
  file(READ "${file}" doc)
endmacro()

# expect_text(TEXT STRING...): each STRING occurs in TEXT (stdout), or the
# script ends.
function(expect_text text)
  foreach(s IN LISTS ARGN)
    string(FIND "${text}" "${s}" pos)
    if(pos LESS 0)
      message(FATAL_ERROR "stdout lacks '${s}'")
    endif()
  endforeach()
endfunction()

# expect_in_list(LIST WHAT ITEM...): each ITEM is in the caller's list
# LIST, or the script ends with "JSON: no WHAT 'ITEM'".
function(expect_in_list list what)
  foreach(item IN LISTS ARGN)
    if(NOT "${item}" IN_LIST ${list})
      message(FATAL_ERROR "JSON: no ${what} '${item}'")
    endif()
  endforeach()
endfunction()

# require_defines(USAGE VAR...): each VAR is set (-DVAR=...), or the script
# ends with USAGE.
function(require_defines usage)
  foreach(v IN LISTS ARGN)
    if(NOT ${v})
      message(FATAL_ERROR "usage: ${usage}")
    endif()
  endforeach()
endfunction()
