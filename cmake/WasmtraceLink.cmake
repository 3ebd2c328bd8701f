# The link contract (cmake/link-contract.txt, which says what each line means)
# turned into CMake link options and pkg-config fields. Included by
# CMakeLists.txt and by the installed wasmtraceConfig.cmake, with the contract
# file beside it in both: the flags are written in that file only.
include_guard(GLOBAL)
# A global property, not a variable: the functions below are called from
# other directories' scopes too (wasmtrace_instrument in a project that
# added wasmtrace with add_subdirectory), where a variable set here is not.
set_property(GLOBAL PROPERTY WASMTRACE_LINK_CONTRACT "${CMAKE_CURRENT_LIST_DIR}/link-contract.txt")
set(WASMTRACE_LINK_CONTRACT "${CMAKE_CURRENT_LIST_DIR}/link-contract.txt")

# The items of one part as a list of "KIND VALUE" strings, in the file's order.
function(_wasmtrace_contract_items part out)
  get_property(_contract GLOBAL PROPERTY WASMTRACE_LINK_CONTRACT)
  file(STRINGS "${_contract}" _lines REGEX "^${part} ")
  set(_items "")
  foreach(_line IN LISTS _lines)
    if(NOT _line MATCHES "^${part} ([a-z-]+) ([^ ]+)")
      message(FATAL_ERROR "wasmtrace: ${_contract}: cannot read the line '${_line}'")
    endif()
    list(APPEND _items "${CMAKE_MATCH_1} ${CMAKE_MATCH_2}")
  endforeach()
  set(${out} "${_items}" PARENT_SCOPE)
endfunction()

# wasmtrace_contract_values(<part> <kind> <out-var>): the values of one kind.
function(wasmtrace_contract_values part kind out)
  _wasmtrace_contract_items(${part} _items)
  set(_values "")
  foreach(_item IN LISTS _items)
    if(_item MATCHES "^${kind} (.*)$")
      list(APPEND _values "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${out} "${_values}" PARENT_SCOPE)
endfunction()

# wasmtrace_contract_link(<part> <jsdir> <options-var> <depends-var>): a
# part's link options for a target's INTERFACE_LINK_OPTIONS (archives are
# the targets' own), and the JS files an app relinks after (its
# INTERFACE_LINK_DEPENDS). A `threads` flag is dropped by a target whose
# property WASMTRACE_THREADS is OFF.
function(wasmtrace_contract_link part jsdir out_options out_depends)
  _wasmtrace_contract_items(${part} _items)
  set(_options "")
  set(_depends "")
  foreach(_item IN LISTS _items)
    string(REPLACE " " ";" _kv "${_item}")
    list(GET _kv 0 _kind)
    list(GET _kv 1 _value)
    if(_kind STREQUAL "link" OR _kind STREQUAL "ldflag")
      list(APPEND _options "${_value}")
    elseif(_kind STREQUAL "threads")
      list(APPEND _options "$<$<NOT:$<STREQUAL:$<TARGET_PROPERTY:WASMTRACE_THREADS>,OFF>>:${_value}>")
    elseif(_kind STREQUAL "setting")
      list(APPEND _options "-s${_value}")
    elseif(_kind MATCHES "^(js-library|pre-js|post-js)$")
      list(APPEND _options "SHELL:--${_kind} \"${jsdir}/${_value}\"")
      list(APPEND _depends "${jsdir}/${_value}")
    endif()
  endforeach()
  set(${out_options} "${_options}" PARENT_SCOPE)
  set(${out_depends} "${_depends}" PARENT_SCOPE)
endfunction()

# wasmtrace_contract_pc(<part> <libs-var>): a part's pkg-config Libs, with
# ${libdir} and ${jsdir} left for pkg-config to expand.
function(wasmtrace_contract_pc part out)
  _wasmtrace_contract_items(${part} _items)
  set(_libs "")
  foreach(_item IN LISTS _items)
    string(REPLACE " " ";" _kv "${_item}")
    list(GET _kv 0 _kind)
    list(GET _kv 1 _value)
    if(_kind MATCHES "^(link|ldflag|threads)$")
      string(APPEND _libs " ${_value}")
    elseif(_kind STREQUAL "setting")
      string(APPEND _libs " -s${_value}")
    elseif(_kind STREQUAL "archive")
      string(APPEND _libs " \${libdir}/lib${_value}.a")
    elseif(_kind MATCHES "^(js-library|pre-js|post-js)$")
      string(APPEND _libs " --${_kind} \${jsdir}/${_value}")
    endif()
  endforeach()
  string(STRIP "${_libs}" _libs)
  set(${out} "${_libs}" PARENT_SCOPE)
endfunction()
