# tests of kjit-top (CPU only). The model and layout tests link tui/'s
# sources directly; the output and pty tests run the built tui/kjit-top
# on a database they fill (test-top-db.h), with $KJIT_TOP_NOW fixing the
# clock. test-top-pty drives a real terminal through tmux and skips (77)
# without it.

KJIT_TOP_TESTS = \
	tests/test-top-layout \
	tests/test-top-model \
	tests/test-top-output \
	tests/test-top-pty

check_PROGRAMS += $(KJIT_TOP_TESTS)
TESTS += $(KJIT_TOP_TESTS)

KJIT_TOP_TEST_CPPFLAGS = $(KJIT_TEST_CPPFLAGS) -I$(top_srcdir)/tui -I$(top_srcdir)/tests
KJIT_TOP_TEST_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS) -lm

tests_test_top_layout_SOURCES = tests/test-top-layout.c tests/testutil.h \
	tui/tui.h tui/layout.c
tests_test_top_layout_CPPFLAGS = $(KJIT_TOP_TEST_CPPFLAGS)
tests_test_top_layout_LDADD = $(KJIT_TOP_TEST_LDADD)

tests_test_top_model_SOURCES = tests/test-top-model.c tests/test-top-db.h tests/testutil.h \
	tui/tui.h tui/model.c tui/layout.c
tests_test_top_model_CPPFLAGS = $(KJIT_TOP_TEST_CPPFLAGS)
tests_test_top_model_LDADD = $(KJIT_TOP_TEST_LDADD)

tests_test_top_output_SOURCES = tests/test-top-output.c tests/test-top-db.h tests/testutil.h
tests_test_top_output_CPPFLAGS = $(KJIT_TOP_TEST_CPPFLAGS)
tests_test_top_output_LDADD = $(KJIT_TOP_TEST_LDADD)

tests_test_top_pty_SOURCES = tests/test-top-pty.c tests/test-top-db.h tests/testutil.h
tests_test_top_pty_CPPFLAGS = $(KJIT_TOP_TEST_CPPFLAGS)
tests_test_top_pty_LDADD = $(KJIT_TOP_TEST_LDADD)

# the golden snapshots of test-top-output
EXTRA_DIST += tests/test-top-once.golden tests/test-top-json.golden
