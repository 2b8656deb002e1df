/* link.c - JIT LTO: a kernel's link inputs and their keys, the LTO IR of
 * a variant (cached under its compile key), and its link with nvJitLink. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nvJitLink.h>

#include "engine.h"

typedef struct link_input {
	kjit_link_kind kind;
	char *name; /* in messages and nvJitLink's log */
	void *data; /* malloc'ed; for a source, its LTO IR */
	size_t size;
	char hash[33]; /* of the bytes given: for a source, of its text */
} link_input;

struct kjit__link {
	link_input *inputs;
	size_t n;
	char **options; /* -arch=sm_NN, -lto, then the user's */
	size_t n_options;
	kjit__hash128 seed; /* what a link key adds to the compile key */
};

static char nvjitlink_id[96];
static pthread_once_t nvjitlink_id_once = PTHREAD_ONCE_INIT;

static void make_nvjitlink_id(void)
{
	unsigned major = 0, minor = 0;
	int ok = nvJitLinkVersion(&major, &minor) == NVJITLINK_SUCCESS;
	kjit__library_id(nvjitlink_id, sizeof nvjitlink_id, "nvjitlink", ok ? (int)major : -1,
	                 ok ? (int)minor : -1, (const void *)nvJitLinkVersion);
}

const char *kjit__nvjitlink_id(void)
{
	pthread_once(&nvjitlink_id_once, make_nvjitlink_id);
	return nvjitlink_id;
}

static const char *result_name(nvJitLinkResult r)
{
	switch (r) {
#define R(x) case NVJITLINK_##x: return "NVJITLINK_" #x;
	R(SUCCESS) R(ERROR_UNRECOGNIZED_OPTION) R(ERROR_MISSING_ARCH) R(ERROR_INVALID_INPUT)
	R(ERROR_PTX_COMPILE) R(ERROR_NVVM_COMPILE) R(ERROR_INTERNAL) R(ERROR_THREADPOOL)
	R(ERROR_UNRECOGNIZED_INPUT) R(ERROR_FINALIZE) R(ERROR_NULL_INPUT)
	R(ERROR_INCOMPATIBLE_OPTIONS) R(ERROR_INCORRECT_INPUT_TYPE) R(ERROR_ARCH_MISMATCH)
	R(ERROR_OUTDATED_LIBRARY) R(ERROR_MISSING_FATBIN) R(ERROR_UNRECOGNIZED_ARCH)
	R(ERROR_UNSUPPORTED_ARCH) R(ERROR_LTO_NOT_ENABLED)
#undef R
	}
	return "NVJITLINK_ERROR_(unknown)";
}

void kjit__link_free(kjit__link *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->inputs[i].name);
		free(l->inputs[i].data);
	}
	for (size_t i = 0; i < l->n_options; i++)
		free(l->options[i]);
	free(l->inputs);
	free(l->options);
	free(l);
}

/* ---- LTO IR, from the store or from NVRTC ------------------------------ */

/* What a compile to LTO IR is of: a variant of a kernel, or a source
 * link input (no entry point, no parameters). */
typedef struct ir_job {
	const char *signature, *name, *source, *params;
	const char *text;    /* what NVRTC compiles: the source, or a variant's (its defines) */
	const char *program; /* names the source in NVRTC's messages */
	const char *entry;   /* NULL for a library */
	const char *options; /* the canonical option list; opts[n] what NVRTC is handed */
	const char *const *opts;
	size_t n;
	const kjit__header_set *headers;
	kjit__hash128 key;
} ir_job;

/* The LTO IR of w into *out: stored under w->key, else compiled by NVRTC
 * and stored. */
