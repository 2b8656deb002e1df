/*
 * launch.c - a configuration as kjit-tune compiles and launches it: the
 * library's configuration (kjit_config) and its geometry together, and the
 * compile options as one string, to compile a configuration once.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "worker.h"

char *kt_variant_text(const kjit__spec *spec, const uint16_t *c)
{
	kjit__buf b = { 0 };
	for (size_t i = 0; i < spec->n_params; i++) {
		const kjit__param *pa = &spec->params[i];
		if (pa->roles & KJIT__ROLE_DEFINE) {
			kjit__buf_str(&b, "D");
			kjit__buf_str(&b, pa->name);
			kjit__buf_str(&b, "=");
			kjit__buf_str(&b, pa->values[c[i]].text);
			kjit__buf_str(&b, "\n");
		}
		if (pa->roles & KJIT__ROLE_FLAGS) {
			kjit__buf_str(&b, "F");
			kjit__buf_str(&b, pa->values[c[i]].text);
			kjit__buf_str(&b, "\n");
		}
	}
	return kjit__buf_done(&b);
}

kjit_status kt_launch_make(const kjit__spec *spec, size_t p, const uint16_t *config,
                           kt_launch *l)
{
	memset(l, 0, sizeof *l);
	kjit_status st = kt_config_open(spec, config, &l->config);
	if (st == KJIT_OK)
		st = kjit_config_dims(l->config, p, l->grid, l->block, &l->shared);
	if (st != KJIT_OK)
		kt_launch_clear(l);
	return st;
}

void kt_launch_clear(kt_launch *l)
{
	kjit_config_free(l->config);
	l->config = NULL;
}
