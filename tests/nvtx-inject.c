/*
 * nvtx-inject.c - a small NVTX injection library for test-nvtx, built as
 * tests/libnvtx-inject.so (a plain shared object, see tests/nvtx.mk).
 *
 * A program that uses the NVTX3 headers loads the library named by
 * $NVTX_INJECTION64_PATH on its first NVTX call and calls its
 * InitializeInjectionNvtx2 with the program's export table getter. From
 * the NVTX_ETID_CALLBACKS table we get the program's function pointer
 * tables of the CORE and CORE2 modules (arrays, indexed by callback id, of
 * pointers to the program's own NVTX function pointers) and point the
 * slots we care about at the functions below. Every call is then written
 * as one line to the file named by $KJIT_NVTX_LOG (stderr when unset):
 *
 *   domain  <domain id> <name>
 *   category <domain id> <category> <name>
 *   string  <domain id> <string id> <text>
 *   push    <thread> <domain id> <level> <category> <colour> <msgtype> <message>
 *   pop     <thread> <domain id> <level>
 *   mark    <thread> <domain id> <level> <category> <colour> <msgtype> <message>
 *
 * fields separated by one tab. Domain id 0 is NVTX's default domain (a
 * NULL handle, or the non-domain API); others count from 1 in creation
 * order. <thread> counts threads from 1 in the order of their first
 * event. <level> is the calling thread's push depth in that domain before
 * a push or a mark and after a pop (-1: a pop with nothing pushed).
 * <colour> is "0xAARRGGBB" or "none"; <msgtype> is "ascii", "registered"
 * (the message is the registered string's text), "unicode" or "none".
 * Tabs and newlines in messages are written as spaces.
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Types and callback ids only: the tool side implements, never calls. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

/* The entry point NVTX looks up with dlsym. */
__attribute__((visibility("default"))) int NVTX_API
InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table);

/* What the opaque handles point to. */
struct nvtxDomainRegistration_st {
	int id;
	char name[128];
};

struct nvtxStringRegistration_st {
	int id;
	int domain;
	char *text;
};

#define MAX_DOMAINS 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* guards out, ids */
static FILE *out;
static int n_strings;
static struct nvtxDomainRegistration_st domains[MAX_DOMAINS];
static int n_domains;
static atomic_int n_threads;

/* Per thread: its number, and its push depth per domain id. */
static _Thread_local int thread_no;
static _Thread_local int depth[MAX_DOMAINS + 1];

static int this_thread(void)
{
	if (!thread_no)
		thread_no = atomic_fetch_add(&n_threads, 1) + 1;
	return thread_no;
}

static int domain_id(nvtxDomainHandle_t d)
{
	return d ? d->id : 0;
}

/* s with tabs and newlines as spaces, into buf[size]. */
static const char *clean(const char *s, char *buf, size_t size)
{
	size_t i = 0;
	for (; s[i] && i + 1 < size; i++)
		buf[i] = (s[i] == '\t' || s[i] == '\n' || s[i] == '\r') ? ' ' : s[i];
	buf[i] = '\0';
	return buf;
}

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void emit(const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&lock);
	FILE *f = out ? out : stderr;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fflush(f);
	pthread_mutex_unlock(&lock);
}

/* Writes one push or mark line. */
static void event(const char *what, nvtxDomainHandle_t d, int level,
                  const nvtxEventAttributes_t *a)
{
	char colour[16] = "none", text[2048];
	const char *type = "none", *msg = "";
	uint32_t category = 0;
	if (a) {
		category = a->category;
		if (a->colorType == NVTX_COLOR_ARGB)
			snprintf(colour, sizeof colour, "0x%08X", (unsigned)a->color);
		switch (a->messageType) {
		case NVTX_MESSAGE_TYPE_ASCII:
			type = "ascii";
			msg = a->message.ascii ? a->message.ascii : "";
			break;
		case NVTX_MESSAGE_TYPE_REGISTERED:
			type = "registered";
			msg = a->message.registered && a->message.registered->text
			              ? a->message.registered->text
			              : "";
			break;
		case NVTX_MESSAGE_TYPE_UNICODE:
			type = "unicode";
			if (a->message.unicode &&
			    wcstombs(text, a->message.unicode, sizeof text) < sizeof text)
				msg = text;
			break;
		default:
			break;
		}
	}
	char shown[2048];
	emit("%s\t%d\t%d\t%d\t%u\t%s\t%s\t%s\n", what, this_thread(), domain_id(d), level,
	     (unsigned)category, colour, type, clean(msg, shown, sizeof shown));
}

/* ---- CORE2: the domain API ---------------------------------------------- */

static int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	int *level = &depth[domain_id(d)];
	event("push", d, *level, a);
	return (*level)++;
}

static int NVTX_API domain_pop(nvtxDomainHandle_t d)
{
	int *level = &depth[domain_id(d)];
	int ended = *level > 0 ? --*level : -1;
	emit("pop\t%d\t%d\t%d\n", this_thread(), domain_id(d), ended);
	return ended;
}

