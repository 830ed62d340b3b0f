# Run by `cmake --install` (see CMakeLists.txt, "make install"): copies the
# man pages scripts/gen-man.sh wrote into TEA_MAN_DIR to TEA_MAN_STAGE_DIR,
# each document they name (docs/usage.md, as the --help texts say) named by
# the path it is installed at (PREFIX/share/doc/tea/usage.md); an
# install(DIRECTORY) of TEA_MAN_STAGE_DIR follows. Only now is the prefix
# known: `cmake --install --prefix` chooses it. DESTDIR is not part of it.
#   TEA_MAN_DIR, TEA_MAN_STAGE_DIR: folders; TEA_DOCDIR: CMAKE_INSTALL_DOCDIR

if(IS_ABSOLUTE "${TEA_DOCDIR}")
  set(docdir "${TEA_DOCDIR}")
else()
  set(docdir "${CMAKE_INSTALL_PREFIX}/${TEA_DOCDIR}")
endif()
# as groff text: a backslash is \e, a hyphen the minus sign \- (as help2man
# writes the hyphens of the file names)
string(REPLACE "\\" "\\e" docdir "${docdir}")
string(REPLACE "-" "\\-" docdir "${docdir}")

file(REMOVE_RECURSE "${TEA_MAN_STAGE_DIR}")
file(MAKE_DIRECTORY "${TEA_MAN_STAGE_DIR}")
file(GLOB pages "${TEA_MAN_DIR}/*.1")
foreach(page IN LISTS pages)
  file(READ "${page}" text)
  # a marker first: the replacement of a regular expression would take the
  # backslashes of the path for references (and CMake @VAR@ for a variable)
  string(REGEX REPLACE "docs/([A-Za-z0-9_.\\\\-]+\\.md)" "<tea-docdir>/\\1" text "${text}")
  string(REPLACE "<tea-docdir>" "${docdir}" text "${text}")
  get_filename_component(name "${page}" NAME)
  file(WRITE "${TEA_MAN_STAGE_DIR}/${name}" "${text}")
endforeach()
