/*
 * nvtx.c - NVTX ranges in the domain "kjit": compile, cache lookup (its
 * result as a mark inside it), module load, tuning run and variant
 * evaluation, each kind its own category and colour, so that an Nsight
 * Systems timeline shows them.
 *
 * NVTX3 is header-only: every call goes through a function pointer that
 * the first call fills in, from the injection library a tool names in
 * $NVTX_INJECTION64_PATH, or with nothing when no tool is attached. The
 * domain is created and the kind names registered once, lazily, on the
 * first kjit__nvtx_* call; when no tool is attached nvtxDomainCreateA
 * returns NULL and every later call stops at that pointer test, before
 * any message is built.
 */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>

#include "instr.h"

/* Longest range name: "<kind name> <detail>", truncated beyond this. */
#define NVTX_NAME_MAX 512

/* Indexed by kjit__nvtx_kind, which is also the category id (NVTX
 * category 0 means "none", and the kinds start at 1). Colours are ARGB,
 * opaque, from the Okabe-Ito palette (tell-apart for colour-blind eyes). */
static const struct {
	const char *name;
	uint32_t argb;
} nvtx_kinds[KJIT__NVTX_KIND_COUNT] = {
	[KJIT__NVTX_COMPILE] = { "compile", 0xFF0072B2u },   /* blue */
	[KJIT__NVTX_LOOKUP] = { "lookup", 0xFF009E73u },     /* bluish green */
	[KJIT__NVTX_LOAD] = { "load", 0xFFE69F00u },         /* orange */
	[KJIT__NVTX_TUNE] = { "tune", 0xFFCC79A7u },         /* reddish purple */
	[KJIT__NVTX_EVALUATE] = { "evaluate", 0xFFD55E00u }, /* vermillion */
};

static pthread_once_t nvtx_once = PTHREAD_ONCE_INIT;
/* Written once under nvtx_once, read-only afterwards. NULL: no tool. */
static nvtxDomainHandle_t nvtx_domain;
static nvtxStringHandle_t nvtx_names[KJIT__NVTX_KIND_COUNT];

static void nvtx_init(void)
{
	/* The first NVTX call of this library: NVTX looks for a tool here. */
	nvtxDomainHandle_t domain = nvtxDomainCreateA("kjit");
	if (!domain)
		return;
	for (int k = KJIT__NVTX_COMPILE; k < KJIT__NVTX_KIND_COUNT; k++) {
		nvtxDomainNameCategoryA(domain, (uint32_t)k, nvtx_kinds[k].name);
		nvtx_names[k] = nvtxDomainRegisterStringA(domain, nvtx_kinds[k].name);
	}
	nvtx_domain = domain;
}

/* The domain, or NULL when no tool is attached. */
static inline nvtxDomainHandle_t nvtx_get_domain(void)
{
	pthread_once(&nvtx_once, nvtx_init);
	return nvtx_domain;
}

static inline int nvtx_kind_ok(kjit__nvtx_kind kind)
{
	return kind >= KJIT__NVTX_COMPILE && kind < KJIT__NVTX_KIND_COUNT;
}

/* Category and colour of kind; the message is left to the caller. An
 * unknown kind gets neither (the range still pushes, so pops match). */
static void nvtx_attributes(nvtxEventAttributes_t *a, kjit__nvtx_kind kind)
{
	memset(a, 0, sizeof *a);
	a->version = NVTX_VERSION;
	a->size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	if (nvtx_kind_ok(kind)) {
		a->category = (uint32_t)kind;
		a->colorType = NVTX_COLOR_ARGB;
		a->color = nvtx_kinds[kind].argb;
	}
}

/* The registered name of kind when detail is NULL, else "<kind name>
 * <detail>" in buf[size], cut at a character boundary with "..." when too
 * long. */
static void nvtx_message(nvtxEventAttributes_t *a, kjit__nvtx_kind kind, const char *detail,
                         char *buf, size_t size)
{
	const char *name = nvtx_kind_ok(kind) ? nvtx_kinds[kind].name : "kjit";
	if (!detail && nvtx_kind_ok(kind) && nvtx_names[kind]) {
		a->messageType = NVTX_MESSAGE_TYPE_REGISTERED;
		a->message.registered = nvtx_names[kind];
		return;
	}
	a->messageType = NVTX_MESSAGE_TYPE_ASCII;
	if (!detail) {
		a->message.ascii = name;
		return;
	}
	int n = snprintf(buf, size, "%s %s", name, detail);
	if (n < 0) {
		a->message.ascii = name;
		return;
	}
	if ((size_t)n >= size) {
		/* Room for "..." and the NUL; do not split a UTF-8 sequence. */
		size_t end = size - 4;
		while (end > 0 && ((unsigned char)buf[end] & 0xC0) == 0x80)
			end--;
		memcpy(buf + end, "...", 4);
	}
	a->message.ascii = buf;
}

void kjit__nvtx_push(kjit__nvtx_kind kind, const char *detail)
{
	nvtxDomainHandle_t domain = nvtx_get_domain();
	if (!domain)
		return;
	nvtxEventAttributes_t a;
	char buf[NVTX_NAME_MAX];
	nvtx_attributes(&a, kind);
	nvtx_message(&a, kind, detail, buf, sizeof buf);
	nvtxDomainRangePushEx(domain, &a);
}

void kjit__nvtx_pop(void)
{
	nvtxDomainHandle_t domain = nvtx_get_domain();
	if (!domain)
		return;
	nvtxDomainRangePop(domain);
}

void kjit__nvtx_mark(kjit__nvtx_kind kind, const char *message)
{
	nvtxDomainHandle_t domain = nvtx_get_domain();
	if (!domain)
		return;
	nvtxEventAttributes_t a;
	nvtx_attributes(&a, kind);
	if (message) {
		a.messageType = NVTX_MESSAGE_TYPE_ASCII;
		a.message.ascii = message;
	} else {
		nvtx_message(&a, kind, NULL, NULL, 0);
	}
	nvtxDomainMarkEx(domain, &a);
}
