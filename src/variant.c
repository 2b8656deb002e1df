/* variant.c - variants: binary keys, the two-tier cache lookup, batch
 * compilation on the pool, module loading and launching. */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* ---- binary keys ------------------------------------------------------- */

/* The canonical option list: defines sorted by name, flags in order,
 * -dlto -rdc=true for a kernel with links, -arch last, one per line. The
 * key is its hash seeded with the kernel's key seed (signature and NVRTC
 * identity): the compile key; a linked kernel's variant is keyed by the
 * link key made of it. */
typedef struct keytext {
	char *text; /* stack or heap */
	size_t len;
	kjit__hash128 base; /* before the header files enter it (kjit__headers_key()) */
	kjit__hash128 hkey;
	size_t n_defines; /* its first lines */
	char stack[1024];
} keytext;

static void keytext_free(keytext *kt)
{
	if (kt->text != kt->stack)
		free(kt->text);
	kt->text = NULL;
}

/* 1: may start an identifier, 2: may continue one. */
static const unsigned char ident_class[256] = {
	['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2,
	['5'] = 2, ['6'] = 2, ['7'] = 2, ['8'] = 2, ['9'] = 2,
#define L(c) [c] = 3
	L('_'), L('a'), L('b'), L('c'), L('d'), L('e'), L('f'), L('g'), L('h'), L('i'), L('j'),
	L('k'), L('l'), L('m'), L('n'), L('o'), L('p'), L('q'), L('r'), L('s'), L('t'), L('u'),
	L('v'), L('w'), L('x'), L('y'), L('z'), L('A'), L('B'), L('C'), L('D'), L('E'), L('F'),
	L('G'), L('H'), L('I'), L('J'), L('K'), L('L'), L('M'), L('N'), L('O'), L('P'), L('Q'),
	L('R'), L('S'), L('T'), L('U'), L('V'), L('W'), L('X'), L('Y'), L('Z'),
#undef L
};

/* Length of an identifier, or 0 when s is not one. */
static size_t ident_len(const char *s)
{
	if (!s || !(ident_class[(unsigned char)s[0]] & 1))
		return 0;
	size_t n = 1;
	while (ident_class[(unsigned char)s[n]])
		n++;
	return s[n] ? 0 : n;
}

/* Length of s, or (size_t)-1 when it holds a newline. */
static size_t line_len(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (s[n] == '\n')
			return (size_t)-1;
	return n;
}

/* The key of a variant from its compile key: a link key for a kernel with
 * link inputs. */
static kjit__hash128 variant_key(const kjit_kernel *k, kjit__hash128 compile_key)
{
	return k->link ? kjit__link_key(k->link, compile_key) : compile_key;
}

static kjit_status make_key(const kjit_kernel *k, const kjit_variant_desc *d, keytext *kt)
{
	kt->text = NULL;
	size_t nd = d ? d->n_defines : 0, nf = d ? d->n_flags : 0;
	if (nd + nf + 1 > KJIT__MAX_OPTIONS)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: %zu options, at most %d",
		                   k->name, nd + nf, KJIT__MAX_OPTIONS - 1);
	if ((nd && !d->defines) || (nf && !d->flags))
		return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: variant counts %zu defines and "
		                   "%zu flags but an array is NULL", k->name, nd, nf);
	unsigned short order[KJIT__MAX_OPTIONS];
	size_t name_len[KJIT__MAX_OPTIONS], value_len[KJIT__MAX_OPTIONS];
	const char *arch = k->engine->arch;
	size_t arch_len = strlen(arch);
	const char *lto = k->link ? KJIT__LTO_OPTIONS : "";
	size_t lto_len = strlen(lto);
	size_t len = lto_len + 6 + arch_len;
	for (size_t i = 0; i < nd; i++) {
		const kjit_define *df = &d->defines[i];
		if (!(name_len[i] = ident_len(df->name)))
			return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: define %zu has an invalid "
			                   "name '%s' (expected an identifier)", k->name, i,
			                   df->name ? df->name : "(null)");
		value_len[i] = df->value ? line_len(df->value) : 0;
		/* it becomes a #define line: a line break or a final backslash
		 * would end it elsewhere */
		if (value_len[i] == (size_t)-1 || strchr(df->value ? df->value : "", '\r') ||
		    (value_len[i] && df->value[value_len[i] - 1] == '\\'))
			return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: define %s has a newline, "
			                   "a carriage return or a final backslash in its value",
			                   k->name, df->name);
		/* Insertion sort of indices: lists are short. */
		size_t j = i;
		int c = 1;
		while (j > 0 && (c = strcmp(d->defines[order[j - 1]].name, df->name)) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		if (j > 0 && c == 0)
			return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: define %s given twice",
			                   k->name, df->name);
		order[j] = (unsigned short)i;
		len += 3 + name_len[i] + (df->value ? 1 + value_len[i] : 0);
	}
	for (size_t i = 0; i < nf; i++) {
		const char *f = d->flags[i];
		size_t fl = f ? line_len(f) : 0;
		if (!fl || fl == (size_t)-1)
			return kjit__error(KJIT_ERR_INVALID_ARG, "kernel %s: flag %zu is empty or has a "
			                   "newline", k->name, i);
		value_len[nd + i] = fl;
		len += fl + 1;
	}
	char what[160];
	snprintf(what, sizeof what, "kernel %.128s: flag", k->name);
	kjit_status st = kjit__options_check(0, nf ? d->flags : NULL, nf, what);
	if (st != KJIT_OK)
		return st;
	kt->text = len + 1 <= sizeof kt->stack ? kt->stack : malloc(len + 1);
	if (!kt->text)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	char *p = kt->text;
	for (size_t i = 0; i < nd; i++) {
		size_t o = order[i];
		const kjit_define *df = &d->defines[o];
		p[0] = '-';
		p[1] = 'D';
		memcpy(p + 2, df->name, name_len[o]);
		p += 2 + name_len[o];
		if (df->value) {
			*p++ = '=';
			memcpy(p, df->value, value_len[o]);
			p += value_len[o];
		}
		*p++ = '\n';
	}
	for (size_t i = 0; i < nf; i++) {
		memcpy(p, d->flags[i], value_len[nd + i]);
		p += value_len[nd + i];
		*p++ = '\n';
	}
	memcpy(p, lto, lto_len);
	p += lto_len;
	memcpy(p, "-arch=", 6);
	memcpy(p + 6, arch, arch_len);
	p += 6 + arch_len;
	*p = '\0';
	kt->len = (size_t)(p - kt->text);
	kt->n_defines = nd;
	kt->base = kjit__hash(kt->text, kt->len, k->key_seed);
	kjit__headers_key(k->headers, kt->base, &kt->hkey);
	kt->hkey = variant_key(k, kt->hkey);
	return KJIT_OK;
}

