# cmake/CheckZeroSuppressPicture.cmake: the zero_suppress sample's picture shows what issue 16
# asked for: the waveform before and after, a third panel zoomed on one pulse, and the fraction
# of samples the ufunc set to zero, the same count the sample prints.
#
#   cmake -DPROGRAM=<zero_suppress> -DWORK_DIR=<scratch folder> -P cmake/CheckZeroSuppressPicture.cmake
#
# Runs the sample on the cpu target (-n 200000, one timed call) with --svg into WORK_DIR, then
# checks the SVG: three panels (input, output, the zoom), the zoom a window of samples A..B
# inside the waveform, at most a fifth of it (one pulse with half its length of baseline on
# each side), and a title "Z of N samples zeroed (P%)" whose Z and N are the sample's own
# "suppressed: Z of N samples set to 0" and whose P is 100 Z / N.
# The ctest entry jitvec_sample_zero_suppress_picture runs it.
file(MAKE_DIRECTORY "${WORK_DIR}")
set(svg "${WORK_DIR}/zero_suppress.svg")
file(REMOVE "${svg}")
execute_process(
  COMMAND "${PROGRAM}" --target cpu -n 200000 --seed 7 --repeats 1 --svg "${svg}"
  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "zero_suppress exited with ${status}:\n${output}\n${errors}")
endif()

string(REGEX MATCH "suppressed: +([0-9]+) of ([0-9]+) samples set to 0" said "${output}")
if(NOT said)
  message(FATAL_ERROR "zero_suppress did not print 'suppressed: Z of N samples set to 0':\n${output}")
endif()
set(zeroed ${CMAKE_MATCH_1})
set(total ${CMAKE_MATCH_2})
if(NOT total EQUAL 200000 OR zeroed EQUAL 0 OR NOT zeroed LESS total)
  message(FATAL_ERROR "zero_suppress says ${zeroed} of ${total} samples were zeroed")
endif()

if(NOT EXISTS "${svg}")
  message(FATAL_ERROR "zero_suppress wrote no picture at ${svg}:\n${output}")
endif()
file(READ "${svg}" picture)

# The title: the fraction zeroed, with the sample's own count (P to a tenth of a percent).
string(REGEX MATCH "([0-9]+) of ([0-9]+) samples zeroed \\(([0-9]+)\\.([0-9])%\\)" title "${picture}")
if(NOT title)
  message(FATAL_ERROR "the picture's title does not say 'Z of N samples zeroed (P%)'")
endif()
if(NOT CMAKE_MATCH_1 EQUAL zeroed OR NOT CMAKE_MATCH_2 EQUAL total)
  message(FATAL_ERROR "the picture says '${title}', the sample ${zeroed} of ${total}")
endif()
math(EXPR shown_tenths "${CMAKE_MATCH_3} * 10 + ${CMAKE_MATCH_4}")
math(EXPR exact_tenths_floor "${zeroed} * 1000 / ${total}")
math(EXPR off "${shown_tenths} - ${exact_tenths_floor}")
if(off LESS 0 OR off GREATER 1)
  message(FATAL_ERROR "the picture says '${title}': not 100 x ${zeroed} / ${total} percent")
endif()

# Three panels: the input, the output, and one pulse zoomed.
foreach(panel "waveform (input)" "(output)" "one pulse, samples ")
  string(FIND "${picture}" "${panel}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the picture has no panel titled '...${panel}...'")
  endif()
endforeach()
string(REGEX MATCH "one pulse, samples ([0-9]+) to ([0-9]+)" zoom "${picture}")
set(zoom_begin ${CMAKE_MATCH_1})
set(zoom_end ${CMAKE_MATCH_2})
math(EXPR zoom_length "${zoom_end} - ${zoom_begin} + 1")
math(EXPR longest "${total} / 5")  # a pulse is ~7.5% of the waveform, the window twice that
if(NOT zoom_begin LESS zoom_end OR NOT zoom_end LESS total OR zoom_length GREATER longest)
  message(FATAL_ERROR "the zoomed panel shows samples ${zoom_begin} to ${zoom_end} of ${total}: "
                      "not a window of at most a fifth of the waveform")
endif()
message(STATUS "zero_suppress.svg: '${title}', zoom on samples ${zoom_begin} to ${zoom_end}")
