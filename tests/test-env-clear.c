/*
 * test-env-clear - a user's settings in the environment do not reach a
 * test, and what a test sets for its own children does.
 *
 *  - every setting of the table (KJIT__ENV_VARS) set to "hostile", which
 *    kjit refuses where it parses the value: an engine opened here fails
 *    on it;
 *  - a test started with that environment (this program again, as make
 *    check would start it, with KJIT_TEST_PARENT naming another process)
 *    finds every setting there before tu_init() and none after, the
 *    system's variables (HOME, TERM) untouched, and opens the engine;
 *  - a setting that test makes (KJIT_PROFILE=0.5) reaches the child it
 *    starts with tu_spawn_self(), and the cleared ones stay cleared there.
 */
#include "testutil.h"

#define HOSTILE "hostile"

static kjit_status open_engine(const char *dir, kjit_engine **e)
{
	char db[TU_PATH];
	kjit_engine_options o;
	kjit_engine_options_init(&o);
	o.db_path = tu_path(db, dir, "kjit.db");
	o.arch = "sm_90";
	o.flags = KJIT_ENGINE_NO_GPU;
	*e = NULL;
	return kjit_engine_open(&o, e);
}

/* Whether every setting has the value want (NULL: unset). */
static int settings_are(const char *want, const char **which)
{
	const kjit__env_entry *vars = kjit__env_table();
	for (size_t i = 0; i < KJIT__ENV_COUNT; i++) {
		if (vars[i].kind != KJIT__ENV_KIND_SETTING)
			continue;
		const char *v = getenv(vars[i].name);
		if (want ? !v || strcmp(v, want) != 0 : v != NULL) {
			*which = vars[i].name;
			return 0;
		}
	}
	return 1;
}

static int child(void)
{
	const char *which = NULL;
	CHECK_STREQ(getenv("KJIT_PROFILE"), "0.5");
	CHECK(kjit__env(KJIT__ENV_TUNE) == NULL);
	OK("child: KJIT_PROFILE=0.5 from the test that started it, KJIT_TUNE still cleared");
	CHECK(unsetenv("KJIT_PROFILE") == 0);
	CHECK_MSG(settings_are(NULL, &which), "%s is set in the child", which);
	return 0;
}

static int fresh(const char *argv0, const char *dir)
{
	const char *which = NULL;
	char home[TU_PATH], term[TU_PATH];
	CHECK_MSG(settings_are(HOSTILE, &which), "%s did not reach the test process", which);
	snprintf(home, sizeof home, "%s", getenv("HOME") ? getenv("HOME") : "(unset)");
	snprintf(term, sizeof term, "%s", getenv("TERM") ? getenv("TERM") : "(unset)");
	OK("a fresh test process: every setting is \"" HOSTILE "\" before tu_init()");

	tu_init(1, (char *[]){ "test-env-clear(fresh)", NULL });
	CHECK_MSG(settings_are(NULL, &which), "tu_init() left %s set", which);
	for (size_t i = 0; i < KJIT__ENV_COUNT; i++)
		if (kjit__env_table()[i].kind == KJIT__ENV_KIND_SETTING)
			CHECK(kjit__env((kjit__env_var)i) == NULL);
	CHECK_STREQ(getenv("HOME") ? getenv("HOME") : "(unset)", home);
	CHECK_STREQ(getenv("TERM") ? getenv("TERM") : "(unset)", term);
	OK("after tu_init(): none is set, HOME and TERM are kept");

	kjit_engine *e = NULL;
	CHECK_OK(open_engine(dir, &e));
	kjit_engine_close(e);
	OK("the engine that failed on them opens");

	CHECK(setenv("KJIT_PROFILE", "0.5", 1) == 0);
	CHECK_MSG(tu_spawn_self(argv0, "child", NULL) == 0, "the child failed");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "fresh") == 0)
		return fresh(argv[0], argv[2]);
	tu_init(argc, argv);
	if (argc == 2 && strcmp(argv[1], "child") == 0)
		return child();

	const char *dir = tu_tmpdir();
	const kjit__env_entry *vars = kjit__env_table();
	for (size_t i = 0; i < KJIT__ENV_COUNT; i++)
		if (vars[i].kind == KJIT__ENV_KIND_SETTING)
			CHECK(setenv(vars[i].name, HOSTILE, 1) == 0);
	CHECK_STREQ(kjit__env(KJIT__ENV_TUNE), HOSTILE);
	kjit_engine *e = NULL;
	CHECK_ST(open_engine(dir, &e), KJIT_ERR_INVALID_ARG);
	CHECK(e == NULL);
	CHECK_CONTAINS(kjit_last_error(), "='" HOSTILE "'");
	OK("with every setting \"" HOSTILE "\", kjit_engine_open() fails here: %s", kjit_last_error());

	/* another process's id: this test is not the fresh one's parent */
	CHECK(setenv("KJIT_TEST_PARENT", "1", 1) == 0);
	CHECK_MSG(tu_spawn_self(argv[0], "fresh", dir) == 0, "the fresh test process failed");
	printf("PASS\n");
	return 0;
}