static kjit_status get_ir(kjit_engine *e, const ir_job *w, kjit__compiled *out)
{
	char key[33];
	kjit__hash_hex(w->key, key);
	memset(out, 0, sizeof *out);
	kjit_status st = kjit__store_binary_get(e->store, key, &out->cubin, &out->size,
	                                        &out->lowered, &out->ms);
	if (st == KJIT_OK) {
		kjit__store_binary_touch(e->store, key);
		return KJIT_OK;
	}
	if (st != KJIT_ERR_NOT_FOUND && st != KJIT_ERR_CORRUPT) /* a corrupt one is replaced */
		return st;
	kjit__nvtx_push(KJIT__NVTX_COMPILE, w->name);
	st = kjit__nvrtc_compile(w->text, w->program, w->entry, w->opts, w->n, w->headers, out);
	kjit__nvtx_pop();
	kjit__count_compile(e, st == KJIT_OK ? out->ms : 0);
	if (st != KJIT_OK)
		return st;
	kjit__binary b = {
		.key = key, .signature = w->signature, .kernel_name = w->name, .source = w->source,
		.params = w->params, .options = w->options, .arch = e->arch,
		.nvrtc = kjit_nvrtc_id(), .lowered_name = out->lowered, .cubin = out->cubin,
		.size = out->size, .compile_ms = out->ms,
	};
	if ((st = kjit__store_binary_put(e->store, &b, e->cache_max)) != KJIT_OK)
		kjit__compiled_free(out);
	return st;
}

/* A source link input's LTO IR: the text compiled for the engine's arch
 * with no entry point, keyed like a kernel of that name and source. */
static kjit_status source_ir(kjit_engine *e, link_input *in, const char *text)
{
	char options[64], signature[33];
	int len = snprintf(options, sizeof options, KJIT__LTO_OPTIONS "-arch=%s", e->arch);
	const char *opts[] = { "-dlto", "-rdc=true", options + sizeof KJIT__LTO_OPTIONS - 1 };
	kjit_status st = kjit__signature(in->name, text, "", signature);
	if (st != KJIT_OK)
		return st;
	char *seed_text = kjit__strdup_printf("%s\n%s", signature, kjit_nvrtc_id());
	if (!seed_text)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	kjit__hash128 seed = kjit__hash(seed_text, strlen(seed_text), 0x6b6a6974u);
	free(seed_text);
	ir_job w = { signature, in->name, text, "", text, in->name, NULL, options, opts, 3, NULL,
		     kjit__hash(options, (size_t)len, seed.lo ^ seed.hi) };
	kjit__compiled ir;
	if ((st = get_ir(e, &w, &ir)) != KJIT_OK)
		return st;
	in->data = ir.cubin;
	in->size = ir.size;
	free(ir.lowered);
	return KJIT_OK;
}

/* ---- a kernel's inputs -------------------------------------------------- */

/* Input i of opts copied into *in: its bytes (read from its file, taken
 * from b), its name, and, for a source, its LTO IR. *in is the caller's
 * either way. */
static kjit_status read_input(kjit_engine *e, const kjit_link_input *src, size_t i,
                              kjit__budget *b, link_input *in)
{
	const char *who = src->name ? src->name : src->path ? src->path : "unnamed";
	in->kind = src->kind ? src->kind : kjit__link_kind_of_path(src->path);
	if (src->kind && !kjit__link_kind_known(in->kind))
		return kjit__error(KJIT_ERR_INVALID_ARG, "link input %zu (%s): unknown kind %d (not "
		                   "a kjit_link_kind)", i, who, (int)src->kind);
	if (!in->kind)
		return kjit__error(KJIT_ERR_INVALID_ARG, "link input %zu (%s): no kind, and no file "
		                   "name ending that implies one (.ltoir, .cubin, .fatbin, .o, .a, "
		                   ".ptx, .cu)", i, who);
	in->name = src->name ? strdup(src->name)
	           : src->path ? strdup(src->path) : kjit__strdup_printf("link input %zu", i);
	if (!in->name)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	char *text = NULL;
	size_t len = 0;
	if (src->data) {
		len = src->size ? src->size : strlen(src->data);
		kjit_status bs = kjit__budget_take(b, len, in->name);
		if (bs != KJIT_OK)
			return kjit__error(bs, "link input %zu: %s", i, kjit__error_msg());
		if (!(text = malloc(len + 1)))
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		memcpy(text, src->data, len);
		text[len] = '\0';
	} else if (!src->path) {
		return kjit__error(KJIT_ERR_INVALID_ARG, "link input %zu (%s): neither data nor a "
		                   "path", i, in->name);
	} else {
		size_t max = in->kind == KJIT_LINK_SOURCE ? KJIT__MAX_TEXT_BYTES : KJIT__MAX_LINK_BYTES;
		kjit_status rs = kjit__read_budget(src->path, max, b, &text, &len);
		if (rs != KJIT_OK)
			return kjit__error(rs, "link input %zu (%s): %s", i, in->name,
			                   kjit__error_msg());
	}
	kjit__hash_hex(kjit__hash(text, len, 0), in->hash);
	kjit_status st = KJIT_OK;
	if (len == 0)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "link input %zu (%s): empty (no bytes of %s)",
		                 i, in->name, kjit__link_kind_name(in->kind));
	else if (in->kind == KJIT_LINK_SOURCE && strlen(text) != len)
		st = kjit__error(KJIT_ERR_INVALID_ARG, "link input %zu (%s): a NUL byte in what "
		                 "should be CUDA source text", i, in->name);
	else if (in->kind == KJIT_LINK_SOURCE && (st = source_ir(e, in, text)) != KJIT_OK)
		st = kjit__error(st, "link input %zu (%s): %s", i, in->name, kjit__error_msg());
	if (st != KJIT_OK || in->kind == KJIT_LINK_SOURCE) {
		free(text);
		return st;
	}
	in->data = text;
	in->size = len;
	return KJIT_OK;
}