static void NVTX_API domain_mark(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	event("mark", d, depth[domain_id(d)], a);
}

static nvtxDomainHandle_t NVTX_API domain_create(const char *name)
{
	nvtxDomainHandle_t d = NULL;
	char shown[128];
	pthread_mutex_lock(&lock);
	if (n_domains < MAX_DOMAINS) {
		d = &domains[n_domains];
		d->id = ++n_domains;
		snprintf(d->name, sizeof d->name, "%s", name ? name : "");
	}
	pthread_mutex_unlock(&lock);
	if (d)
		emit("domain\t%d\t%s\n", d->id, clean(d->name, shown, sizeof shown));
	return d;
}

static void NVTX_API domain_destroy(nvtxDomainHandle_t d)
{
	emit("destroy\t%d\n", domain_id(d));
}

static void NVTX_API domain_name_category(nvtxDomainHandle_t d, uint32_t category,
                                          const char *name)
{
	char shown[256];
	emit("category\t%d\t%u\t%s\n", domain_id(d), (unsigned)category,
	     clean(name ? name : "", shown, sizeof shown));
}

static nvtxStringHandle_t NVTX_API domain_register_string(nvtxDomainHandle_t d, const char *s)
{
	struct nvtxStringRegistration_st *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->text = strdup(s ? s : "");
	if (!r->text) {
		free(r);
		return NULL;
	}
	r->domain = domain_id(d);
	pthread_mutex_lock(&lock);
	r->id = ++n_strings;
	pthread_mutex_unlock(&lock);
	char shown[256];
	emit("string\t%d\t%d\t%s\n", r->domain, r->id, clean(r->text, shown, sizeof shown));
	return r; /* kept for the life of the process, as NVTX expects */
}

/* ---- CORE: the non-domain API, so that stray calls show up too ---------- */

static int NVTX_API core_push_ex(const nvtxEventAttributes_t *a)
{
	return domain_push(NULL, a);
}

static int NVTX_API core_push_a(const char *message)
{
	nvtxEventAttributes_t a;
	memset(&a, 0, sizeof a);
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = message;
	return domain_push(NULL, &a);
}

static int NVTX_API core_pop(void)
{
	return domain_pop(NULL);
}

static void NVTX_API core_mark_ex(const nvtxEventAttributes_t *a)
{
	domain_mark(NULL, a);
}

static void NVTX_API core_mark_a(const char *message)
{
	nvtxEventAttributes_t a;
	memset(&a, 0, sizeof a);
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = message;
	domain_mark(NULL, &a);
}

/* ---- attaching ------------------------------------------------------------- */

/* Points slot id of module's table at fn; 0 when the program's NVTX has
 * no such slot. */
static int hook(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module, unsigned id,
                NvtxFunctionPointer fn)
{
	NvtxFunctionTable table = NULL;
	unsigned size = 0;
	if (!cb->GetModuleFunctionTable(module, &table, &size) || !table)
		return 0;
	/* size counts the slots after the unused slot 0. */
	if (id == 0 || id > size || !table[id])
		return 0;
	*table[id] = fn;
	return 1;
}

#define HOOK(module, id, fn) hook(cb, module, id, (NvtxFunctionPointer)(fn))

int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
	const NvtxExportTableCallbacks *cb =
		(const NvtxExportTableCallbacks *)get_export_table(NVTX_ETID_CALLBACKS);
	if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
		return 0;

	const char *path = getenv("KJIT_NVTX_LOG");
	if (path && *path) {
		out = fopen(path, "a");
		if (!out) {
			fprintf(stderr, "nvtx-inject: cannot open %s\n", path);
			return 0;
		}
	}

	const NvtxExportTableVersionInfo *vi =
		(const NvtxExportTableVersionInfo *)get_export_table(NVTX_ETID_VERSIONINFO);
	if (vi && vi->struct_size >= sizeof *vi && vi->SetInjectionNvtxVersion)
		vi->SetInjectionNvtxVersion(NVTX_VERSION);

	int ok = 1;
	ok &= HOOK(NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, domain_push);
	ok &= HOOK(NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, domain_pop);
	ok &= HOOK(NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, domain_mark);
	ok &= HOOK(NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, domain_create);
	ok &= HOOK(NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainDestroy, domain_destroy);
	ok &= HOOK(NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainNameCategoryA, domain_name_category);
	ok &= HOOK(NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA,
	           domain_register_string);
	ok &= HOOK(NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, core_push_ex);
	ok &= HOOK(NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, core_push_a);
	ok &= HOOK(NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, core_pop);
	ok &= HOOK(NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx, core_mark_ex);
	ok &= HOOK(NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, core_mark_a);
	if (!ok)
		fprintf(stderr, "nvtx-inject: the program's NVTX lacks a callback slot\n");
	emit("attached\t%u\n", vi ? (unsigned)vi->version : 0u);
	return ok;
}