/* ---- loading ------------------------------------------------------------- */

void kjit__variant_free(kjit_variant *v)
{
	if (v->module)
		v->kernel->engine->cu->cuModuleUnload(v->module);
	free(v->options);
	free(v->cubin);
	free(v->lowered);
	free(v->param_offset);
	free(v->param_size);
	free(v);
}

kjit_status kjit__variant_load(kjit_variant *v)
{
	kjit_engine *e = v->kernel->engine;
	v->num_regs = v->max_threads = v->static_shared = -1;
	if (!e->cu)
		return KJIT_OK;
	kjit_status st = kjit__engine_ctx(e);
	if (st != KJIT_OK)
		return st;
	uint64_t t0 = kjit__now_ns();
	kjit__nvtx_push(KJIT__NVTX_LOAD, v->kernel->name);
	/* Under lazy loading (CUDA 12.2's default) a function would load where
	 * it is first queried or launched, perhaps on a thread other than the
	 * one CUPTI times on, whose records it then loses now and then: it is
	 * loaded here, inside the load's lock, by cuFuncLoad or, on a driver
	 * older than 12.4, by a first query. */
	kjit__timer_load_begin();
	const char *what = "cuModuleLoadData";
	CUresult r = e->cu->cuModuleLoadData(&v->module, v->cubin);
	if (r != CUDA_SUCCESS)
		v->module = NULL;
	if (r == CUDA_SUCCESS) {
		what = "cuModuleGetFunction";
		r = e->cu->cuModuleGetFunction(&v->function, v->module, v->lowered);
	}
	if (r == CUDA_SUCCESS && e->cu->cuFuncLoad) {
		what = "cuFuncLoad";
		r = e->cu->cuFuncLoad(v->function);
	} else if (r == CUDA_SUCCESS) {
		int regs;
		what = "cuFuncGetAttribute";
		r = e->cu->cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, v->function);
	}
	kjit__timer_load_end();
	kjit__nvtx_pop();
	if (r != CUDA_SUCCESS) {
		if (v->module)
			e->cu->cuModuleUnload(v->module);
		v->module = NULL;
		v->function = NULL;
		return kjit__cu_fail(KJIT_ERR_CUDA, r, what);
	}
	kjit__engine_event(e, KJIT__EV_LOAD, v->kernel, v, NULL,
	                   (double)(kjit__now_ns() - t0) * 1e-3, 1);
	return KJIT_OK;
}

/* Function attributes, read when first asked for rather than on the load
 * path; the values never change, so a race writes the same numbers. */
static void variant_attributes(kjit_variant *v, int *regs_out, int *threads_out,
                               int *shared_out)
{
	kjit_engine *e = v->kernel->engine;
	pthread_mutex_lock(&e->lock);
	*regs_out = v->num_regs;
	*threads_out = v->max_threads;
	*shared_out = v->static_shared;
	pthread_mutex_unlock(&e->lock);
	if (!v->function || *regs_out >= 0 || kjit__engine_ctx(e) != KJIT_OK)
		return;
	int regs = -1, threads = -1, shared = -1;
	if (e->cu->cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
	                              v->function) != CUDA_SUCCESS ||
	    e->cu->cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
	                              v->function) != CUDA_SUCCESS ||
	    e->cu->cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, v->function) != CUDA_SUCCESS)
		return;
	pthread_mutex_lock(&e->lock);
	v->max_threads = *threads_out = threads;
	v->static_shared = *shared_out = shared;
	v->num_regs = *regs_out = regs;
	pthread_mutex_unlock(&e->lock);
}

