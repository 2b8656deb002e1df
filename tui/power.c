/*
 * power.c - the GPU's name and power for kjit-top's header, through
 * kjit_power_* of kjit.h: NVML's first GPU, opened once, read at every
 * refresh. Without NVML (no driver, a container without it, KJIT_NVML=off)
 * the header says why and everything else works as before.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "kjit.h"
#include "tui.h"

void top_power_open(top_power *p)
{
	memset(p, 0, sizeof *p);
	if (kjit_power_open(NULL, &p->power) != KJIT_OK)
		snprintf(p->reason, sizeof p->reason, "%s", kjit_last_error());
}

void top_power_read(top_power *p)
{
	double watts = 0;
	if (!p->power) {
		top_format_power(NULL, 0, p->reason, p->text, sizeof p->text);
	} else if (kjit_power_read(p->power, &watts) != KJIT_OK) {
		top_format_power(NULL, 0, kjit_last_error(), p->text, sizeof p->text);
	} else {
		top_format_power(kjit_power_gpu_name(p->power), watts, NULL, p->text,
		                 sizeof p->text);
	}
}

void top_power_close(top_power *p)
{
	kjit_power_close(p->power);
	p->power = NULL;
}
