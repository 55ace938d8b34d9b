# tk_dependency(NAME PKG) - an optional dependency with an AUTO/ON/OFF cache option TK_WITH_<NAME>.
# Looks the package up with pkg-config; ON and missing stops the configure with a message; sets
# TK_HAVE_<NAME> and, when found, the imported target PkgConfig::<NAME>.
include(FindPkgConfig)
function(tk_dependency NAME PKG)
  set(TK_WITH_${NAME} AUTO CACHE STRING "Build with ${PKG}: AUTO, ON or OFF")
  set_property(CACHE TK_WITH_${NAME} PROPERTY STRINGS AUTO ON OFF)
  set(have OFF)
  if(NOT TK_WITH_${NAME} STREQUAL "OFF")
    pkg_check_modules(${NAME} IMPORTED_TARGET GLOBAL ${PKG})
    if(${NAME}_FOUND)
      set(have ON)
    elseif(TK_WITH_${NAME} STREQUAL "ON")
      message(FATAL_ERROR "TK_WITH_${NAME}=ON but ${PKG} was not found (install its -dev package, or pass -DTK_WITH_${NAME}=OFF)")
    endif()
  endif()
  set(TK_HAVE_${NAME} ${have} PARENT_SCOPE)
  set(${NAME}_VERSION "${${NAME}_VERSION}" PARENT_SCOPE)
endfunction()
