# The CMake package (find_package(kjit), the imported target kjit::kjit):
# made from its .in files by make, with the folders and libraries that
# configure found, and installed in $(libdir)/cmake/kjit.
# tests/test-cmake.sh builds a CMake project against an installed kjit
# (make installcheck, which make distcheck runs).
cmakedir = $(libdir)/cmake/kjit
cmake_DATA = cmake/kjitConfig.cmake cmake/kjitConfigVersion.cmake
EXTRA_DIST += cmake/kjitConfig.cmake.in cmake/kjitConfigVersion.cmake.in
CLEANFILES += $(cmake_DATA)

kjit_cmake_edit = sed \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g' \
	-e 's|@libdir[@]|$(libdir)|g' \
	-e 's|@includedir[@]|$(includedir)|g' \
	-e 's|@CUDA_LIBDIR[@]|$(CUDA_LIBDIR)|g' \
	-e 's|@CUPTI_LIBDIR[@]|$(CUPTI_LIBDIR)|g' \
	-e 's|@SQLITE_LIBS[@]|$(SQLITE_LIBS)|g' \
	-e 's|@NVRTC_LIBS[@]|$(NVRTC_LIBS)|g' \
	-e 's|@NVJITLINK_LIBS[@]|$(NVJITLINK_LIBS)|g' \
	-e 's|@CUPTI_LIBS[@]|$(CUPTI_LIBS)|g' \
	-e 's|@LIBS[@]|$(LIBS)|g'

cmake/kjitConfig.cmake: $(srcdir)/cmake/kjitConfig.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) cmake && $(kjit_cmake_edit) $(srcdir)/cmake/kjitConfig.cmake.in > $@.tmp && mv $@.tmp $@
cmake/kjitConfigVersion.cmake: $(srcdir)/cmake/kjitConfigVersion.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) cmake && $(kjit_cmake_edit) $(srcdir)/cmake/kjitConfigVersion.cmake.in > $@.tmp && mv $@.tmp $@

# a CMake consumer of the installed kjit, shared and static
EXTRA_DIST += tests/test-cmake.sh
installcheck-local:
	KJIT_SRCDIR='$(abs_top_srcdir)' KJIT_TEST_CC='$(CC)' \
		$(SHELL) '$(abs_top_srcdir)/tests/test-cmake.sh' '$(DESTDIR)$(prefix)' '$(DESTDIR)$(libdir)'
