/*
 * options.c - the NVRTC and nvJitLink options a kernel may carry: one
 * allowlist of those that only change the code produced, from the option
 * lists of nvrtc.h and nvJitLink.h (CUDA 13.0). Anything else is refused:
 * options that write files (--time, --create-pch, --fdevice-time-trace),
 * read files outside the binary key (-include, --use-pch), change what the
 * compiler hands back (-dlto, -optix-ir), take threads (--split-compile)
 * or touch the process (--modify-stack-limit), and any option this list
 * does not know. The C API, the spec readers and kjit-tune all ask here.
 */
#include "config.h"

#include <string.h>

#include "engine.h"

_Static_assert(KJIT__MAX_OPTION_BYTES == 4096, "the messages below say 4096");

enum {
	FLAG,     /* no value */
	VALUE,    /* NAME=VALUE, or NAME then VALUE as the next option */
	ATTACHED, /* -DVALUE, -D=VALUE, -D VALUE, or -D then VALUE */
	EQUALS,   /* NAME=VALUE only (nvJitLink; NVRTC 13 reads no separate value for some) */
	DIGITS,   /* NAME followed by digits (nvJitLink's -O3) */
	REFUSED,  /* known, and refused for the reason given */
};

typedef struct option {
	const char *name;
	unsigned char kind;
	const char *why; /* REFUSED: the reason */
} option;

#define ARCH_WHY "the engine sets -arch (open the engine with the arch you want)"
#define INCLUDE_WHY "give include folders as include_dirs (kernel.include_dirs in a spec), " \
	"whose headers enter the binary key"
#define LINK_WHY "the engine sets it for a kernel with link inputs"
#define WRITES_WHY "it makes the compiler write a file"
#define PCH_WHY "precompiled headers are files outside the binary key"

