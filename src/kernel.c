/* kernel.c - kernels: source, entry point, tunable parameter names, and
 * the signature that identifies them everywhere. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static int valid_param_name(const char *s)
{
	if (!s || !*s)
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
		      (p > s && *p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

kjit_status kjit__signature(const char *name, const char *source, const char *params,
                            char out[33])
{
	/* name NUL source NUL p1,p2,... */
	size_t nl = strlen(name), sl = strlen(source), pl = strlen(params);
	char *buf = malloc(nl + sl + pl + 2);
	if (!buf)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	memcpy(buf, name, nl + 1);
	memcpy(buf + nl + 1, source, sl + 1);
	memcpy(buf + nl + sl + 2, params, pl);
	kjit__hash_hex(kjit__hash(buf, nl + sl + pl + 2, 0), out);
	free(buf);
	return KJIT_OK;
}

char *kjit__param_list(const char *const *names, size_t n)
{
	size_t len = 1;
	for (size_t i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	char *list = calloc(1, len);
	for (size_t i = 0; list && i < n; i++) {
		if (i)
			strcat(list, ",");
		strcat(list, names[i]);
	}
	return list;
}

/* The seed of every binary key of k: its signature, the NVRTC identity
 * and what its headers add. */
static void key_seed(kjit_kernel *k)
{
	const char *headers = kjit__headers_identity(k->headers);
	char seed_text[200], hex[33];
	if (headers)
		kjit__hash_hex(kjit__hash(headers, strlen(headers), 0), hex);
	int seed_len = snprintf(seed_text, sizeof seed_text, "%s\n%s%s%s", k->signature,
	                        kjit_nvrtc_id(), headers ? "\n" : "", headers ? hex : "");
	kjit__hash128 seed = kjit__hash(seed_text, (size_t)seed_len, 0x6b6a6974u);
	k->key_seed = seed.lo ^ seed.hi;
}

/* A kernel from source (read from path when path is not NULL, which
 * then names it to NVRTC) with the header options of opts (may be NULL). */
static kjit_status kernel_new(kjit_engine *e, const char *name, const char *source,
                              const char *path, const char *const *param_names,
                              size_t n_params, const kjit_kernel_options *opts,
                              kjit_kernel **out)
{
	if (!name || !*name)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_create: "
		                         "the entry point name is empty"));
	if (!source)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_create: "
		                         "source of '%s' is NULL", name));
	if (n_params && !param_names)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_create: "
		                         "%zu parameter names announced, none given", n_params));

	for (size_t i = 0; i < n_params; i++) {
		if (!valid_param_name(param_names[i]))
			return kjit__engine_fail(e, kjit__error(KJIT_ERR_INVALID_ARG,
			                         "kernel '%s': parameter %zu name '%s' is not an "
			                         "identifier", name, i,
			                         param_names[i] ? param_names[i] : "(null)"));
	}
	kjit_kernel *k = calloc(1, sizeof *k);
	char *params = kjit__param_list(param_names, n_params);
	kjit_status st = KJIT_ERR_NOMEM;
	if (!k || !params || !(k->name = strdup(name)) || !(k->source = strdup(source)) ||
	    !(k->file = path ? strdup(path) : kjit__strdup_printf("%.100s.cu", name))) {
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto fail;
	}
	k->params = params;
	st = kjit__signature(name, source, params, k->signature);
	if (st != KJIT_OK ||
	    (st = kjit__headers_make(k->name, k->source, path, k->file, opts, &k->headers)) != KJIT_OK)
		goto fail;
	key_seed(k);
	k->engine = e;
	pthread_mutex_init(&k->symbols_lock, NULL);
	pthread_mutex_lock(&e->lock);
	k->next = e->kernels;
	e->kernels = k;
	pthread_mutex_unlock(&e->lock);
	*out = k;
	return KJIT_OK;
fail:
	if (k) {
		free(k->name);
		free(k->source);
		free(k->file);
	}
	free(k);
	free(params);
	return kjit__engine_fail(e, st);
}

kjit_status kjit_kernel_create(kjit_engine *e, const char *name, const char *source,
                               const char *const *param_names, size_t n_params,
                               kjit_kernel **out)
{
	if (out)
		*out = NULL;
	if (!e || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_create: engine and out must "
		                   "not be NULL");
	return kernel_new(e, name, source, NULL, param_names, n_params, NULL, out);
}

kjit_status kjit_kernel_create_from_file(kjit_engine *e, const char *name, const char *path,
                                         const char *const *param_names, size_t n_params,
                                         kjit_kernel **out)
{
	if (out)
		*out = NULL;
	if (!e || !path)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_create_from_file: engine and "
		                   "path must not be NULL");
	return kjit_kernel_create_with(e, name, NULL, path, param_names, n_params, NULL, out);
}

void kjit__kernel_free(kjit_kernel *k)
{
	for (size_t i = 0; i < k->n_symbols; i++) {
		free(k->symbols[i].name);
		free(k->symbols[i].data);
	}
	free(k->symbols);
	for (size_t i = 0; i < k->n_want; i++) {
		free(k->want[i].name);
		free(k->want[i].type);
	}
	free(k->want);
	kjit__given_free(&k->given);
	kjit__link_free(k->link);
	pthread_mutex_destroy(&k->symbols_lock);
	free(k->name);
	free(k->source);
	free(k->file);
	free(k->params);
	kjit__headers_free(k->headers);
	free(k);
}

const char *kjit_kernel_signature(const kjit_kernel *k)
{
	return k ? k->signature : "";
}

void kjit_kernel_options_init(kjit_kernel_options *opts)
{
	if (opts)
		memset(opts, 0, sizeof *opts);
}

/* The link inputs of opts made into *link (NULL when there are none). */
static kjit_status link_inputs(kjit_engine *e, const char *name, const kjit_kernel_options *opts,
                               kjit__link **link)
{
	*link = NULL;
	if (!opts || (!opts->n_link && !opts->n_link_options))
		return KJIT_OK;
	kjit_status st = kjit__link_make(e, opts, link);
	return st == KJIT_OK ? KJIT_OK : kjit__error(st, "kernel '%s': %s", name, kjit__error_msg());
}

kjit_status kjit_kernel_create_with(kjit_engine *e, const char *name, const char *source,
                                    const char *path, const char *const *param_names,
                                    size_t n_params, const kjit_kernel_options *opts,
                                    kjit_kernel **out)
{
	if (out)
		*out = NULL;
	if (!e || !out || (!source && !path))
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_kernel_create_with: engine, out and "
		                   "a source or a path are needed");
	kjit__link *link;
	kjit_status st = link_inputs(e, name ? name : "(null)", opts, &link);
	if (st != KJIT_OK)
		return kjit__engine_fail(e, st);
	if (source) {
		st = kernel_new(e, name, source, path, param_names, n_params, opts, out);
	} else {
		char *text;
		size_t len;
		if ((st = kjit__read_text(path, &text, &len)) != KJIT_OK) {
			st = kjit__engine_fail(e, kjit__error(st, "cannot read kernel source: %s",
			                       kjit_last_error()));
		} else if (strlen(text) != len) {
			st = kjit__engine_fail(e, kjit__error(KJIT_ERR_INVALID_ARG, "kernel source %s "
			                       "contains a NUL byte: not CUDA source text", path));
		} else {
			st = kernel_new(e, name, text, path, param_names, n_params, opts, out);
		}
		free(text);
	}
	if (st == KJIT_OK)
		(*out)->link = link; /* before any variant: no other thread has the kernel yet */
	else
		kjit__link_free(link);
	return st;
}
