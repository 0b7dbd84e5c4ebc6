# liburcu compatibility install (rcuboost-urcu(7)): a program written for
# liburcu's default (memb) flavor switches to rcuboost without touching
# its build.  Everything goes into LIBDIR/rcuboost-urcu-compat, never over
# a real liburcu:
#   include/urcu.h, include/urcu/urcu-memb.h   -> <rcuboost/urcu.h>
#   include/urcu-qsbr.h, urcu/urcu-qsbr.h      -> <rcuboost/urcu_qsbr.h>
#   include/urcu-bp.h, urcu/urcu-bp.h          -> <rcuboost/urcu_bp.h>
#   include/urcu/urcu-mb.h, urcu/urcu-signal.h -> <rcuboost/urcu_mb.h>, _signal.h
#   pkgconfig/liburcu.pc, liburcu-memb.pc, liburcu-qsbr.pc, liburcu-bp.pc,
#   liburcu-mb.pc, liburcu-signal.pc           -> -lrcuboost and the above
#   lib/liburcu.so, liburcu-memb.so, liburcu-qsbr.so, liburcu-bp.so,
#   liburcu-mb.so, liburcu-signal.so           -> symlinks to librcuboost
# A pkg-config project switches with PKG_CONFIG_PATH=<that>/pkgconfig, a
# Makefile that hard-codes -lurcu with -L<that>/lib (plus
# -I<that>/include when it defines _LGPL_SOURCE).
#
# Opt-in: the install component "urcu-compat" (cmake --install BUILD
# --component urcu-compat, or make install-urcu-compat), which a plain
# install includes only with -DRCB_URCU_COMPAT=ON.
option(RCB_URCU_COMPAT "Install liburcu compatibility files into LIBDIR/rcuboost-urcu-compat (rcuboost-urcu(7))" OFF)

# The liburcu API level the drop-in header provides.
set(RCB_URCU_API_VERSION 0.13.2)
set(rcb_compat_dir ${CMAKE_INSTALL_LIBDIR}/rcuboost-urcu-compat)
set(rcb_compat_build ${PROJECT_BINARY_DIR}/urcu-compat)
if(RCB_URCU_COMPAT)
  set(rcb_compat_excl "")
else()
  set(rcb_compat_excl EXCLUDE_FROM_ALL)
endif()

# liburcu's own liburcu.pc says -lurcu-common -lurcu: the data structures
# that <urcu.h> declares out of line without _LGPL_SOURCE (cds_wfcq_*,
# cds_wfs_*, ...) are in liburcu-common, which rcuboost does not
# replace.  Debian's, when it is there.
# Not a dependency of the library: no cache entry is left (NO_CACHE
# needs CMake 3.21).
find_library(rcb_urcu_common_lib urcu-common)
if(rcb_urcu_common_lib)
  set(RCB_COMPAT_PC_COMMON " -lurcu-common")
else()
  set(RCB_COMPAT_PC_COMMON "")
endif()
unset(rcb_urcu_common_lib CACHE)

# Relocatable .pc files: the prefix from their own location.
file(RELATIVE_PATH rcb_compat_up "/${rcb_compat_dir}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" rcb_compat_up "${rcb_compat_up}")
if(RCB_PC_RELOCATABLE)
  set(RCB_COMPAT_PC_PREFIX "\${pcfiledir}/${rcb_compat_up}")
else()
  set(RCB_COMPAT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
endif()
set(rcb_compat_flavors liburcu liburcu-memb liburcu-qsbr liburcu-bp liburcu-mb liburcu-signal)
foreach(pc ${rcb_compat_flavors})
  if(pc STREQUAL "liburcu")
    set(RCB_COMPAT_PC_NAME "Userspace RCU")
    set(RCB_COMPAT_PC_FLAVOR "urcu-memb")
  elseif(pc STREQUAL "liburcu-qsbr")
    set(RCB_COMPAT_PC_NAME "Userspace RCU QSBR")
    set(RCB_COMPAT_PC_FLAVOR "urcu-qsbr")
  elseif(pc STREQUAL "liburcu-bp")
    set(RCB_COMPAT_PC_NAME "Userspace RCU BulletProof")
    set(RCB_COMPAT_PC_FLAVOR "urcu-bp")
  elseif(pc STREQUAL "liburcu-mb")
    set(RCB_COMPAT_PC_NAME "Userspace RCU Memory barriers")
    set(RCB_COMPAT_PC_FLAVOR "urcu-mb")
  elseif(pc STREQUAL "liburcu-signal")
    set(RCB_COMPAT_PC_NAME "Userspace RCU signal")
    set(RCB_COMPAT_PC_FLAVOR "urcu-signal")
  else()
    set(RCB_COMPAT_PC_NAME "Userspace RCU membarrier syscall")
    set(RCB_COMPAT_PC_FLAVOR "urcu-memb")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/urcu-compat/liburcu.pc.in
                 ${rcb_compat_build}/pkgconfig/${pc}.pc @ONLY)
endforeach()

# -lurcu and -lurcu-memb: symlinks to the library by its SONAME, relative
# (LIBDIR/rcuboost-urcu-compat/lib/ -> LIBDIR/); the linker records
# librcuboost's SONAME.  Made in the build tree, installed as symlinks.
file(MAKE_DIRECTORY ${rcb_compat_build}/lib)
foreach(name liburcu.so liburcu-memb.so liburcu-qsbr.so liburcu-bp.so liburcu-mb.so liburcu-signal.so)
  file(CREATE_LINK ../../librcuboost.so.${RCB_SONAME_MAJOR}
       ${rcb_compat_build}/lib/${name} SYMBOLIC)
endforeach()

set(rcb_compat_src ${PROJECT_SOURCE_DIR}/cmake/urcu-compat)
install(FILES ${rcb_compat_src}/urcu.h ${rcb_compat_src}/urcu-qsbr.h ${rcb_compat_src}/urcu-bp.h
        DESTINATION ${rcb_compat_dir}/include COMPONENT urcu-compat ${rcb_compat_excl})
install(FILES ${rcb_compat_src}/urcu-memb.h ${rcb_compat_src}/urcu-qsbr.h ${rcb_compat_src}/urcu-bp.h
              ${rcb_compat_src}/urcu-mb.h ${rcb_compat_src}/urcu-signal.h
        DESTINATION ${rcb_compat_dir}/include/urcu COMPONENT urcu-compat ${rcb_compat_excl})
foreach(pc ${rcb_compat_flavors})
  install(FILES ${rcb_compat_build}/pkgconfig/${pc}.pc
          DESTINATION ${rcb_compat_dir}/pkgconfig COMPONENT urcu-compat ${rcb_compat_excl})
  install(FILES ${rcb_compat_build}/lib/${pc}.so
          DESTINATION ${rcb_compat_dir}/lib COMPONENT urcu-compat ${rcb_compat_excl})
endforeach()