static const option nvrtc[] = {
	/* refused with a reason: the engine's own, and those with effects
	 * beyond the code produced */
	{ "--gpu-architecture", REFUSED, ARCH_WHY }, { "-arch", REFUSED, ARCH_WHY },
	{ "--include-path", REFUSED, INCLUDE_WHY }, { "-I", REFUSED, INCLUDE_WHY },
	{ "--pre-include", REFUSED, INCLUDE_WHY }, { "-include", REFUSED, INCLUDE_WHY },
	{ "--dlink-time-opt", REFUSED, LINK_WHY }, { "-dlto", REFUSED, LINK_WHY },
	{ "--relocatable-device-code", REFUSED, LINK_WHY }, { "-rdc", REFUSED, LINK_WHY },
	{ "--device-c", REFUSED, LINK_WHY }, { "-dc", REFUSED, LINK_WHY },
	{ "--device-w", REFUSED, LINK_WHY }, { "-dw", REFUSED, LINK_WHY },
	{ "--optix-ir", REFUSED, "the engine loads cubins and PTX, not OptiX IR" },
	{ "-optix-ir", REFUSED, "the engine loads cubins and PTX, not OptiX IR" },
	{ "--fdevice-syntax-only", REFUSED, "it produces no device code" },
	{ "-fdevice-syntax-only", REFUSED, "it produces no device code" },
	{ "--time", REFUSED, WRITES_WHY }, { "-time", REFUSED, WRITES_WHY },
	{ "--fdevice-time-trace", REFUSED, WRITES_WHY },
	{ "-fdevice-time-trace", REFUSED, WRITES_WHY },
	{ "--pch", REFUSED, PCH_WHY }, { "-pch", REFUSED, PCH_WHY },
	{ "--create-pch", REFUSED, PCH_WHY }, { "-create-pch", REFUSED, PCH_WHY },
	{ "--use-pch", REFUSED, PCH_WHY }, { "-use-pch", REFUSED, PCH_WHY },
	{ "--pch-dir", REFUSED, PCH_WHY }, { "-pch-dir", REFUSED, PCH_WHY },
	{ "--split-compile", REFUSED, "the compile pool decides the threads" },
	{ "-split-compile", REFUSED, "the compile pool decides the threads" },
	{ "--modify-stack-limit", REFUSED, "it changes the stack limit of the whole process" },
	{ "-modify-stack-limit", REFUSED, "it changes the stack limit of the whole process" },
	{ "--ptxas-options", REFUSED, "ptxas's own options are not checked" },
	{ "-Xptxas", REFUSED, "ptxas's own options are not checked" },
	/* code generation */
	{ "--extensible-whole-program", FLAG, NULL }, { "-ewp", FLAG, NULL },
	{ "--device-debug", FLAG, NULL }, { "-G", FLAG, NULL },
	{ "--generate-line-info", FLAG, NULL }, { "-lineinfo", FLAG, NULL },
	{ "--dopt", VALUE, NULL }, { "-dopt", VALUE, NULL },
	{ "--Ofast-compile", VALUE, NULL }, { "-Ofc", VALUE, NULL },
	{ "--maxrregcount", VALUE, NULL }, { "-maxrregcount", VALUE, NULL },
	{ "--ftz", VALUE, NULL }, { "-ftz", VALUE, NULL },
	{ "--prec-sqrt", VALUE, NULL }, { "-prec-sqrt", VALUE, NULL },
	{ "--prec-div", VALUE, NULL }, { "-prec-div", VALUE, NULL },
	{ "--fmad", VALUE, NULL }, { "-fmad", VALUE, NULL },
	{ "--use_fast_math", FLAG, NULL }, { "-use_fast_math", FLAG, NULL },
	{ "--extra-device-vectorization", FLAG, NULL }, { "-extra-device-vectorization", FLAG, NULL },
	{ "--gen-opt-lto", FLAG, NULL }, { "-gen-opt-lto", FLAG, NULL },
	{ "--jump-table-density", VALUE, NULL }, { "-jtd", VALUE, NULL },
	{ "--device-stack-protector", VALUE, NULL }, { "-device-stack-protector", VALUE, NULL },
	{ "--no-cache", FLAG, NULL }, { "-no-cache", FLAG, NULL },
	{ "--frandom-seed", EQUALS, NULL }, { "-frandom-seed", EQUALS, NULL },
	/* preprocessing and dialect */
	{ "--define-macro", VALUE, NULL }, { "-D", ATTACHED, NULL },
	{ "--undefine-macro", VALUE, NULL }, { "-U", ATTACHED, NULL },
	{ "--no-source-include", FLAG, NULL }, { "-no-source-include", FLAG, NULL },
	{ "--std", EQUALS, NULL }, { "-std", EQUALS, NULL },
	{ "--builtin-move-forward", VALUE, NULL }, { "-builtin-move-forward", VALUE, NULL },
	{ "--builtin-initializer-list", VALUE, NULL },
	{ "-builtin-initializer-list", VALUE, NULL },
	{ "--minimal", FLAG, NULL }, { "-minimal", FLAG, NULL },
	/* language and diagnostics */
	{ "--disable-warnings", FLAG, NULL }, { "-w", FLAG, NULL },
	{ "--restrict", FLAG, NULL }, { "-restrict", FLAG, NULL },
	{ "--device-as-default-execution-space", FLAG, NULL }, { "-default-device", FLAG, NULL },
	{ "--device-int128", FLAG, NULL }, { "-device-int128", FLAG, NULL },
	{ "--device-float128", FLAG, NULL }, { "-device-float128", FLAG, NULL },
	{ "--optimization-info", EQUALS, NULL }, { "-opt-info", EQUALS, NULL },
	{ "--display-error-number", FLAG, NULL }, { "-err-no", FLAG, NULL },
	{ "--no-display-error-number", FLAG, NULL }, { "-no-err-no", FLAG, NULL },
	{ "--diag-error", VALUE, NULL }, { "-diag-error", VALUE, NULL },
	{ "--diag-suppress", VALUE, NULL }, { "-diag-suppress", VALUE, NULL },
	{ "--diag-warn", VALUE, NULL }, { "-diag-warn", VALUE, NULL },
	{ "--brief-diagnostics", VALUE, NULL }, { "-brief-diag", VALUE, NULL },
	{ NULL, 0, NULL },
};