/* The seed of every link key of l: the nvJitLink identity, the options,
 * and the kind and content of each input, in order (order matters to a
 * link). A source enters by its text, which with the compile key (arch,
 * NVRTC) decides its LTO IR. */
static kjit_status link_seed(kjit__link *l)
{
	kjit__buf b = { 0 };
	kjit__buf_str(&b, kjit__nvjitlink_id());
	for (size_t i = 0; i < l->n_options; i++) {
		kjit__buf_str(&b, "\n");
		kjit__buf_str(&b, l->options[i]);
	}
	for (size_t i = 0; i < l->n; i++) {
		const link_input *in = &l->inputs[i];
		kjit__buf_str(&b, "\n");
		kjit__buf_str(&b, kjit__link_kind_name(in->kind));
		kjit__buf_str(&b, " ");
		kjit__buf_str(&b, in->hash);
	}
	char *text = kjit__buf_done(&b);
	if (!text)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	l->seed = kjit__hash(text, strlen(text), 0x6c696e6bu);
	free(text);
	return KJIT_OK;
}

/* Whether the inputs' sizes, all together, are within b: refused before
 * any is read. A file that cannot be opened is left to read_input(). */
static kjit_status inputs_fit(const kjit_kernel_options *opts, const kjit__budget *b)
{
	kjit__budget sizes = *b;
	for (size_t i = 0; i < opts->n_link; i++) {
		const kjit_link_input *src = &opts->link[i];
		size_t size = 0;
		int fd;
		if (src->data)
			size = src->size ? src->size : strlen(src->data);
		else if (src->path && kjit__open_regular(src->path, &fd, &size) == KJIT_OK)
			close(fd);
		if (size > KJIT__MAX_LINK_BYTES)
			continue; /* refused by its own cap */
		const char *who = src->name ? src->name : src->path ? src->path : "unnamed";
		kjit_status st = kjit__budget_take(&sizes, size, who);
		if (st != KJIT_OK)
			return kjit__error(st, "link input %zu: %s", i, kjit__error_msg());
	}
	return KJIT_OK;
}

