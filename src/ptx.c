/* ptx.c - the PTX tier of the cache: a GPU with no cubin of its own in
 * the database uses the PTX stored for a virtual arch it can run (a
 * database compiled elsewhere, for later GPUs), which the driver
 * compiles to its cubin. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* The JIT's error log: enough for the first errors of a bad PTX. */
#define LOG_BYTES 8192

/* The CUjit_target of a real arch: sm_90 is 90, sm_90a and sm_100f the
 * arch- and family-specific targets of theirs. */
static unsigned jit_target(const char *arch)
{
	unsigned v = (unsigned)atoi(arch + 3);
	char last = arch[strlen(arch) - 1];
	return last == 'a' ? CU_COMPUTE_ACCELERATED_TARGET_BASE + v
	       : last == 'f' ? CU_COMPUTE_FAMILY_TARGET_BASE + v : v;
}

/* Has the driver compile the PTX text in c->cubin (NUL included) to a
 * cubin for the engine's arch, which replaces it in c; c->ms becomes the
 * JIT's time. On failure the error holds the JIT's log and c is as it
 * was. */
static kjit_status jit(kjit_engine *e, const char *name, const char *from, kjit__compiled *c)
{
	kjit_status st = kjit__engine_ctx(e);
	if (st != KJIT_OK)
		return st;
	uint64_t t0 = kjit__now_ns();
	char log[LOG_BYTES] = "";
	CUjit_option keys[] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
		                CU_JIT_TARGET };
	void *values[] = { log, (void *)(uintptr_t)sizeof log,
		           (void *)(uintptr_t)jit_target(e->arch) };
	CUlinkState link = NULL;
	const char *step = "cuLinkCreate";
	CUresult r = e->cu->cuLinkCreate(3, keys, values, &link);
	if (r == CUDA_SUCCESS) {
		step = "cuLinkAddData(CU_JIT_INPUT_PTX)";
		r = e->cu->cuLinkAddData(link, CU_JIT_INPUT_PTX, c->cubin, c->size, name, 0, NULL,
		                         NULL);
	}
	void *cubin = NULL;
	size_t size = 0;
	if (r == CUDA_SUCCESS) {
		step = "cuLinkComplete";
		r = e->cu->cuLinkComplete(link, &cubin, &size);
	}
	void *copy = r == CUDA_SUCCESS ? malloc(size ? size : 1) : NULL;
	if (copy)
		memcpy(copy, cubin, size);
	/* the cubin belongs to the link state: copied before it goes */
	CUresult rd = link ? e->cu->cuLinkDestroy(link) : CUDA_SUCCESS;
	if (r != CUDA_SUCCESS) {
		char what[512];
		snprintf(what, sizeof what, "the driver's compile of the %s PTX of %s to %s, %s", from,
		         name, e->arch, step);
		kjit__cu_fail(KJIT_ERR_CUDA, r, what);
		return kjit__error(KJIT_ERR_CUDA, "%s\n%s", kjit__error_msg(),
		                   log[0] ? log : "(the JIT gave no log)");
	}
	if (!copy)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (rd != CUDA_SUCCESS) {
		free(copy);
		return kjit__cu_fail(KJIT_ERR_CUDA, rd, "cuLinkDestroy");
	}
	free(c->cubin);
	c->cubin = copy;
	c->size = size;
	c->ms = (double)(kjit__now_ns() - t0) * 1e-6;
	return KJIT_OK;
}

/* The virtual archs whose PTX can become a cubin of arch, best first:
 * compute_MM for every MM <= NN that NVRTC knows, highest first, for
 * sm_NN; an arch-specific sm_NNa or family-specific sm_NNf takes its own
 * compute_NNa or compute_NNf alone (generic PTX would make a cubin that
 * lacks what its key promises). */
static size_t candidates(const char *arch, char out[][16], size_t cap)
{
	char last = arch[strlen(arch) - 1];
	if (last == 'a' || last == 'f') {
		snprintf(out[0], sizeof out[0], "compute_%s", arch + 3);
		return 1;
	}
	const int *known;
	size_t n_known, n = 0;
	if (kjit__nvrtc_archs(&known, &n_known) != KJIT_OK)
		return 0;
	int top = atoi(arch + 3);
	for (size_t i = n_known; i-- > 0 && n < cap;)
		if (known[i] <= top)
			snprintf(out[n++], sizeof out[0], "compute_%d", known[i]);
	return n;
}

kjit_status kjit__ptx_find(kjit_kernel *k, const char *options,
                           const kjit__header_set *headers, kjit__compiled *out, int *corrupt)
{
	kjit_engine *e = k->engine;
	*corrupt = 0;
	memset(out, 0, sizeof *out);
	if (!e->cu)
		return KJIT_ERR_NOT_FOUND;
	/* The options with the -arch line, which is last, set to each
	 * virtual arch in turn, and the same header files: the key that
	 * arch's PTX is stored under. */
	const char *nl = strrchr(options, '\n');
	const char *arch_line = nl ? nl + 1 : options;
	if (strncmp(arch_line, "-arch=", 6) != 0)
		return KJIT_ERR_NOT_FOUND;
	size_t prefix = (size_t)(arch_line - options);
	char *text = malloc(prefix + 32);
	if (!text)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	memcpy(text, options, prefix);
	char archs[32][16];
	size_t n = candidates(e->arch, archs, sizeof archs / sizeof archs[0]);
	kjit_status st = KJIT_ERR_NOT_FOUND;
	for (size_t i = 0; i < n && st == KJIT_ERR_NOT_FOUND; i++) {
		int len = snprintf(text + prefix, 32, "-arch=%s", archs[i]);
		char key[33];
		kjit__hash_hex(kjit__headers_final_key(headers, kjit__hash(text, prefix + (size_t)len,
		                                                          k->key_seed)), key);
		st = kjit__store_binary_get(e->store, key, &out->cubin, &out->size, &out->lowered,
		                            &out->ms);
		if (st == KJIT_OK) {
			/* PTX is text with its NUL; anything else is no PTX */
			const char *ptx = out->cubin;
			st = out->size && !ptx[out->size - 1] ? jit(e, k->name, archs[i], out)
			                                      : kjit__error(KJIT_ERR_CORRUPT, "binary %s "
			                                                    "of %s is not PTX text", key,
			                                                    k->name);
		}
		if (st == KJIT_OK)
			break;
		kjit__compiled_free(out);
		/* A stored PTX that fails its checksum or the JIT is skipped:
		 * the next arch, else NVRTC, replaces what it would have given;
		 * the engine's last error keeps why (the JIT's log). */
		if (st == KJIT_ERR_CORRUPT || st == KJIT_ERR_CUDA) {
			kjit__engine_fail(e, st);
			(*corrupt)++;
			st = KJIT_ERR_NOT_FOUND;
		}
	}
	free(text);
	return st;
}