static const option nvjitlink[] = {
	{ "-arch", REFUSED, ARCH_WHY },
	{ "-lto", REFUSED, "the engine sets it" },
	{ "-ptx", REFUSED, "the engine links a cubin" },
	{ "-time", REFUSED, "timing is the engine's to take" },
	{ "-Xptxas", REFUSED, "ptxas's own options are not checked" },
	{ "-split-compile", REFUSED, "the compile pool decides the threads" },
	{ "-split-compile-extended", REFUSED, "the compile pool decides the threads" },
	{ "-maxrregcount", EQUALS, NULL },
	{ "-verbose", FLAG, NULL },
	{ "-O", DIGITS, NULL },
	{ "-g", FLAG, NULL },
	{ "-lineinfo", FLAG, NULL },
	{ "-ftz", EQUALS, NULL },
	{ "-prec-div", EQUALS, NULL },
	{ "-prec-sqrt", EQUALS, NULL },
	{ "-fma", EQUALS, NULL },
	{ "-kernels-used", EQUALS, NULL },
	{ "-variables-used", EQUALS, NULL },
	{ "-optimize-unused-variables", FLAG, NULL },
	{ "-jump-table-density", EQUALS, NULL },
	{ "-no-cache", FLAG, NULL },
	{ "-device-stack-protector", FLAG, NULL },
	{ NULL, 0, NULL },
};

/* The entry that opt spells, and where its value starts (NULL: none
 * written in opt): NAME, NAME=VALUE, or for ATTACHED and DIGITS the name
 * followed by its value. A full name wins over an attached one, so that
 * -default-device is not -D efault-device. */
static const option *find(const option *table, const char *opt, const char **value)
{
	const option *attached = NULL;
	for (const option *o = table; o->name; o++) {
		size_t n = strlen(o->name);
		if (strncmp(opt, o->name, n) != 0)
			continue;
		if (opt[n] == '\0' || opt[n] == '=') {
			*value = opt[n] ? opt + n + 1 : NULL;
			return o;
		}
		if (o->kind == ATTACHED || o->kind == DIGITS || (o->kind == REFUSED && n == 2))
			attached = o;
	}
	if (attached)
		*value = opt + strlen(attached->name);
	return attached;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

const char *kjit__option_refusal(int link, const char *const *opts, size_t n, size_t *used)
{
	const char *opt = opts[0], *value = NULL;
	*used = 1;
	if (strlen(opt) > KJIT__MAX_OPTION_BYTES)
		return "longer than 4096 bytes";
	const option *o = find(link ? nvjitlink : nvrtc, opt, &value);
	if (!o)
		return link ? "not an nvJitLink option kjit allows (kjit-spec(5), SECURITY)"
		            : "not an NVRTC option kjit allows (kjit-spec(5), SECURITY)";
	switch (o->kind) {
	case REFUSED:
		return o->why;
	case FLAG:
		return value ? "takes no value" : NULL;
	case DIGITS:
		return all_digits(opt + strlen(o->name)) ? NULL : "takes digits (-O3)";
	case EQUALS:
		return value && *value ? NULL : "takes a value after '='";
	case ATTACHED:
		if (!value)
			break;
		while (*value == ' ' || *value == '=')
			value++;
		return *value ? NULL : "takes a value";
	default:
		if (value)
			return *value ? NULL : "takes a value after '='";
	}
	/* The value as the next option: never one that starts with '-', which
	 * NVRTC could read as an option of its own. */
	if (n < 2 || !opts[1][0])
		return "takes a value";
	if (opts[1][0] == '-')
		return "takes a value, not an option after it";
	if (strlen(opts[1]) > KJIT__MAX_OPTION_BYTES)
		return "has a value longer than 4096 bytes";
	*used = 2;
	return NULL;
}

kjit_status kjit__options_check(int link, const char *const *opts, size_t n, const char *what)
{
	for (size_t i = 0, used; i < n; i += used) {
		const char *why = kjit__option_refusal(link, opts + i, n - i, &used);
		if (why)
			return kjit__error(KJIT_ERR_INVALID_ARG, "%s %zu ('%.160s%s'): %s", what, i,
			                   opts[i], strlen(opts[i]) > 160 ? "..." : "", why);
	}
	return KJIT_OK;
}