/* ---- the cache path ----------------------------------------------------- */

typedef struct job {
	kjit_variant *v;       /* result */
	struct job *dup_of;    /* an earlier batch entry with the same key */
	kjit_cache_tier tier;
	kjit__compiled c;      /* the binary, from disk or NVRTC */
	const kjit__header_set *headers; /* what its compile was handed (the kernel's) */
	int need_compile;
	kjit_status st;
	char *err;
	keytext kt;            /* last: the hot path clears only what precedes it */
} job;

static void job_fail(job *j, kjit_status st)
{
	j->st = st;
	free(j->err);
	j->err = strdup(kjit__error_msg());
}

/* Stores a freshly compiled binary. */
static kjit_status store_compiled(kjit_kernel *k, job *j)
{
	kjit_engine *e = k->engine;
	char key[33];
	kjit__hash_hex(j->kt.hkey, key);
	char base[33];
	kjit__hash_hex(j->kt.base, base);
	kjit__binary b = {
		.key = key, .signature = k->signature, .kernel_name = k->name, .source = k->source,
		.params = k->params, .options = j->kt.text, .arch = e->arch,
		.nvrtc = kjit_nvrtc_id(), .lowered_name = j->c.lowered, .cubin = j->c.cubin,
		.size = j->c.size, .compile_ms = j->c.ms, .base_key = base,
		.manifest = j->headers ? j->headers->manifest : NULL,
	};
	return kjit__store_binary_put(e->store, &b, e->cache_max);
}

/* The binary of a real arch is an ELF cubin; a virtual arch's is PTX text
 * with its NUL. Checked on every binary, so that a GPU is never handed
 * PTX as a cubin (cuModuleLoadData would take it and compile it unseen). */
static kjit_status check_kind(const kjit_kernel *k, const job *j)
{
	const unsigned char *b = j->c.cubin;
	int ptx = kjit__arch_is_virtual(k->engine->arch);
	if (ptx ? j->c.size && !b[j->c.size - 1] && memcmp(b, "\177ELF", j->c.size < 4 ? j->c.size : 4)
	        : j->c.size >= 4 && memcmp(b, "\177ELF", 4) == 0)
		return KJIT_OK;
	char key[33];
	kjit__hash_hex(j->kt.hkey, key);
	return kjit__error(KJIT_ERR_CORRUPT, "binary %s of %s is not %s for %s", key, k->name,
	                   ptx ? "PTX text" : "a cubin", k->engine->arch);
}

/* Makes the variant of a job whose binary is in j->c, loads it and puts
 * it in the table (or takes the one another thread put there first). */
static kjit_status publish(kjit_kernel *k, job *j)
{
	kjit_engine *e = k->engine;
	kjit_status st = check_kind(k, j);
	if (st != KJIT_OK)
		return st;
	kjit_variant *v = calloc(1, sizeof *v);
	if (!v || !(v->options = strdup(j->kt.text))) {
		free(v);
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	}
	v->kernel = k;
	v->hkey = j->kt.hkey;
	kjit__hash_hex(j->kt.hkey, v->key);
	v->cubin = j->c.cubin;
	v->size = j->c.size;
	v->lowered = j->c.lowered;
	v->compile_ms = j->c.ms;
	j->c.cubin = NULL;
	j->c.lowered = NULL;
	st = kjit__variant_load(v);
	if (st == KJIT_OK)
		st = kjit__variant_check_args(k, v);
	if (st != KJIT_OK) {
		kjit__variant_free(v);
		return st;
	}
	/* The module variables go in and the variant becomes visible under
	 * one hold of the lock: a kjit_kernel_set_symbol() either comes
	 * first (its data is written here) or finds the variant. */
	pthread_mutex_lock(&k->symbols_lock);
	if ((st = kjit__variant_symbols(v)) != KJIT_OK) {
		pthread_mutex_unlock(&k->symbols_lock);
		kjit__variant_free(v);
		return st;
	}
	pthread_mutex_lock(&e->lock);
	kjit_variant *have = NULL;
	if (e->n_ids == e->cap_ids) {
		size_t cap = e->cap_ids ? 2 * e->cap_ids : 64;
		kjit_variant **ids = realloc(e->by_id, cap * sizeof *ids);
		if (ids) {
			e->by_id = ids;
			e->cap_ids = cap;
		}
	}
	if (e->n_ids < e->cap_ids)
		have = kjit__vtable_insert(&e->table, v);
	if (have == v) {
		v->id = e->n_ids;
		e->by_id[e->n_ids++] = v;
		v->next_in_engine = e->variants;
		e->variants = v;
	}
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_unlock(&k->symbols_lock);
	if (have != v) /* out of memory, or another thread published it first */
		kjit__variant_free(v);
	if (!have)
		return kjit__error(KJIT_ERR_NOMEM, "out of memory");
	j->v = have;
	return KJIT_OK;
}

