/*
 * compile_worker.c - a compile worker process of kjit-tune: its own NVRTC
 * and its own engine (no GPU) on the tuner's database, which it stores
 * each binary in. NVRTC serialises much of a small compile within one
 * process, so processes compile side by side where threads would queue.
 * A compile that crashes NVRTC takes only this process down.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "wire.h"

typedef struct cworker {
	const kjit__spec *spec;
	kjit_kernel *kernel;    /* NULL: setup failed (setup_status, setup_error) */
	kjit_engine *engine;
	kjit_status setup_status;
	char *setup_error;
} cworker;

/* Compiles config (or finds it in the cache) into *c, whose strings are
 * malloc'ed (kt_compiled_clear()). */
static void compile_one(cworker *w, const uint16_t *config, uint32_t n, kt_compiled *c)
{
	memset(c, 0, sizeof *c);
	int fits = n == w->spec->n_params;
	for (uint32_t i = 0; fits && i < n; i++)
		fits = config[i] < w->spec->params[i].n_values;
	kjit_config *cfg;
	if (!w->kernel) {
		c->status = w->setup_status;
		c->error = strdup(w->setup_error ? w->setup_error : "");
		return;
	}
	if (!fits) {
		c->status = KJIT_ERR_INVALID_ARG;
		c->error = strdup("a configuration of another spec");
		return;
	}
	if (kt_config_open(w->spec, config, &cfg) != KJIT_OK) {
		c->status = KJIT_ERR_NOMEM;
		return;
	}
	kjit_engine_stats before, after;
	kjit_variant *v = NULL;
	kjit_variant_info info;
	kjit_status st;
	kjit_engine_get_stats(w->engine, &before);
	kjit_variants_get(w->kernel, kjit_config_variant(cfg), 1, 1, &v, &st, &c->error);
	kjit_engine_get_stats(w->engine, &after);
	kjit_config_free(cfg);
	c->status = st;
	c->compiled = after.compiles != before.compiles;
	if (st == KJIT_OK && (st = kjit_variant_get_info(v, &info)) == KJIT_OK) {
		c->key = strdup(info.key);
		c->compile_ms = info.compile_ms;
	}
	if (st == KJIT_OK && !c->key)
		st = KJIT_ERR_NOMEM;
	if (st != KJIT_OK && c->status == KJIT_OK) {
		c->status = st;
		c->error = strdup(kjit_last_error());
	}
	c->broken = kjit_engine_store_broken(w->engine, c->status);
}

/* Opens the engine and the kernel; a failure is kept and answered to
 * every job, so that the tuner reports it as it would its own. */
static void setup(cworker *w, const char *db, const char *arch)
{
	kjit_engine_options eo;
	kjit_engine_options_init(&eo);
	eo.db_path = db;
	eo.arch = arch;
	eo.compile_threads = 1;
	eo.flags = KJIT_ENGINE_NO_GPU;
	kjit_kernel *k = NULL;
	kjit_status st = kjit_engine_open(&eo, &w->engine);
	if (st == KJIT_OK)
		st = kjit_spec_kernel(w->engine, w->spec, 0, &k);
	if (st == KJIT_OK) {
		w->kernel = k;
	} else {
		w->setup_status = st;
		w->setup_error = strdup(kjit_last_error());
	}
}

int kt_compile_worker_main(const char *spec_path, const char *db, const char *arch, int in_fd,
                           int out_fd)
{
	kjit__spec *spec;
	if (kjit_spec_load(spec_path, &spec) != KJIT_OK) {
		fprintf(stderr, "kjit-tune (compile worker): %s\n", kjit_last_error());
		return KT_EXIT_SPEC;
	}
	cworker w = { .spec = spec };
	setup(&w, db, arch);
	kt_buf in = { 0 }, out = { 0 };
	int ret = KT_EXIT_OK;
	for (;;) {
		kt_frame_result fr = kt_frame_read(in_fd, &in, 0, NULL);
		if (fr == KT_FRAME_EOF)
			break;
		uint16_t *config = NULL;
		uint32_t n = 0;
		if (fr != KT_FRAME_OK || kt_compile_decode(&in, &config, &n) != KJIT_OK) {
			fprintf(stderr, "kjit-tune (compile worker): %s\n", kjit_last_error());
			ret = KT_EXIT_RUNTIME;
			break;
		}
		kt_compiled c;
		compile_one(&w, config, n, &c);
		free(config);
		kt_compiled_encode(&out, &c);
		kt_compiled_clear(&c);
		if (kt_frame_write(out_fd, &out) != KJIT_OK) {
			ret = KT_EXIT_RUNTIME;
			break;
		}
	}
	kt_buf_free(&in);
	kt_buf_free(&out);
	free(w.setup_error);
	kjit_engine_close(w.engine);
	kjit_spec_free(spec);
	return ret;
}
