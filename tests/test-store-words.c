/*
 * test-store-words: the words of the schema (store_schema.h).
 *
 *  - result statuses and event kinds: each has its text, in the order and
 *    spelling stored; each text parses back to its value; any other text
 *    (another case, a prefix, "", NULL, the "unknown" of a bad value) is
 *    an error that names it and leaves the output alone, never "ok";
 *  - the two-letter abbreviations of the statuses are distinct;
 *  - the tables the header lists are the tables a new store has, besides
 *    its own bookkeeping, and events_ts indexes events(ts).
 */
#include "testutil.h"

#include "base.h"

static void test_statuses(void)
{
	static const char *const stored[] = { "ok", "compile_error", "launch_error", "crashed",
		                              "timeout", "wrong_result", "stopped_early" };
	CHECK_EQ_U64(KJIT__RS_COUNT, sizeof stored / sizeof stored[0]);
	for (int i = 0; i < KJIT__RS_COUNT; i++) {
		CHECK_STREQ(kjit_result_status_name((kjit_result_status)i), stored[i]);
		kjit_result_status s = KJIT__RS_COUNT;
		CHECK_OK(kjit_result_status_parse(stored[i], &s));
		CHECK(s == (kjit_result_status)i);
	}
	OK("7 result statuses, stored as ok ... stopped_early, each parsed back");

	static const char *const bad[] = { "OK", "Ok", "ok ", "stopped", "", "unknown", "crash" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		kjit_result_status s = KJIT_RESULT_TIMEOUT;
		CHECK_ST(kjit_result_status_parse(bad[i], &s), KJIT_ERR_INVALID_ARG);
		CHECK(s == KJIT_RESULT_TIMEOUT);
		CHECK_CONTAINS(kjit__error_msg(), "is not a result status");
	}
	kjit_result_status s = KJIT_RESULT_CRASHED;
	CHECK_ST(kjit_result_status_parse(NULL, &s), KJIT_ERR_INVALID_ARG);
	CHECK(s == KJIT_RESULT_CRASHED);
	CHECK_CONTAINS(kjit__error_msg(), "(null)");
	CHECK_ST(kjit_result_status_parse("wrong_results", &s), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit__error_msg(), "'wrong_results'");
	CHECK_STREQ(kjit_result_status_name(KJIT__RS_COUNT), "unknown");
	CHECK_STREQ(kjit_result_status_name((kjit_result_status)-1), "unknown");
	OK("unknown texts, NULL and another case are errors naming the text, the output kept");

#define ABBREV(id, text, abbrev) abbrev,
	static const char *const abbr[] = { KJIT__RESULT_STATUSES(ABBREV) };
#undef ABBREV
	CHECK_EQ_U64(sizeof abbr / sizeof abbr[0], KJIT__RS_COUNT);
	for (int i = 0; i < KJIT__RS_COUNT; i++) {
		CHECK(strlen(abbr[i]) == 2);
		for (int j = 0; j < i; j++)
			CHECK_MSG(strcmp(abbr[i], abbr[j]) != 0, "%s twice", abbr[i]);
	}
	OK("the abbreviations: two letters each, all different");
}

static void test_event_kinds(void)
{
	static const char *const stored[] = { "compile", "cache", "load", "launch", "tune",
		                              "drop" };
	CHECK_EQ_U64(KJIT__EV_COUNT, sizeof stored / sizeof stored[0]);
	for (int i = 0; i < KJIT__EV_COUNT; i++) {
		CHECK_STREQ(kjit__event_kind_name((kjit__event_kind)i), stored[i]);
		kjit__event_kind k = KJIT__EV_COUNT;
		CHECK_OK(kjit__event_kind_parse(stored[i], &k));
		CHECK(k == (kjit__event_kind)i);
	}
	kjit__event_kind k = KJIT__EV_DROP;
	CHECK_ST(kjit__event_kind_parse("launches", &k), KJIT_ERR_INVALID_ARG);
	CHECK_ST(kjit__event_kind_parse(NULL, &k), KJIT_ERR_INVALID_ARG);
	CHECK(k == KJIT__EV_DROP);
	CHECK_CONTAINS(kjit__error_msg(), "is not an event kind");
	CHECK_STREQ(kjit__event_kind_name(KJIT__EV_COUNT), "unknown");
	OK("6 event kinds, compile ... drop, parsed back; other texts are errors");
}

static void test_tables(void)
{
	char path[TU_PATH];
	tu_path(path, tu_tmpdir(), "kjit.db");
	kjit__store *store;
	CHECK_OK(kjit__store_open(path, &store));
	sqlite3 *db = kjit__store_db(store);
#define LISTED(table) table,
	static const char *const listed[] = { KJIT__TABLES(LISTED) };
#undef LISTED
	sqlite3_stmt *st;
	CHECK_SQL(db, sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'"
	                                 " AND name <> 'cache_size' ORDER BY name", -1, &st, NULL),
	          SQLITE_OK);
	size_t n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		size_t i = 0;
		while (i < sizeof listed / sizeof listed[0] && strcmp(listed[i], name) != 0)
			i++;
		CHECK_MSG(i < sizeof listed / sizeof listed[0], "table %s is not in KJIT__TABLES",
		          name);
		n++;
	}
	sqlite3_finalize(st);
	CHECK_EQ_U64(n, sizeof listed / sizeof listed[0]);
	CHECK_SQL(db, sqlite3_prepare_v2(db, "SELECT name FROM pragma_index_info(?1)", -1, &st,
	                                 NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, KJIT__I_EVENTS_TS, -1, SQLITE_STATIC);
	CHECK(sqlite3_step(st) == SQLITE_ROW);
	CHECK_STREQ((const char *)sqlite3_column_text(st, 0), KJIT__C_TS);
	CHECK(sqlite3_step(st) == SQLITE_DONE);
	sqlite3_finalize(st);
	CHECK(tu_db_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
	                " AND name = '" KJIT__I_EVENTS_TS "' AND tbl_name = '" KJIT__T_EVENTS "'",
	                NULL) == 1);
	kjit__store_close(store);
	OK("KJIT__TABLES: the 8 tables of a new store; " KJIT__I_EVENTS_TS " is events(ts)");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	test_statuses();
	test_event_kinds();
	test_tables();
	return 0;
}