static void count(kjit_engine *e, kjit_cache_tier tier, int corrupt)
{
	pthread_mutex_lock(&e->lock);
	if (tier == KJIT_TIER_MEMORY)
		e->stats.memory_hits++;
	else if (tier == KJIT_TIER_DISK)
		e->stats.disk_hits++;
	else if (tier == KJIT_TIER_PTX)
		e->stats.ptx_jits++;
	else
		e->stats.misses++;
	e->stats.corrupt += (uint64_t)corrupt;
	pthread_mutex_unlock(&e->lock);
}

void kjit__count_compile(kjit_engine *e, double ms)
{
	pthread_mutex_lock(&e->lock);
	e->stats.compiles++;
	e->stats.compile_ms_total += ms;
	pthread_mutex_unlock(&e->lock);
}

/* A binary found in the store (in j->c): loaded and published as a disk
 * hit. On failure j->c is still the caller's. */
static kjit_status disk_hit(kjit_kernel *k, job *j, const char *key)
{
	kjit_status st = publish(k, j);
	if (st != KJIT_OK)
		return st;
	j->tier = KJIT_TIER_DISK;
	kjit__store_binary_touch(k->engine->store, key);
	kjit__engine_event(k->engine, KJIT__EV_CACHE, k, j->v, KJIT__TIER_DISK, NAN, 1);
	return KJIT_OK;
}

/* A binary just compiled (by NVRTC, or by the driver from PTX: tier):
 * stored, loaded and published at once, so that a process killed
 * mid-batch keeps every compile that finished. */
static void stored(kjit_kernel *k, job *j, kjit_cache_tier tier, int corrupt)
{
	kjit_engine *e = k->engine;
	double ms = j->c.ms;
	kjit_status st = store_compiled(k, j);
	if (st == KJIT_OK)
		st = publish(k, j);
	if (st != KJIT_OK) {
		kjit__compiled_free(&j->c);
		job_fail(j, st);
		return;
	}
	j->tier = tier;
	count(e, tier, corrupt);
	if (tier == KJIT_TIER_PTX) { /* value: the JIT's ms; NVRTC did not run */
		kjit__engine_event(e, KJIT__EV_CACHE, k, j->v, KJIT__TIER_PTX, ms, 1);
		return;
	}
	kjit__engine_event(e, KJIT__EV_CACHE, k, j->v, KJIT__TIER_MISS, NAN, 1);
	kjit__engine_event(e, KJIT__EV_COMPILE, k, j->v, KJIT__TIER_MISS, ms, 1);
}

struct compile_ctx {
	kjit_kernel *k;
	job *jobs;
	size_t *todo;
	int *corrupt; /* per job: its stored binary was corrupt */
};

/* The text NVRTC compiles: the variant's defines (the first n lines of
 * canon, "-DNAME[=VALUE]") as #define lines ahead of the source, where
 * they reach the kernel's code and not NVRTC's built-in headers, which a
 * -D option would redefine (a parameter named pad, size or x breaks
 * them); then #line 1, so that messages count the source's own lines. */
static char *defined_source(const char *source, const char *canon, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t name = strcspn(canon + 2, "=\n");
		const char *end = strchr(canon, '\n');
		const char *value = canon[2 + name] == '=' ? canon + 3 + name : "1";
		int value_len = canon[2 + name] == '=' ? (int)(end - value) : 1;
		fprintf(f, "#define %.*s %.*s\n", (int)name, canon + 2, value_len, value);
		canon = end + 1;
	}
	fprintf(f, "#line 1\n%s", source);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* A failed compile's message, led by the defines it no longer lists
 * among NVRTC's options. */
static kjit_status with_defines(kjit_status st, const char *canon, size_t n)
{
	const char *end = canon;
	for (size_t i = 0; i < n; i++)
		end = strchr(end, '\n') + 1;
	/* a success leaves the thread's last message as it was */
	char *defines = n && st != KJIT_OK && st != KJIT_ERR_NOMEM
	                        ? strndup(canon, (size_t)(end - canon - 1))
	                        : NULL;
	if (!defines)
		return st;
	for (char *c = defines; (c = strchr(c, '\n'));)
		*c = ' ';
	st = kjit__error(st, "variant %s: %s", defines, kjit__error_msg());
	free(defines);
	return st;
}

