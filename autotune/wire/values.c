/*
 * values.c - a configuration as kjit-tune carries it (a value index per
 * parameter, uint16_t, as the messages hold it) and as the library takes
 * it: a kjit_config to compile and launch, a configuration of a space.
 */
#include "config.h"

#include <stdlib.h>

#include "wire.h"

kjit_status kt_config_open(const kjit__spec *spec, const uint16_t *config, kjit_config **out)
{
	*out = NULL;
	if (!config)
		return kjit_config_new(spec, NULL, out);
	size_t *values = malloc((spec->n_params + 1) * sizeof *values);
	if (!values)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < spec->n_params; i++)
		values[i] = config[i];
	kjit_status st = kjit_config_new(spec, values, out);
	free(values);
	return st;
}

kjit_status kt_space_config(const kjit__space *space, size_t index, uint16_t *config)
{
	size_t *values = malloc((space->n_params + 1) * sizeof *values);
	if (!values)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	kjit_status st = kjit_space_config(space, index, values);
	for (size_t i = 0; st == KJIT_OK && i < space->n_params; i++)
		config[i] = (uint16_t)values[i];
	free(values);
	return st;
}
