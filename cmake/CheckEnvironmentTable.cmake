# cmake/CheckEnvironmentTable.cmake: every environment variable the library reads is in
# README.md's table (section "Environment variables"), as issue 16 asked.
#
#   cmake -DSOURCE_DIR=<jitvec source> -P cmake/CheckEnvironmentTable.cmake
#
# The variables read are found in src/ and python/src/: names passed to getenv("NAME") or to
# cache_settings' environment("NAME"), and any string literal that is exactly "JITVEC_...". Each
# must appear as `NAME` in a row of the table (a line starting with "|" in that section). The
# ctest entry jitvec_readme_environment runs it, so a new variable cannot go undocumented.
file(GLOB_RECURSE sources "${SOURCE_DIR}/src/*.cpp" "${SOURCE_DIR}/src/*.hpp"
     "${SOURCE_DIR}/python/src/*.cpp" "${SOURCE_DIR}/python/src/*.hpp")
set(variables "")
foreach(source IN LISTS sources)
  file(READ "${source}" text)
  string(REGEX MATCHALL "getenv\\(\"[A-Z0-9_]+\"\\)|environment\\(\"[A-Z0-9_]+\"\\)|\"JITVEC_[A-Z0-9_]+\""
         found "${text}")
  foreach(match IN LISTS found)
    string(REGEX REPLACE ".*\"([A-Z0-9_]+)\".*" "\\1" name "${match}")
    list(APPEND variables "${name}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES variables)
list(SORT variables)
list(LENGTH variables count)
if(count LESS 10)
  message(FATAL_ERROR "found only ${count} environment variables in src/ (${variables}): "
                      "the patterns of this script no longer match the code")
endif()

file(READ "${SOURCE_DIR}/README.md" readme)
string(FIND "${readme}" "### Environment variables" start)
if(start EQUAL -1)
  message(FATAL_ERROR "README.md has no '### Environment variables' section")
endif()
string(SUBSTRING "${readme}" ${start} -1 section)
string(FIND "${section}" "\n## " end)
if(NOT end EQUAL -1)
  string(SUBSTRING "${section}" 0 ${end} section)
endif()
string(REGEX MATCHALL "\n\\|[^\n]*" rows "${section}")
string(JOIN "\n" table ${rows})

set(missing "")
foreach(name IN LISTS variables)
  string(FIND "${table}" "`${name}`" at)
  if(at EQUAL -1)
    list(APPEND missing "${name}")
  endif()
endforeach()
if(missing)
  list(JOIN missing ", " missing_text)
  message(FATAL_ERROR "README.md's environment table does not list: ${missing_text} (read in "
                      "src/ or python/src/); add a row saying what each sets, its values and "
                      "its default")
endif()
list(JOIN variables ", " variables_text)
message(STATUS "README.md's environment table lists every variable read: ${variables_text}")
