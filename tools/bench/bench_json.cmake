# Included by bench_smoke.cmake and bench_inversion_smoke.cmake.
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