static void compile_one(void *arg, size_t i)
{
	struct compile_ctx *cc = arg;
	job *j = &cc->jobs[cc->todo[i]];
	/* The key covers the header files as this compile reads them. */
	kjit_status st = kjit__headers_load(cc->k->headers, &j->headers);
	if (st != KJIT_OK) {
		job_fail(j, st);
		return;
	}
	kjit__hash128 compile_key = kjit__headers_final_key(j->headers, j->kt.base);
	j->kt.hkey = variant_key(cc->k, compile_key);
	/* Another process may have stored it since the batch looked (several
	 * compiling one space): one lookup costs far less than NVRTC. */
	char key[33];
	kjit__hash_hex(j->kt.hkey, key);
	if (!cc->corrupt[cc->todo[i]] &&
	    kjit__store_binary_get(cc->k->engine->store, key, &j->c.cubin, &j->c.size,
	                           &j->c.lowered, &j->c.ms) == KJIT_OK) {
		if (disk_hit(cc->k, j, key) == KJIT_OK) {
			j->need_compile = 0; /* counted as the disk hit it is, after the batch */
			return;
		}
		kjit__compiled_free(&j->c);
	}
	int bad = 0, corrupt = cc->corrupt[cc->todo[i]];
	if (!cc->k->link && /* a linked variant is a cubin of its link */
	    kjit__ptx_find(cc->k, j->kt.text, j->headers, &j->c, &bad) == KJIT_OK) {
		stored(cc->k, j, KJIT_TIER_PTX, corrupt + bad);
		return;
	}
	corrupt += bad;
	const char *opts[KJIT__MAX_OPTIONS + 2];
	size_t n = 0, line = 0;
	char *canon = strdup(j->kt.text);
	char *text = defined_source(cc->k->source, j->kt.text, j->kt.n_defines);
	if (!canon || !text) {
		free(canon);
		free(text);
		job_fail(j, kjit__error(KJIT_ERR_NOMEM, "out of memory"));
		return;
	}
	for (char *s = canon, *nl; s; s = nl, line++) {
		nl = strchr(s, '\n');
		if (nl)
			*nl++ = '\0';
		if (line >= j->kt.n_defines)
			opts[n++] = s;
	}
	for (size_t o = 0; o < j->headers->n_opts && n < sizeof opts / sizeof opts[0]; o++)
		opts[n++] = j->headers->opts[o];
	if (cc->k->link) { /* counts its own NVRTC compile, when it needs one */
		st = kjit__link_build(cc->k, compile_key, text, j->kt.text, opts, n, j->headers,
		                      &j->c);
	} else {
		kjit__nvtx_push(KJIT__NVTX_COMPILE, cc->k->name);
		st = kjit__nvrtc_compile(text, cc->k->file, cc->k->name, opts, n, j->headers,
		                         &j->c);
		kjit__nvtx_pop();
		kjit__count_compile(cc->k->engine, st == KJIT_OK ? j->c.ms : 0);
	}
	free(canon);
	free(text);
	st = kjit__headers_missing(cc->k->headers, with_defines(st, j->kt.text, j->kt.n_defines));
	if (st == KJIT_OK) {
		stored(cc->k, j, KJIT_TIER_COMPILED, corrupt);
		return;
	}
	job_fail(j, st);
	kjit_engine *e = cc->k->engine;
	pthread_mutex_lock(&e->lock);
	e->stats.corrupt += (uint64_t)corrupt;
	pthread_mutex_unlock(&e->lock);
}

/* Resolves every job: memory, disk, then NVRTC on the pool for the
 * misses (without compile, a miss is KJIT_ERR_NOT_FOUND). Jobs arrive
 * with their keys made (or failed). */
