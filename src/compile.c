/* compile.c - one NVRTC compilation to a cubin, to PTX for a virtual
 * arch or to LTO IR under -dlto; the architectures NVRTC knows. */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nvrtc.h>

#include "engine.h"

static char nvrtc_id[96];
static pthread_once_t nvrtc_id_once = PTHREAD_ONCE_INIT;

void kjit__library_id(char *out, size_t cap, const char *name, int major, int minor,
                      const void *symbol)
{
	long long size = -1;
	Dl_info info;
	struct stat st;
	if (dladdr(symbol, &info) && info.dli_fname && stat(info.dli_fname, &st) == 0)
		size = (long long)st.st_size;
	snprintf(out, cap, "%s-%d.%d+%lld", name, major, minor, size);
}

/* NVRTC reports only major.minor: its library's size stands for its build. */
static void make_nvrtc_id(void)
{
	int major = 0, minor = 0;
	if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
		major = minor = -1;
	kjit__library_id(nvrtc_id, sizeof nvrtc_id, "nvrtc", major, minor, (const void *)nvrtcVersion);
}

const char *kjit_nvrtc_id(void)
{
	pthread_once(&nvrtc_id_once, make_nvrtc_id);
	return nvrtc_id;
}

static int archs[64];
static size_t n_archs;
static kjit_status archs_status;
static pthread_once_t archs_once = PTHREAD_ONCE_INIT;

static void read_archs(void)
{
	int n = 0;
	nvrtcResult r = nvrtcGetNumSupportedArchs(&n);
	if (r == NVRTC_SUCCESS && (n <= 0 || (size_t)n > sizeof archs / sizeof archs[0]))
		r = NVRTC_ERROR_INTERNAL_ERROR;
	if (r == NVRTC_SUCCESS)
		r = nvrtcGetSupportedArchs(archs);
	if (r != NVRTC_SUCCESS) {
		archs_status = KJIT_ERR_NVRTC;
		return;
	}
	n_archs = (size_t)n;
}

kjit_status kjit__nvrtc_archs(const int **out, size_t *n)
{
	pthread_once(&archs_once, read_archs);
	*out = archs;
	*n = n_archs;
	return archs_status == KJIT_OK
		? KJIT_OK
		: kjit__error(archs_status, "nvrtcGetSupportedArchs failed: NVRTC %s does not say "
		              "which architectures it compiles for", kjit_nvrtc_id());
}

void kjit__compiled_free(kjit__compiled *c)
{
	free(c->cubin);
	free(c->lowered);
	memset(c, 0, sizeof *c);
}

static kjit_status nvrtc_fail(nvrtcResult r, const char *what, const char *program)
{
	return kjit__error(KJIT_ERR_NVRTC, "%s for %s: %s", what, program, nvrtcGetErrorString(r));
}

/* What NVRTC hands back: LTO IR under -dlto, PTX for a virtual arch (its
 * size counts the terminating NUL, which is kept), else the cubin. */
typedef struct output {
	const char *what, *size_fn, *get_fn;
	nvrtcResult (*size)(nvrtcProgram, size_t *);
	nvrtcResult (*get)(nvrtcProgram, char *);
} output;

static const output outputs[] = {
	{ "cubin", "nvrtcGetCUBINSize", "nvrtcGetCUBIN", nvrtcGetCUBINSize, nvrtcGetCUBIN },
	{ "PTX", "nvrtcGetPTXSize", "nvrtcGetPTX", nvrtcGetPTXSize, nvrtcGetPTX },
	{ "LTO IR", "nvrtcGetLTOIRSize", "nvrtcGetLTOIR", nvrtcGetLTOIRSize, nvrtcGetLTOIR },
};

int kjit__arch_is_virtual(const char *arch)
{
	return strncmp(arch, "compute_", 8) == 0;
}

/* The output of an option list: LTO IR with -dlto, else PTX when its
 * -arch is a virtual one. */
static const output *output_of(const char *const *opts, size_t n_opts)
{
	for (size_t i = 0; i < n_opts; i++)
		if (strcmp(opts[i], "-dlto") == 0 || strcmp(opts[i], "--dlink-time-opt") == 0)
			return &outputs[2];
	for (size_t i = n_opts; i-- > 0;)
		if (strncmp(opts[i], "-arch=", 6) == 0)
			return &outputs[kjit__arch_is_virtual(opts[i] + 6)];
	return &outputs[0];
}

