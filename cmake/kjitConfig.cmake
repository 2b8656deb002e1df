# kjitConfig.cmake - find_package(kjit) for an installed kjit: the
# imported target kjit::kjit, with kjit.h's folder and what a link needs.
# Made by make from cmake/kjitConfig.cmake.in; installed in
# $(libdir)/cmake/kjit, and relocatable: the folders are found from this
# file's own, so a prefix that was moved (or staged with DESTDIR) works.
#
#   find_package(kjit 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE kjit::kjit)
#
# kjit::kjit is libkjit.so, or libkjit.a where no shared library is
# installed or where kjit_USE_STATIC_LIBS is true: the archive brings
# SQLite, NVRTC, nvJitLink and CUPTI (shared libraries of the toolkit,
# found through an rpath to its folder) and libdl, libpthread, libm.
# Sets kjit_VERSION, kjit_LIBRARY (the file linked) and kjit_INCLUDE_DIR.
cmake_minimum_required(VERSION 3.13)

set(kjit_VERSION "0.1.0")
get_filename_component(_kjit_libdir "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
# kjit.h's folder as configured, relative to the library folder
file(RELATIVE_PATH _kjit_rel "/usr/local/lib" "/usr/local/include")
get_filename_component(kjit_INCLUDE_DIR "${_kjit_libdir}/${_kjit_rel}" ABSOLUTE)

if(kjit_USE_STATIC_LIBS OR NOT EXISTS "${_kjit_libdir}/libkjit.so")
  set(_kjit_kind STATIC)
  set(kjit_LIBRARY "${_kjit_libdir}/libkjit.a")
else()
  set(_kjit_kind SHARED)
  set(kjit_LIBRARY "${_kjit_libdir}/libkjit.so")
endif()
if(NOT EXISTS "${kjit_LIBRARY}")
  set(kjit_FOUND FALSE)
  set(kjit_NOT_FOUND_MESSAGE "${kjit_LIBRARY} is not installed (kjit_USE_STATIC_LIBS asks for the archive: configure kjit with --enable-static)")
  return()
endif()

if(NOT TARGET kjit::kjit)
  add_library(kjit::kjit ${_kjit_kind} IMPORTED)
  set_target_properties(kjit::kjit PROPERTIES
    IMPORTED_LOCATION "${kjit_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${kjit_INCLUDE_DIR}")
  if(_kjit_kind STREQUAL STATIC)
    # libkjit.pc's Libs.private, with an rpath to the toolkit's libraries
    separate_arguments(_kjit_libs UNIX_COMMAND
      "-lsqlite3  -lnvrtc -lnvJitLink -lcupti -lm ")
    set_target_properties(kjit::kjit PROPERTIES
      IMPORTED_LINK_INTERFACE_LANGUAGES C
      INTERFACE_LINK_DIRECTORIES "/usr/local/cuda/lib64;/usr/local/cuda/lib64"
      INTERFACE_LINK_OPTIONS "LINKER:-rpath,/usr/local/cuda/lib64;LINKER:-rpath,/usr/local/cuda/lib64"
      INTERFACE_LINK_LIBRARIES "${_kjit_libs}")
  endif()
endif()
unset(_kjit_kind)
unset(_kjit_libdir)
unset(_kjit_rel)
unset(_kjit_libs)
