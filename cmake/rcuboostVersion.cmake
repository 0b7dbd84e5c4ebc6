# rcb_read_version(HEADER): the version is written once, in the public
# header (RCB_VERSION_MAJOR/MINOR/PATCH and RCB_SONAME_MAJOR), so that a
# program can test it at compile time and CMake, pkg-config and the
# SONAME cannot disagree with it.  Sets RCB_VERSION ("M.m.p") and
# RCB_SONAME_MAJOR in the caller's scope; a header without the four
# macros stops the configuration.
function(rcb_read_version header)
  file(STRINGS ${header} lines
       REGEX "^#define RCB_(VERSION_MAJOR|VERSION_MINOR|VERSION_PATCH|SONAME_MAJOR)[ \t]+[0-9]+[ \t]*$")
  foreach(part VERSION_MAJOR VERSION_MINOR VERSION_PATCH SONAME_MAJOR)
    set(value "")
    foreach(line ${lines})
      if(line MATCHES "^#define RCB_${part}[ \t]+([0-9]+)")
        set(value ${CMAKE_MATCH_1})
      endif()
    endforeach()
    if(value STREQUAL "")
      message(FATAL_ERROR "${header}: no '#define RCB_${part} <number>' line")
    endif()
    set(${part} ${value})
  endforeach()
  set(RCB_VERSION "${VERSION_MAJOR}.${VERSION_MINOR}.${VERSION_PATCH}" PARENT_SCOPE)
  set(RCB_SONAME_MAJOR ${SONAME_MAJOR} PARENT_SCOPE)
endfunction()
