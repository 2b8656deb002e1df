/*
 * power.c - the GPU's name and power for kjit-top's header, through
 * NVML (cupti/nvml.c): NVML's first GPU, opened once, read at every
 * refresh. Without NVML (no driver, a container without it, KJIT_NVML=off)
 * the header says why and everything else works as before.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tools.h"
#include "tui.h"

void top_power_open(top_power *p)
{
	memset(p, 0, sizeof *p);
	if (kjit__nvml_open_uuid(NULL, &p->nvml) != KJIT_OK)
		snprintf(p->reason, sizeof p->reason, "%s", kjit_last_error());
}

void top_power_read(top_power *p)
{
	double watts = 0;
	if (!p->nvml) {
		top_format_power(NULL, 0, p->reason, p->text, sizeof p->text);
	} else if (kjit__nvml_power_w(p->nvml, &watts) != KJIT_OK) {
		top_format_power(NULL, 0, kjit_last_error(), p->text, sizeof p->text);
	} else {
		top_format_power(kjit__nvml_name(p->nvml), watts, NULL, p->text, sizeof p->text);
	}
}

void top_power_close(top_power *p)
{
	kjit__nvml_close(p->nvml);
	p->nvml = NULL;
}
