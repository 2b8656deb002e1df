/*
 * test-nvml-absent - NVML where it cannot be had (cupti/nvml.c), on any
 * machine: each case gives KJIT_ERR_NO_GPU, no handle, and one line that
 * names the reason.
 *  - KJIT_NVML=off: "NVML turned off (KJIT_NVML=off)", before any
 *    library is opened (a missing KJIT_LIBNVML is not even tried);
 *  - KJIT_LIBNVML naming a file that does not exist: the file's name and
 *    the loader's reason;
 *  - KJIT_LIBNVML naming a real library that is not NVML (libm.so.6):
 *    "NVML too old" and the first entry point it lacks.
 * Each case runs three times in one process (a handle is opened and
 * closed each time: no state survives a failure), and once more through
 * the public power reading, kjit_power_open(), which says the same. Its
 * NULL arguments are refused too.
 */
#include "testutil.h"

#include "instr.h"

static void refused(const char *what, const char *want1, const char *want2)
{
	for (int i = 0; i < 3; i++) {
		kjit__nvml *n = (kjit__nvml *)1;
		CHECK_ST(kjit__nvml_open_uuid(NULL, &n), KJIT_ERR_NO_GPU);
		CHECK(n == NULL);
		const char *m = kjit_last_error();
		CHECK_CONTAINS(m, want1);
		if (want2)
			CHECK_CONTAINS(m, want2);
		CHECK_MSG(!strchr(m, '\n'), "more than one line: %s", m);
	}
	kjit_power *p = (kjit_power *)1;
	CHECK_ST(kjit_power_open(NULL, &p), KJIT_ERR_NO_GPU);
	CHECK(p == NULL);
	CHECK_CONTAINS(kjit_last_error(), want1);
	if (want2)
		CHECK_CONTAINS(kjit_last_error(), want2);
	OK("%s: \"%s\", kjit_power_open() too", what, kjit_last_error());
}

/* kjit_power_*: NULL arguments, whatever NVML there is. */
static void power_nulls(void)
{
	double w = 42;
	CHECK_ST(kjit_power_open(NULL, NULL), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "kjit_power_open: out is NULL");
	CHECK_ST(kjit_power_read(NULL, &w), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "kjit_power_read: power is NULL");
	CHECK(w == 42);
	kjit_gpu_sensors g = { 42, 42, 42 };
	CHECK_ST(kjit_power_sensors(NULL, &g), KJIT_ERR_INVALID_ARG);
	CHECK_CONTAINS(kjit_last_error(), "kjit_power_sensors: power is NULL");
	CHECK(g.temperature_c == 42 && g.graphics_clock_mhz == 42 && g.mem_clock_mhz == 42);
	CHECK(strcmp(kjit_power_gpu_name(NULL), "") == 0);
	kjit_power_close(NULL);
	OK("kjit_power_*: a NULL out or handle refused, no name, nothing to close");
}

int main(int argc, char **argv)
{
	tu_init(argc, argv);
	setenv("KJIT_NVML", "off", 1);
	setenv("KJIT_LIBNVML", "/nonexistent/libnvidia-ml.so.1", 1);
	refused("KJIT_NVML=off", "NVML turned off (KJIT_NVML=off)", NULL);
	CHECK(strstr(kjit_last_error(), "nonexistent") == NULL);

	unsetenv("KJIT_NVML");
	refused("no library", "no NVML: /nonexistent/libnvidia-ml.so.1 could not be opened (",
	        "No such file");

	setenv("KJIT_LIBNVML", "libm.so.6", 1);
	refused("a library that is not NVML", "NVML too old: ", "has no nvmlInit_v2");

	power_nulls();
	printf("%s: PASS\n", tu_prog);
	return 0;
}