static void resolve(kjit_kernel *k, job *jobs, size_t n, int threads, int compile)
{
	kjit_engine *e = k->engine;
	size_t *todo = calloc(n ? n : 1, sizeof *todo);
	size_t n_todo = 0;
	if (!todo) {
		for (size_t i = 0; i < n; i++)
			if (jobs[i].st == KJIT_OK)
				job_fail(&jobs[i], kjit__error(KJIT_ERR_NOMEM, "out of memory"));
		return;
	}
	int *corrupt = calloc(n ? n : 1, sizeof *corrupt);
	if (!corrupt) {
		free(todo);
		for (size_t i = 0; i < n; i++)
			if (jobs[i].st == KJIT_OK)
				job_fail(&jobs[i], kjit__error(KJIT_ERR_NOMEM, "out of memory"));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		job *j = &jobs[i];
		if (j->st != KJIT_OK)
			continue;
		if (!kjit__headers_key(k->headers, j->kt.base, &j->kt.hkey)) {
			char base[33];
			kjit__hash_hex(j->kt.base, base);
			kjit_status hst = kjit__headers_prepare(k->headers, e->store, base);
			if (hst != KJIT_OK) {
				job_fail(j, hst);
				continue;
			}
			kjit__headers_key(k->headers, j->kt.base, &j->kt.hkey);
		}
		j->kt.hkey = variant_key(k, j->kt.hkey);
		pthread_mutex_lock(&e->lock);
		j->v = kjit__vtable_find(&e->table, j->kt.hkey);
		pthread_mutex_unlock(&e->lock);
		if (j->v) {
			/* another kernel of the same signature may have loaded it:
			 * this kernel's arguments are checked too (a compare: the
			 * parameters were read as it loaded) */
			kjit_status ast = j->v->kernel == k ? KJIT_OK : kjit__variant_check_args(k, j->v);
			if (ast != KJIT_OK) {
				j->v = NULL;
				job_fail(j, ast);
			} else {
				j->tier = KJIT_TIER_MEMORY;
			}
			continue;
		}
		for (size_t p = 0; p < i && !j->dup_of; p++)
			if (jobs[p].st == KJIT_OK && !jobs[p].dup_of &&
			    jobs[p].kt.hkey.lo == j->kt.hkey.lo && jobs[p].kt.hkey.hi == j->kt.hkey.hi)
				j->dup_of = &jobs[p]; /* resolved after the batch */
		if (j->dup_of)
			continue;
		char key[33];
		kjit__hash_hex(j->kt.hkey, key);
		kjit__nvtx_push(KJIT__NVTX_LOOKUP, k->name);
		kjit_status st = kjit__store_binary_get(e->store, key, &j->c.cubin, &j->c.size,
		                                        &j->c.lowered, &j->c.ms);
		kjit__nvtx_mark(KJIT__NVTX_LOOKUP, st == KJIT_OK ? "hit: disk" : "miss");
		kjit__nvtx_pop();
		if (st == KJIT_OK) {
			if ((st = disk_hit(k, j, key)) == KJIT_OK)
				continue;
			/* Stored but not loadable: a miss, compiled and replaced. */
			kjit__compiled_free(&j->c);
			if (st != KJIT_ERR_CUDA && st != KJIT_ERR_NOMEM && st != KJIT_ERR_CORRUPT) {
				job_fail(j, st);
				continue;
			}
			corrupt[i] = 1;
		} else if (st == KJIT_ERR_CORRUPT) {
			corrupt[i] = 1;
		} else if (st != KJIT_ERR_NOT_FOUND) {
			job_fail(j, st);
			continue;
		}
		j->tier = KJIT_TIER_COMPILED;
		j->need_compile = 1;
		todo[n_todo++] = i;
	}

	for (size_t i = 0; !compile && i < n_todo; i++) {
		kjit__error(KJIT_ERR_NOT_FOUND, "not in the cache");
		job_fail(&jobs[todo[i]], KJIT_ERR_NOT_FOUND);
	}
	struct compile_ctx cc = { k, jobs, todo, corrupt };
	kjit__pool_run(threads, compile ? n_todo : 0, compile_one, &cc);

	for (size_t i = 0; i < n; i++) {
		job *j = &jobs[i];
		if (j->dup_of) {
			job *first = j->dup_of;
			j->v = first->v;
			j->tier = KJIT_TIER_MEMORY;
			j->dup_of = NULL;
			if (first->st != KJIT_OK) {
				j->st = first->st;
				j->err = first->err ? strdup(first->err) : NULL;
				continue;
			}
		}
		if (j->st == KJIT_OK && !j->need_compile)
			count(e, j->tier, corrupt[i]);
	}
	free(corrupt);
	free(todo);
}

/* Appends the string s with its NUL to buf[cap] at *len; 0 when it does
 * not fit. */
static int put(char *buf, size_t cap, size_t *len, const char *s)
{
	size_t n = strlen(s) + 1;
	if (n > cap - *len)
		return 0;
	memcpy(buf + *len, s, n);
	*len += n;
	return 1;
}

/* The hash of a descriptor's bytes as given: its counts, then each
 * define's name, a mark for a value and the value, then each flag, each
 * ended by a NUL that none can hold, so that two descriptors hash alike
 * only when they are written alike. 0 when it does not fit the buffer or
 * a pointer is missing: make_key() says what is wrong, and nothing is
 * kept. */
static int given_hash(const kjit_kernel *k, const kjit_variant_desc *d, kjit__hash128 *out)
{
	char buf[1024];
	size_t nd = d ? d->n_defines : 0, nf = d ? d->n_flags : 0, len = 0;
	if ((nd && !d->defines) || (nf && !d->flags))
		return 0;
	memcpy(buf, &nd, sizeof nd);
	memcpy(buf + sizeof nd, &nf, sizeof nf);
	len = sizeof nd + sizeof nf;
	int ok = 1;
	for (size_t i = 0; ok && i < nd; i++) {
		const char *name = d->defines[i].name, *value = d->defines[i].value;
		ok = name && put(buf, sizeof buf - 1, &len, name);
		if (ok)
			buf[len++] = value ? '=' : '\0';
		ok = ok && (!value || put(buf, sizeof buf, &len, value));
	}
	for (size_t i = 0; ok && i < nf; i++)
		ok = d->flags[i] && put(buf, sizeof buf, &len, d->flags[i]);
	if (ok)
		*out = kjit__hash(buf, len, k->key_seed);
	return ok;
}