kjit_status kjit__link_make(kjit_engine *e, const kjit_kernel_options *opts, kjit__link **out)
{
	*out = NULL;
	if ((opts->n_link && !opts->link) || (opts->n_link_options && !opts->link_options))
		return kjit__error(KJIT_ERR_INVALID_ARG, "kernel options: %zu link inputs and %zu "
		                   "link options announced but an array is NULL", opts->n_link,
		                   opts->n_link_options);
	if (!opts->n_link)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kernel options: %zu link options but no "
		                   "link input", opts->n_link_options);
	if (kjit__arch_is_virtual(e->arch))
		return kjit__error(KJIT_ERR_INVALID_ARG, "link inputs need a real arch (sm_NN) to "
		                   "link a cubin for; the engine's is %s", e->arch);
	for (size_t i = 0; i < opts->n_link_options; i++)
		if (!opts->link_options[i] || !*opts->link_options[i])
			return kjit__error(KJIT_ERR_INVALID_ARG, "link option %zu is empty", i);
	kjit_status st = kjit__options_check(1, opts->link_options, opts->n_link_options,
	                                     "link option");
	if (st != KJIT_OK)
		return st;
	kjit__link *l = calloc(1, sizeof *l);
	if (!l || !(l->inputs = calloc(opts->n_link, sizeof *l->inputs)) ||
	    !(l->options = calloc(opts->n_link_options + 2, sizeof *l->options)) ||
	    !(l->options[0] = kjit__strdup_printf("-arch=%s", e->arch)) ||
	    !(l->options[1] = strdup("-lto"))) {
		kjit__link_free(l);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	for (l->n_options = 2; l->n_options < opts->n_link_options + 2; l->n_options++)
		if (!(l->options[l->n_options] = strdup(opts->link_options[l->n_options - 2]))) {
			kjit__link_free(l);
			return kjit__error(KJIT_ERR_NOMEM, "out of memory");
		}
	/* a file named many times counts each time */
	kjit__budget budget = KJIT__BUDGET(KJIT__MAX_LINK_TOTAL_BYTES, "link inputs");
	st = inputs_fit(opts, &budget);
	for (; st == KJIT_OK && l->n < opts->n_link; l->n++)
		st = read_input(e, &opts->link[l->n], l->n, &budget, &l->inputs[l->n]);
	if (st == KJIT_OK)
		st = link_seed(l);
	if (st != KJIT_OK) {
		kjit__link_free(l);
		return st;
	}
	*out = l;
	return KJIT_OK;
}

kjit__hash128 kjit__link_key(const kjit__link *l, kjit__hash128 compile_key)
{
	uint64_t words[4] = { compile_key.lo, compile_key.hi, l->seed.lo, l->seed.hi };
	return kjit__hash(words, sizeof words, 0x6c696e6bu);
}

/* ---- the link -------------------------------------------------------- */

static void count_link(kjit_engine *e, double ms)
{
	pthread_mutex_lock(&e->lock);
	e->stats.links++;
	e->stats.link_ms_total += ms;
	pthread_mutex_unlock(&e->lock);
}

/* One of nvJitLink's logs, malloc'ed ("" when empty), NULL when it
 * cannot be had. */
static char *get_log(nvJitLinkHandle h, int info)
{
	size_t n = 0;
	if ((info ? nvJitLinkGetInfoLogSize(h, &n) : nvJitLinkGetErrorLogSize(h, &n)) !=
	    NVJITLINK_SUCCESS)
		return NULL;
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	if (n && (info ? nvJitLinkGetInfoLog(h, s) : nvJitLinkGetErrorLog(h, s)) !=
	                 NVJITLINK_SUCCESS) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}

/* The error of a failed nvJitLink call: the inputs, the options, and the
 * error and info logs when there is a handle. */
static kjit_status link_fail(const kjit__link *l, nvJitLinkHandle h, nvJitLinkResult r,
                             const char *call, const char *program)
{
	kjit__buf b = { 0 };
	kjit__buf_str(&b, "the LTO IR of ");
	kjit__buf_str(&b, program);
	for (size_t i = 0; i < l->n; i++) {
		kjit__buf_str(&b, ", ");
		kjit__buf_str(&b, l->inputs[i].name);
		kjit__buf_str(&b, " (");
		kjit__buf_str(&b, kjit__link_kind_name(l->inputs[i].kind));
		kjit__buf_str(&b, ")");
	}
	kjit__buf_str(&b, "; options:");
	for (size_t i = 0; i < l->n_options; i++) {
		kjit__buf_str(&b, " ");
		kjit__buf_str(&b, l->options[i]);
	}
	char *what = kjit__buf_done(&b);
	char *err = h ? get_log(h, 0) : NULL, *info = h ? get_log(h, 1) : NULL;
	kjit_status st = kjit__error(KJIT_ERR_LINK, "nvJitLink failed to link %s: %s: %s\n"
	                             "inputs: %s\nerror log:\n%s\ninfo log:\n%s", program, call,
	                             result_name(r), what ? what : "(out of memory)",
	                             err && *err ? err : "(empty)", info && *info ? info : "(empty)");
	free(what);
	free(err);
	free(info);
	return st;
}

