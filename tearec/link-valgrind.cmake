# cmake -DSOURCE=DIR -DDEST=DIR -DSKIP=NAME -P link-valgrind.cmake
# Makes DEST a Valgrind library directory: a symbolic link to each file of
# the system's (SOURCE: its tools, preloads, suppressions and gdb files),
# except SKIP, our own tool, so that VALGRIND_LIB=DEST valgrind --tool=tearec
# finds the core's files beside tearec.
file(MAKE_DIRECTORY ${DEST})
file(GLOB entries RELATIVE ${SOURCE} ${SOURCE}/*)
foreach(name ${entries})
  if(NOT name STREQUAL SKIP AND NOT IS_DIRECTORY ${SOURCE}/${name})
    file(CREATE_LINK ${SOURCE}/${name} ${DEST}/${name} SYMBOLIC)
  endif()
endforeach()