static kjit_status get_one(kjit_kernel *k, const kjit_variant_desc *desc, kjit_variant **out,
                           kjit_cache_tier *tier, int compile)
{
	if (out)
		*out = NULL;
	if (!k || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "%s: kernel and out must not be NULL",
		                   compile ? "kjit_variant_get" : "kjit_variant_cached");
	kjit_engine *e = k->engine;
	/* Hot path: a descriptor this kernel has seen, checked and found is
	 * found again by the hash of its bytes and one probe, no lock. */
	kjit__hash128 given;
	int memo = given_hash(k, desc, &given);
	if (memo) {
		kjit_variant *v = kjit__given_find(&k->given, given);
		if (v) {
			atomic_fetch_add_explicit(&k->given_hits, 1, memory_order_relaxed);
			*out = v;
			if (tier)
				*tier = KJIT_TIER_MEMORY;
			return KJIT_OK;
		}
	}

	job j;
	memset(&j, 0, offsetof(job, kt));
	kjit_status st = make_key(k, desc, &j.kt);
	if (st != KJIT_OK)
		return kjit__engine_fail(e, st);
	pthread_mutex_lock(&e->lock);
	kjit_variant *v = kjit__vtable_find(&e->table, j.kt.hkey);
	if (v) {
		e->stats.memory_hits++;
		k->memory_hits++;
	}
	pthread_mutex_unlock(&e->lock);
	if (v) {
		keytext_free(&j.kt);
		/* as in resolve(): a variant another kernel loaded */
		if (v->kernel != k && (st = kjit__variant_check_args(k, v)) != KJIT_OK)
			return kjit__engine_fail(e, st);
		j.v = v;
		j.tier = KJIT_TIER_MEMORY;
	} else {
		resolve(k, &j, 1, 1, compile);
		keytext_free(&j.kt);
		if (j.st != KJIT_OK) {
			kjit__error_take(j.st, j.err);
			return kjit__engine_fail(e, j.st);
		}
	}
	if (memo) {
		pthread_mutex_lock(&e->lock);
		kjit__given_insert(&k->given, given, j.v);
		pthread_mutex_unlock(&e->lock);
	}
	*out = j.v;
	if (tier)
		*tier = j.tier;
	return KJIT_OK;
}

kjit_status kjit_variant_get(kjit_kernel *k, const kjit_variant_desc *desc, kjit_variant **out,
                             kjit_cache_tier *tier)
{
	return get_one(k, desc, out, tier, 1);
}

kjit_status kjit_variant_cached(kjit_kernel *k, const kjit_variant_desc *desc,
                                kjit_variant **out, kjit_cache_tier *tier)
{
	return get_one(k, desc, out, tier, 0);
}

kjit_status kjit_variants_get(kjit_kernel *k, const kjit_variant_desc *descs, size_t n,
                              int threads, kjit_variant **out, kjit_status *status,
                              char **errors)
{
	if (!k || (n && (!descs || !out || !status)))
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variants_get: NULL argument");
	kjit_engine *e = k->engine;
	job *jobs = calloc(n ? n : 1, sizeof *jobs);
	if (!jobs)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_NOMEM, "out of memory"));
	for (size_t i = 0; i < n; i++) {
		kjit_status st = make_key(k, &descs[i], &jobs[i].kt);
		if (st != KJIT_OK)
			job_fail(&jobs[i], st);
	}
	resolve(k, jobs, n, threads > 0 ? threads : e->threads, 1);
	kjit_status first = KJIT_OK;
	for (size_t i = 0; i < n; i++) {
		out[i] = jobs[i].st == KJIT_OK ? jobs[i].v : NULL;
		status[i] = jobs[i].st;
		if (jobs[i].st != KJIT_OK && first == KJIT_OK) {
			first = jobs[i].st;
			kjit__error(first, "variant %zu of %s: %s", i, k->name,
			            jobs[i].err ? jobs[i].err : kjit_status_str(first));
			kjit__engine_fail(e, first);
		}
		if (errors)
			errors[i] = jobs[i].st != KJIT_OK ? jobs[i].err : NULL;
		else
			free(jobs[i].err);
		keytext_free(&jobs[i].kt);
	}
	free(jobs);
	return first;
}

/* ---- information and launching ----------------------------------------- */

kjit_status kjit_variant_get_info(const kjit_variant *v, kjit_variant_info *out)
{
	if (!v || !out)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variant_get_info: NULL argument");
	variant_attributes((kjit_variant *)v, &out->num_regs, &out->max_threads_per_block,
	                   &out->static_shared_bytes);
	out->key = v->key;
	out->options = v->options;
	out->lowered_name = v->lowered;
	out->cubin_size = v->size;
	out->compile_ms = v->compile_ms;
	out->arch = v->kernel->engine->arch;
	out->kind = kjit__arch_is_virtual(out->arch) ? KJIT_BINARY_PTX : KJIT_BINARY_CUBIN;
	return KJIT_OK;
}

kjit_status kjit_variant_cubin(const kjit_variant *v, const void **data, size_t *size)
{
	if (!v || !data || !size)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variant_cubin: NULL argument");
	*data = v->cubin;
	*size = v->size;
	return KJIT_OK;
}