/* 1 when every error of an NVRTC log is in its __nv_name_map (and there
 * is one): the name expression names nothing in a source that compiles. */
static int only_name_map_errors(const char *log)
{
	int any = 0;
	for (const char *line = log; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *err = memmem(line, len, " error: ", 8);
		if (err) {
			if (strncmp(line, "__nv_name_map(", 14) != 0)
				return 0;
			any = 1;
		}
		line += len + (end != NULL);
	}
	return any;
}

kjit_status kjit__nvrtc_compile(const char *source, const char *program_name,
                                const char *name_expr, const char *const *opts, size_t n_opts,
                                const kjit__header_set *headers, kjit__compiled *out)
{
	memset(out, 0, sizeof *out);
	if (headers && headers->n > INT_MAX)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: %zu headers, NVRTC takes at most %d",
		                   program_name, headers->n, INT_MAX);
	uint64_t t0 = kjit__now_ns();
	nvrtcProgram prog;
	nvrtcResult r = nvrtcCreateProgram(&prog, source, program_name,
	                                   headers ? (int)headers->n : 0,
	                                   headers ? (const char **)headers->texts : NULL,
	                                   headers ? (const char **)headers->names : NULL);
	if (r != NVRTC_SUCCESS)
		return nvrtc_fail(r, "nvrtcCreateProgram", program_name);
	kjit_status st = KJIT_OK;
	if (name_expr && (r = nvrtcAddNameExpression(prog, name_expr)) != NVRTC_SUCCESS) {
		st = nvrtc_fail(r, "nvrtcAddNameExpression", name_expr);
		goto out;
	}
	nvrtcResult cr = nvrtcCompileProgram(prog, (int)n_opts, opts);
	if (cr != NVRTC_SUCCESS) {
		size_t log_size = 0;
		char *log = NULL;
		if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0 &&
		    (log = malloc(log_size)) && nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
			log[0] = '\0';
		char *opt_text = NULL;
		size_t opt_len = 0;
		FILE *f = open_memstream(&opt_text, &opt_len);
		if (f) {
			for (size_t i = 0; i < n_opts; i++)
				fprintf(f, "%s%s", i ? " " : "", opts[i]);
			fclose(f);
		}
		/* A name expression that names nothing fails inside NVRTC's own
		 * __nv_name_map, once per line of it: say it once, as it is. A
		 * source that fails to compile fails there too: its log, whole. */
		if (log && only_name_map_errors(log))
			st = kjit__error(KJIT_ERR_COMPILE, "entry point '%s' not found in %s: no "
			                 "__global__ function of that name (options: %s)", name_expr,
			                 program_name, opt_text ? opt_text : "");
		else
			st = kjit__error(cr == NVRTC_ERROR_COMPILATION ? KJIT_ERR_COMPILE
			                                                : KJIT_ERR_NVRTC,
			                 "NVRTC failed to compile %s (%s) with options: %s\n%s",
			                 program_name, nvrtcGetErrorString(cr), opt_text ? opt_text : "",
			                 log && *log ? log : "(NVRTC gave no log)");
		free(opt_text);
		free(log);
		goto out;
	}
	const char *lowered = "";
	if (name_expr &&
	    ((r = nvrtcGetLoweredName(prog, name_expr, &lowered)) != NVRTC_SUCCESS || !lowered)) {
		st = kjit__error(KJIT_ERR_COMPILE, "entry point '%s' not found in %s: declare it "
		                 "__global__ (extern \"C\" or a C++ name expression)", name_expr,
		                 program_name);
		goto out;
	}
	const output *o = output_of(opts, n_opts);
	if ((r = o->size(prog, &out->size)) != NVRTC_SUCCESS) {
		st = nvrtc_fail(r, o->size_fn, program_name);
		goto out;
	}
	if (out->size == 0) {
		st = kjit__error(KJIT_ERR_NVRTC, "NVRTC produced no %s for %s", o->what,
		                 program_name);
		goto out;
	}
	out->cubin = malloc(out->size);
	out->lowered = strdup(lowered);
	if (!out->cubin || !out->lowered) {
		st = kjit__error(KJIT_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((r = o->get(prog, out->cubin)) != NVRTC_SUCCESS) {
		st = nvrtc_fail(r, o->get_fn, program_name);
		goto out;
	}
out:
	nvrtcDestroyProgram(&prog);
	if (st != KJIT_OK)
		kjit__compiled_free(out);
	else
		out->ms = (double)(kjit__now_ns() - t0) * 1e-6;
	return st;
}
