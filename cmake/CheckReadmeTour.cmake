# cmake/CheckReadmeTour.cmake: README.md's tour is samples/tour.cpp's, word for word.
#
#   cmake -DSOURCE_DIR=<jitvec source> -P cmake/CheckReadmeTour.cmake
#
# Takes the lines of samples/tour.cpp between "// tour:begin" and "// tour:end" (without their
# common 4-space indent) and the first ```cpp block after "<!-- tour:begin -->" in README.md,
# and fails, showing both, when they differ. The ctest entry jitvec_readme_tour runs it, so the
# README can only show code that the tests compile and run.
file(READ "${SOURCE_DIR}/samples/tour.cpp" tour)
file(READ "${SOURCE_DIR}/README.md" readme)

string(REGEX MATCH "// tour:begin\n(.*)\n[ ]*// tour:end" matched "${tour}")
if(NOT matched)
  message(FATAL_ERROR "samples/tour.cpp has no '// tour:begin' ... '// tour:end' lines")
endif()
# (Not "(^|\n)    ": in REGEX REPLACE, "^" also matches where the previous match ended.)
string(REPLACE "\n    " "\n" program_lines "\n${CMAKE_MATCH_1}")
string(SUBSTRING "${program_lines}" 1 -1 program_lines)

string(FIND "${readme}" "<!-- tour:begin -->" start)
if(start EQUAL -1)
  message(FATAL_ERROR "README.md has no '<!-- tour:begin -->' line before its tour")
endif()
string(SUBSTRING "${readme}" ${start} -1 readme)
string(REGEX MATCH "```cpp\n(.*)" matched "${readme}")
string(FIND "${CMAKE_MATCH_1}" "\n```" end)
if(NOT matched OR end EQUAL -1)
  message(FATAL_ERROR "README.md has no ```cpp block after '<!-- tour:begin -->'")
endif()
string(SUBSTRING "${CMAKE_MATCH_1}" 0 ${end} readme_lines)

if(NOT readme_lines STREQUAL program_lines)
  message(FATAL_ERROR "README.md's tour differs from samples/tour.cpp's tour:begin..tour:end "
                      "lines; copy them over (without the 4-space indent).\n"
                      "--- samples/tour.cpp ---\n${program_lines}\n--- README.md ---\n${readme_lines}")
endif()
message(STATUS "README.md's tour matches samples/tour.cpp")