/* Links ir (the variant's LTO IR) with l's inputs into out->cubin. */
static kjit_status link_ir(const kjit__link *l, const kjit__compiled *ir, const char *program,
                           kjit__compiled *out)
{
	nvJitLinkHandle h = NULL;
	const char *call = "nvJitLinkCreate";
	nvJitLinkResult r = nvJitLinkCreate(&h, (uint32_t)l->n_options, (const char **)l->options);
	if (r != NVJITLINK_SUCCESS) {
		/* a create that fails may still hand back a handle, with the log
		 * of the option it refused */
		kjit_status st = link_fail(l, h, r, call, program);
		if (h)
			(void)nvJitLinkDestroy(&h); /* the failure above is the one to report */
		return st;
	}
	call = "nvJitLinkAddData";
	r = nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir->cubin, ir->size, program);
	for (size_t i = 0; r == NVJITLINK_SUCCESS && i < l->n; i++)
		r = nvJitLinkAddData(h, (nvJitLinkInputType)kjit__link_kind_input(l->inputs[i].kind), l->inputs[i].data,
		                     l->inputs[i].size, l->inputs[i].name);
	if (r == NVJITLINK_SUCCESS && (r = nvJitLinkComplete(h)) != NVJITLINK_SUCCESS)
		call = "nvJitLinkComplete";
	if (r == NVJITLINK_SUCCESS &&
	    (r = nvJitLinkGetLinkedCubinSize(h, &out->size)) != NVJITLINK_SUCCESS)
		call = "nvJitLinkGetLinkedCubinSize";
	kjit_status st = KJIT_OK;
	if (r == NVJITLINK_SUCCESS && !(out->cubin = malloc(out->size ? out->size : 1)))
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
	if (st == KJIT_OK && r == NVJITLINK_SUCCESS &&
	    (r = nvJitLinkGetLinkedCubin(h, out->cubin)) != NVJITLINK_SUCCESS)
		call = "nvJitLinkGetLinkedCubin";
	if (r != NVJITLINK_SUCCESS)
		st = link_fail(l, h, r, call, program);
	if ((r = nvJitLinkDestroy(&h)) != NVJITLINK_SUCCESS && st == KJIT_OK)
		st = link_fail(l, NULL, r, "nvJitLinkDestroy", program);
	return st;
}

kjit_status kjit__link_build(kjit_kernel *k, kjit__hash128 compile_key, const char *text,
                             const char *options, const char *const *opts, size_t n,
                             const kjit__header_set *headers, kjit__compiled *out)
{
	kjit_engine *e = k->engine;
	const char *program = k->file;
	memset(out, 0, sizeof *out);
	ir_job w = { k->signature, k->name, k->source, k->params, text, program, k->name,
		     options, opts, n, headers, compile_key };
	kjit__compiled ir;
	kjit_status st = get_ir(e, &w, &ir);
	if (st != KJIT_OK)
		return st;
	uint64_t t0 = kjit__now_ns();
	kjit__nvtx_push(KJIT__NVTX_COMPILE, k->name);
	st = link_ir(k->link, &ir, program, out);
	kjit__nvtx_pop();
	double ms = (double)(kjit__now_ns() - t0) * 1e-6;
	count_link(e, ms);
	if (st == KJIT_OK) {
		out->lowered = ir.lowered; /* the entry's name is NVRTC's, from the compile */
		out->ms = ir.ms + ms;
		ir.lowered = NULL;
	} else {
		kjit__compiled_free(out);
	}
	kjit__compiled_free(&ir);
	return st;
}
