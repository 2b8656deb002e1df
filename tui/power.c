/*
 * power.c - the GPU's name, power, temperature and clock for kjit-top's
 * header, through
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
	kjit_gpu_sensors sensors;
	if (!p->power) {
		top_format_power(NULL, 0, NULL, p->reason, p->text, sizeof p->text);
	} else if (kjit_power_read(p->power, &watts) != KJIT_OK) {
		top_format_power(NULL, 0, NULL, kjit_last_error(), p->text, sizeof p->text);
	} else {
		/* a GPU without the readings still shows its power */
		int sensed = kjit_power_sensors(p->power, &sensors) == KJIT_OK;
		top_format_power(kjit_power_gpu_name(p->power), watts, sensed ? &sensors : NULL,
		                 NULL, p->text, sizeof p->text);
	}
}

void top_power_close(top_power *p)
{
	kjit_power_close(p->power);
	p->power = NULL;
}
