# Renders one man page from its scdoc source (man/*.scd):
#
#   cmake -DSCDOC=/usr/bin/scdoc -DIN=man/utf8check.1.scd -DOUT=utf8check.1 -P scdoc.cmake
#
# Used by the CMake build (CMakeLists.txt) and by .ci/man-pages.sh, so that the pages
# checked are the pages installed. scdoc reads standard input and writes standard
# output; execute_process does the redirection on every platform.
#
# scdoc (1.11) writes a paragraph macro (.P) where it does nothing: right before and
# right after each heading, and at the end of each indented block, before its .RE.
# mandoc -T lint reports each one ("skipping paragraph macro"). Here the last kind
# moves after the .RE, where it starts the next paragraph (the blank line between
# two entries of a list, as groff renders it), and the others are dropped, so that
# the lint check can demand no warning at all. And scdoc's .nh (no hyphenation),
# which it writes before .TH, is repeated after it: groff's .TH turns hyphenation
# back on, and would split names such as missing_continuation at line ends.
foreach(_var IN ITEMS SCDOC IN OUT)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "scdoc.cmake: -D${_var}=... is required")
  endif()
endforeach()

execute_process(COMMAND "${SCDOC}" INPUT_FILE "${IN}" OUTPUT_VARIABLE _page
  RESULT_VARIABLE _status ERROR_VARIABLE _errors)
if(NOT _status EQUAL 0)
  message(FATAL_ERROR "scdoc failed on ${IN}: ${_errors}")
endif()
string(REGEX REPLACE "(\n\\.TH [^\n]*\n)" "\\1.nh\n" _page "${_page}")
string(REGEX REPLACE "\n\\.P\n\\.RE\n" "\n.RE\n.P\n" _page "${_page}")
string(REGEX REPLACE "\n\\.P\n(\\.S[HS] )" "\n\\1" _page "${_page}")
string(REGEX REPLACE "(\n\\.S[HS] [^\n]*)\n\\.P\n" "\\1\n" _page "${_page}")
file(WRITE "${OUT}.tmp" "${_page}")
file(RENAME "${OUT}.tmp" "${OUT}")