kjit_status kjit_variant_function(kjit_variant *v, void **cufunction)
{
	if (!v || !cufunction)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variant_function: NULL argument");
	*cufunction = v->function;
	if (!v->function)
		return kjit__engine_fail(v->kernel->engine,
		                         kjit__error(KJIT_ERR_NO_GPU, "variant %s of %s is not loaded: "
		                                     "%s", v->key, v->kernel->name,
		                                     v->kernel->engine->gpu_reason));
	return KJIT_OK;
}

kjit_status kjit__variant_shared_grow(kjit_variant *v, unsigned shared)
{
	kjit_engine *e = v->kernel->engine;
	kjit_status st = kjit__engine_ctx(e);
	if (st != KJIT_OK)
		return st;
	int regs, threads, fixed;
	variant_attributes(v, &regs, &threads, &fixed);
	if (fixed < 0)
		return kjit__error(KJIT_ERR_CUDA, "%s (variant %s): its static shared memory could "
		                   "not be read (cuFuncGetAttribute)", v->kernel->name, v->key);
	uint64_t need = (uint64_t)shared + (uint64_t)fixed;
	if (need <= (uint64_t)e->shared_default) {
		atomic_store_explicit(&v->shared_allowed, (unsigned)(e->shared_default - fixed),
		                      memory_order_release);
		return KJIT_OK;
	}
	if (need > (uint64_t)e->shared_optin)
		return kjit__error(KJIT_ERR_LAUNCH, "%s (variant %s) needs %u B dynamic + %d B static "
		                   "shared memory = %llu B; the device allows %d B per block",
		                   v->kernel->name, v->key, shared, fixed, (unsigned long long)need,
		                   e->shared_optin);
	/* All the device allows, so that every setter sets the same value and
	 * a race between two is harmless; the attribute is a ceiling, each
	 * launch still reserves what it asks for. */
	int most = e->shared_optin - fixed;
	CUresult r = e->cu->cuFuncSetAttribute(v->function,
	                                       CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, most);
	if (r != CUDA_SUCCESS) {
		char what[256];
		snprintf(what, sizeof what, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d) "
		         "of %s (variant %s)", most, v->kernel->name, v->key);
		return kjit__cu_fail(KJIT_ERR_LAUNCH, r, what);
	}
	atomic_store_explicit(&v->shared_allowed, (unsigned)most, memory_order_release);
	return KJIT_OK;
}

kjit_status kjit_variant_launch(kjit_variant *v, const unsigned grid[3], const unsigned block[3],
                                unsigned shared_bytes, kjit_stream stream, void **args)
{
	if (!v || !grid || !block)
		return kjit__error(KJIT_ERR_INVALID_ARG, "kjit_variant_launch: NULL argument");
	kjit_engine *e = v->kernel->engine;
	if (!v->function)
		return kjit__engine_fail(e, kjit__error(KJIT_ERR_NO_GPU, "cannot launch %s: %s",
		                                        v->kernel->name, e->gpu_reason));
	kjit_status st = kjit__engine_ctx(e);
	if (st == KJIT_OK)
		st = kjit__variant_shared(v, shared_bytes);
	if (st != KJIT_OK)
		return kjit__engine_fail(e, st);
	atomic_fetch_add_explicit(&v->kernel->launches, 1, memory_order_relaxed);
	if (e->profile_every &&
	    atomic_fetch_add_explicit(&e->launch_seq, 1, memory_order_relaxed) % e->profile_every == 0) {
		/* KJIT_PROFILE: this launch carries the variant's id as its CUPTI
		 * tag; its duration reaches the telemetry later. NOT_FOUND: the
		 * timer did not launch it, so it goes the plain way. */
		kjit__launch la = { e->cu, v->function, grid, block, shared_bytes, args };
		st = kjit__timer_launch_tagged(e->timer, kjit__launch_once, &la, (CUstream)stream,
		                               v->id);
		if (st == KJIT_OK)
			return KJIT_OK;
		if (st != KJIT_ERR_NOT_FOUND)
			return kjit__engine_fail(e, st);
	}
	CUresult r = e->cu->cuLaunchKernel(v->function, grid[0], grid[1], grid[2], block[0], block[1],
	                                   block[2], shared_bytes, (CUstream)stream, args, NULL);
	if (r == CUDA_SUCCESS)
		return KJIT_OK;
	int regs, threads, shared;
	variant_attributes(v, &regs, &threads, &shared);
	char what[256];
	snprintf(what, sizeof what, "cuLaunchKernel of %s (grid %ux%ux%u, block %ux%ux%u, %u B "
	         "shared, %d registers/thread)", v->kernel->name, grid[0], grid[1], grid[2],
	         block[0], block[1], block[2], shared_bytes, regs);
	return kjit__engine_fail(e, kjit__cu_fail(KJIT_ERR_LAUNCH, r, what));
}
