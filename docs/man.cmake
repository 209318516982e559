# SPDX-License-Identifier: GPL-2.0-or-later
# cmake -DROCESHARK=BIN -DIN=roceshark.1.in -DOUT=roceshark.1 -DPROJECT_VERSION=V
#       [-DPLUGIN_DIR=DIR] -P man.cmake
# Fills in the man page: one .TP entry per roceshark.* field that BIN lists, sorted by name.
execute_process(COMMAND ${ROCESHARK} fields roceshark. OUTPUT_VARIABLE _listing
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${ROCESHARK} fields roceshark. exited ${_rc}")
endif()
string(REPLACE ";" "," _listing "${_listing}")
string(REPLACE "\\" "\\e" _listing "${_listing}")
string(REGEX REPLACE "\n$" "" _listing "${_listing}")
string(REPLACE "\n" ";" _lines "${_listing}")
list(SORT _lines)
set(RS_MAN_FIELDS "")
foreach(_line IN LISTS _lines)
    if(NOT _line MATCHES "^([^\t]+)\t([^\t]+)\t(.*)$")
        message(FATAL_ERROR "unexpected line from roceshark fields: ${_line}")
    endif()
    set(_name "${CMAKE_MATCH_1}")
    set(_type "${CMAKE_MATCH_2}")
    set(_desc "${CMAKE_MATCH_3}")
    string(REPLACE "-" "\\-" _name "${_name}")
    # A description line must not start with a control character.
    string(REGEX REPLACE "^([.'])" "\\\\&\\1" _desc "${_desc}")
    string(APPEND RS_MAN_FIELDS ".TP\n.BR ${_name} \" (${_type})\"\n${_desc}\n")
endforeach()
string(REGEX REPLACE "\n$" "" RS_MAN_FIELDS "${RS_MAN_FIELDS}")
# The plugin's entry in FILES, when this build has the plugin.
set(RS_MAN_PLUGIN "")
if(PLUGIN_DIR)
    string(APPEND RS_MAN_PLUGIN ".TP\n.I ${PLUGIN_DIR}/roceshark.so\n"
           "The Wireshark plugin: every \\fBroceshark.*\\fP field, expert infos and\n"
           "\\fBtshark \\-z roceshark,qp\\fP inside Wireshark and tshark.")
endif()
configure_file(${IN} ${OUT} @ONLY)
