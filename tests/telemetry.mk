# tests of cupti/telemetry.c: CPU only, real SQLite files in a temp folder.
# They call the internal kjit__telemetry_* functions (instr.h).

KJIT_TELEMETRY_TESTS = \
	tests/test-telemetry \
	tests/test-telemetry-flood \
	tests/test-telemetry-retention

check_PROGRAMS += $(KJIT_TELEMETRY_TESTS)
TESTS += $(KJIT_TELEMETRY_TESTS)

tests_test_telemetry_SOURCES = tests/test-telemetry.c tests/testutil.h
tests_test_telemetry_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS)

tests_test_telemetry_flood_SOURCES = tests/test-telemetry-flood.c tests/testutil.h
tests_test_telemetry_flood_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS)

tests_test_telemetry_retention_SOURCES = tests/test-telemetry-retention.c tests/testutil.h
tests_test_telemetry_retention_LDADD = $(KJIT_INTERNAL_LIBS) $(SQLITE_LIBS)
