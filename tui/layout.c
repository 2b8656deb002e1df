/*
 * layout.c - pure functions from the terminal size and the model to
 * rectangles and fixed-width text rows. Nothing here touches the terminal
 * or the database, so every size can be checked by the tests.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tui.h"

/* ---- rectangles --------------------------------------------------------------- */

static top_rect rect(int y, int x, int h, int w)
{
	top_rect r = { y, x, h > 0 ? h : 0, w > 0 ? w : 0 };
	return r;
}

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

void top_layout_compute(int rows, int cols, top_view_kind view, size_t active_runs,
                        size_t run_rows, top_layout *out)
{
	memset(out, 0, sizeof *out);
	out->rows = rows;
	out->cols = cols;
	if (rows < TOP_MIN_ROWS || cols < TOP_MIN_COLS) {
		out->too_small = 1;
		return;
	}
	/* the kernels table keeps a title and at least 3 rows */
	int spare = rows - 1 - 3 - 4;
	out->run_lines = imin((int)(active_runs < TOP_MAX_RUN_LINES ? active_runs
	                                                             : TOP_MAX_RUN_LINES), spare);
	out->header = rect(0, 0, 3 + out->run_lines, cols);
	out->status = rect(rows - 1, 0, 1, cols);
	int y = out->header.h, avail = rows - 1 - y;
	if (view == TOP_VIEW_HELP) {
		out->help = rect(y, 0, avail, cols);
		return;
	}
	if (view == TOP_VIEW_DETAIL) {
		/* the variants first: at 80x24 a histogram of half the rows left
		 * them 7 */
		int hist = avail >= 12 ? imin(10, avail / 3) : 0;
		out->variants = rect(y, 0, avail - hist, cols);
		out->histogram = rect(y + avail - hist, 0, hist, cols);
		return;
	}
	int history = avail >= 3 + 6 ? 3 : 0;
	avail -= history;
	int runs = 0;
	if (run_rows > 0) {
		runs = imin((int)(run_rows < TOP_MAX_RUN_ROWS ? run_rows : TOP_MAX_RUN_ROWS) + 1,
		            avail - 5);
		if (runs < 2)
			runs = 0;
	}
	out->history = rect(y, 0, history, cols);
	y += history;
	out->kernels = rect(y, 0, avail - runs, cols);
	out->runs = rect(y + avail - runs, 0, runs, cols);
}

/* ---- columns -------------------------------------------------------------------- */

typedef struct colspec {
	const char *title;
	int min, max;  /* max > min: takes a share of the spare width */
	int right;     /* right-aligned (numbers) */
	int drop;      /* dropped first when narrow: the highest goes first */
} colspec;

/* The best configuration needs room more than the columns that repeat
 * what others say: RECENT (BEST and DRIFT tell it) and then COMPILE (the
 * header has the compile latency) make way first, so that at 80 columns
 * the configuration has 28 and the kernel's name 17. */
static const colspec kcols[TOP_KCOL_COUNT] = {
	[TOP_KCOL_NAME] = { "KERNEL", 12, 32, 0, 0 },
	[TOP_KCOL_LAUNCHES] = { "LAUNCHES", 8, 8, 1, 1 },
	[TOP_KCOL_HIT] = { "HIT%", 6, 6, 1, 2 },
	[TOP_KCOL_COMPILE] = { "COMPILE", 9, 9, 1, 6 },
	[TOP_KCOL_CONFIG] = { "BEST CONFIG", 24, 60, 0, 5 },
	[TOP_KCOL_BEST] = { "BEST", 9, 9, 1, 4 },
	[TOP_KCOL_RECENT] = { "RECENT", 9, 9, 1, 7 },
	[TOP_KCOL_DRIFT] = { "DRIFT", 7, 7, 1, 3 },
};

static const colspec rcols[TOP_RCOL_COUNT] = {
	[TOP_RCOL_ID] = { "RUN", 4, 4, 1, 6 },
	[TOP_RCOL_KERNEL] = { "KERNEL", 8, 14, 0, 0 },
	[TOP_RCOL_STRATEGY] = { "STRATEGY", 8, 9, 0, 5 },
	[TOP_RCOL_PROGRESS] = { "EVALUATED", 9, 9, 1, 0 },
	[TOP_RCOL_STATUS] = { "STATUS", 11, 11, 0, 2 },
	[TOP_RCOL_COUNTS] = { "BY STATUS", 12, 40, 0, 4 },
	[TOP_RCOL_BEST] = { "BEST", 9, 9, 1, 1 },
	[TOP_RCOL_ETA] = { "ETA", 7, 7, 1, 3 },
};

static const colspec vcols[TOP_VCOL_COUNT] = {
	[TOP_VCOL_RANK] = { "#", 4, 4, 1, 2 },
	[TOP_VCOL_CONFIG] = { "CONFIGURATION", 12, 80, 0, 0 },
	[TOP_VCOL_STATUS] = { "STATUS", 13, 13, 0, 1 },
	[TOP_VCOL_TIME] = { "MEDIAN", 9, 9, 1, 0 },
	/* as narrow as their figures ("3410", "52.1T", "71%", "1.23mJ") */
	[TOP_VCOL_GBPS] = { "GB/S", 5, 5, 1, 5 },
	[TOP_VCOL_FLOPS] = { "FLOP/S", 6, 6, 1, 8 },
	[TOP_VCOL_PEAK] = { "PEAK", 4, 4, 1, 6 },
	[TOP_VCOL_OCC] = { "OCC", 4, 4, 1, 7 },
	[TOP_VCOL_ENERGY] = { "ENERGY", 6, 6, 1, 4 },
	[TOP_VCOL_SAMPLES] = { "SAMPLES", 7, 7, 1, 9 },
};

/* Drops columns (highest `drop` first) until they fit with one space
 * between, then shares what is left among the flexible ones. The
 * columns of the bits of hidden are not shown at all. */
static void fit(const colspec *spec, int n, int width, unsigned hidden, top_columns *out)
{
	memset(out, 0, sizeof *out);
	out->n = n;
	int used = -1;
	for (int i = 0; i < n; i++) {
		if (hidden & (1u << i))
			continue;
		out->w[i] = spec[i].min;
		used += spec[i].min + 1;
	}
	while (used > width) {
		int worst = -1;
		for (int i = 0; i < n; i++)
			if (out->w[i] && (worst < 0 || spec[i].drop > spec[worst].drop))
				worst = i;
		if (worst < 0 || spec[worst].drop == 0) {
			/* only the essential columns are left: shrink the first */
			for (int i = 0; i < n && used > width; i++) {
				int cut = imin(out->w[i] - 1, used - width);
				out->w[i] -= cut;
				used -= cut;
			}
			break;
		}
		used -= out->w[worst] + 1;
		out->w[worst] = 0;
	}
	for (int grew = 1; grew && used < width;) {
		grew = 0;
		for (int i = 0; i < n && used < width; i++)
			if (out->w[i] && out->w[i] < spec[i].max) {
				out->w[i]++;
				used++;
				grew = 1;
			}
	}
}

void top_kernel_columns(int width, top_columns *out) { fit(kcols, TOP_KCOL_COUNT, width, 0, out); }
void top_run_columns(int width, top_columns *out) { fit(rcols, TOP_RCOL_COUNT, width, 0, out); }

void top_variant_columns(int width, int profiles, top_columns *out)
{
	unsigned hidden = 0;
	for (int i = TOP_VCOL_GBPS; !profiles && i <= TOP_VCOL_ENERGY; i++)
		hidden |= 1u << i;
	fit(vcols, TOP_VCOL_COUNT, width, hidden, out);
	/* the profile's columns take the configuration's room: the samples
	 * column makes way for a configuration narrower than 20 */
	if (profiles && out->w[TOP_VCOL_SAMPLES] && out->w[TOP_VCOL_CONFIG] < 20)
		fit(vcols, TOP_VCOL_COUNT, width, hidden | 1u << TOP_VCOL_SAMPLES, out);
}

/* ---- text ------------------------------------------------------------------------ */

/* Copies s into buf[0..w) (printable ASCII only), padded with spaces; a
 * cut text ends in '~'. */
static void put_cell(char *buf, int w, const char *s, int right)
{
	int len = (int)strlen(s);
	int n = imin(len, w);
	int pad = right ? w - n : 0;
	memset(buf, ' ', (size_t)w);
	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[pad + i] = c >= 32 && c < 127 ? (char)c : '?';
	}
	if (len > w && w > 0)
		buf[w - 1] = '~';
}

/* Lays cells out in the given columns into buf[width + 1]. */
static void put_row(char *buf, int width, const top_columns *c, const colspec *spec,
                    const char *const *cells)
{
	memset(buf, ' ', (size_t)width);
	buf[width] = '\0';
	int x = 0;
	for (int i = 0; i < c->n; i++) {
		if (!c->w[i])
			continue;
		int w = imin(c->w[i], width - x);
		if (w <= 0)
			break;
		put_cell(buf + x, w, cells[i], spec[i].right);
		x += c->w[i] + 1;
	}
}

/* Fills a whole line: free text cut or padded to width. */
static void put_line(char *buf, int width, const char *s)
{
	put_cell(buf, width, s, 0);
	buf[width] = '\0';
}

/* DRAM bytes per second as GB/s: "3410", "12.5"; "-" for NAN. */
static void fmt_gbps(double bytes_per_s, char *out, size_t size)
{
	double g = bytes_per_s / 1e9;
	if (isnan(g))
		snprintf(out, size, "-");
	else
		snprintf(out, size, g >= 99.95 ? "%.0f" : "%.3g", fmin(g, 999999));
}

/* A fraction as a whole percent, "-" for NAN or a variant without it. */
static void fmt_percent(double f, char *out, size_t size)
{
	if (isnan(f))
		snprintf(out, size, "-");
	else
		snprintf(out, size, "%.0f%%", fmin(fmax(f * 100, 0), 999));
}

void top_fmt_si(double v, const char *unit, char *out, size_t size)
{
	static const struct {
		double at;
		const char *prefix;
	} si[] = { { 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
		   { 1, "" }, { 1e-3, "m" }, { 1e-6, "u" }, { 1e-9, "n" } };
	if (!isfinite(v)) {
		snprintf(out, size, "-");
		return;
	}
	size_t i = 0;
	while (i + 1 < sizeof si / sizeof *si && fabs(v) < si[i].at * 0.9995)
		i++;
	if (v == 0)
		i = 5;
	double x = v / si[i].at;
	/* 3 significant digits: 3.41, 34.1, 341 */
	int decimals = fabs(x) >= 99.95 ? 0 : fabs(x) >= 9.995 ? 1 : 2;
	snprintf(out, size, "%.*f%s%s", decimals, x, si[i].prefix, unit);
}

void top_fmt_ns(double ns, char *out, size_t size)
{
	if (!isfinite(ns) || ns < 0)
		snprintf(out, size, "-");
	else if (ns < 1e3)
		snprintf(out, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(out, size, "%.*f us", ns < 1e4 ? 2 : ns < 1e5 ? 1 : 0, ns / 1e3);
	else if (ns < 1e9)
		snprintf(out, size, "%.*f ms", ns < 1e7 ? 2 : ns < 1e8 ? 1 : 0, ns / 1e6);
	else
		snprintf(out, size, "%.2f s", ns / 1e9);
}

void top_fmt_eta(double s, char *out, size_t size)
{
	if (!isfinite(s) || s < 0)
		snprintf(out, size, "-");
	else if (s < 60)
		snprintf(out, size, "%.0fs", s);
	else if (s < 3600)
		snprintf(out, size, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
	else if (s < 100 * 3600)
		snprintf(out, size, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
	else
		snprintf(out, size, ">99h");
}

static void fmt_count(int64_t n, char *out, size_t size)
{
	if (n < 10000000)
		snprintf(out, size, "%lld", (long long)n);
	else if (n < 10000000000LL)
		snprintf(out, size, "%.1fM", (double)n / 1e6);
	else
		snprintf(out, size, "%.2e", (double)n);
}

static void fmt_ms(double ms, char *out, size_t size)
{
	if (!isfinite(ms))
		snprintf(out, size, "-");
	else
		snprintf(out, size, ms < 100 ? "%.1f ms" : "%.0f ms", ms);
}

void top_config_text(const char *config, char *out, size_t size)
{
	size_t n = 0;
	if (!size)
		return;
	out[0] = '\0';
	if (!config || !*config) {
		snprintf(out, size, "-");
		return;
	}
	if (config[0] == '{') {
		/* a flat JSON object: drop the punctuation, keep name=value */
		for (const char *p = config; *p && n + 1 < size; p++) {
			char c = *p;
			if (c == '{' || c == '}' || c == '"' || c == ' ')
				continue;
			out[n++] = c == ':' ? '=' : c == ',' ? ' ' : c;
		}
		out[n] = '\0';
		return;
	}
	/* an option list, one a line: -DNAME=VALUE as NAME=VALUE, flags as they
	 * are, the architecture left out (one per database, in the header) */
	for (const char *p = config; *p;) {
		size_t len = strcspn(p, "\n");
		const char *opt = p;
		if (len >= 2 && strncmp(opt, "-D", 2) == 0) {
			opt += 2;
			len -= 2;
		}
		int arch = strncmp(p, "-arch", 5) == 0 || strncmp(p, "--gpu-architecture", 18) == 0;
		if (len && !arch && n + len + 2 < size) {
			if (n)
				out[n++] = ' ';
			memcpy(out + n, opt, len);
			n += len;
		}
		p = opt + len;
		if (*p == '\n')
			p++;
	}
	out[n] = '\0';
	if (!n)
		snprintf(out, size, "-");
}

static double hit_rate(int64_t mem, int64_t disk, int64_t ptx, int64_t miss)
{
	int64_t all = mem + disk + ptx + miss;
	return all ? (double)(mem + disk + ptx) / (double)all : NAN;
}

void top_format_tiers(int64_t mem, int64_t disk, int64_t ptx, int64_t miss, char *out,
                      size_t size)
{
	int64_t all = mem + disk + ptx + miss;
	double d = all ? 100.0 / (double)all : 0;
	double h = hit_rate(mem, disk, ptx, miss);
	char hit[16];
	if (isnan(h))
		snprintf(hit, sizeof hit, "-");
	else
		snprintf(hit, sizeof hit, "%.1f%%", 100 * h);
	snprintf(out, size, "hit %s mem %.1f disk %.1f ptx %.1f miss %.1f", hit,
	         (double)mem * d, (double)disk * d, (double)ptx * d, (double)miss * d);
}

void top_format_kernel(const top_kernel *k, const top_columns *c, char *buf, int width)
{
	if (!k) {
		const char *t[TOP_KCOL_COUNT];
		for (int i = 0; i < TOP_KCOL_COUNT; i++)
			t[i] = kcols[i].title;
		put_row(buf, width, c, kcols, t);
		return;
	}
	char launches[32], hit[32], comp[32], cfg[128], best[32], recent[32], drift[32];
	fmt_count(k->launches, launches, sizeof launches);
	double h = hit_rate(k->mem, k->disk, k->ptx, k->miss);
	if (isnan(h))
		snprintf(hit, sizeof hit, "-");
	else
		snprintf(hit, sizeof hit, "%.1f", 100 * h);
	fmt_ms(k->compile_p50_ms, comp, sizeof comp);
	if (k->has_best)
		top_config_text(k->best_config, cfg, sizeof cfg);
	else
		snprintf(cfg, sizeof cfg, "-");
	top_fmt_ns(k->has_best ? k->best_ns : NAN, best, sizeof best);
	/* a stale best (the kernel or toolkit changed since) is marked */
	if (k->has_best && k->stale)
		strncat(best, "*", sizeof best - strlen(best) - 1);
	top_fmt_ns(k->recent_ns, recent, sizeof recent);
	if (isnan(k->drift))
		snprintf(drift, sizeof drift, "-");
	else if (fabs(k->drift) < 0.0005) /* no "-0.0%" */
		snprintf(drift, sizeof drift, "0.0%%");
	else if (fabs(k->drift) < 1)
		snprintf(drift, sizeof drift, "%+.1f%%", 100 * k->drift);
	else if (k->drift < 9.995)
		snprintf(drift, sizeof drift, "%+.0f%%", 100 * k->drift);
	else
		snprintf(drift, sizeof drift, ">+999%%");
	const char *cells[TOP_KCOL_COUNT] = { k->name, launches, hit, comp, cfg, best, recent, drift };
	put_row(buf, width, c, kcols, cells);
}

int top_kernel_config_cut(const top_kernel *k, const top_columns *c)
{
	if (!k->has_best)
		return 0;
	char cfg[128];
	top_config_text(k->best_config, cfg, sizeof cfg);
	return (int)strlen(cfg) > c->w[TOP_KCOL_CONFIG];
}

void top_format_kernel_best(const top_kernel *k, char *buf, int width)
{
	char cfg[128], s[256];
	top_config_text(k->best_config, cfg, sizeof cfg);
	snprintf(s, sizeof s, "best of %s: %s", k->name, cfg);
	put_line(buf, width, s);
}

/* The non-zero counts by result status: "ok 28 ce 2 to 1", or with
 * tight, "ok28 ce2 to1". */
static void fmt_counts(const int64_t *by_status, int tight, char *out, size_t size)
{
#define ABBREV(id, text, abbrev) [KJIT_RESULT_##id] = abbrev,
	static const char *const abbr[KJIT__RS_COUNT] = { KJIT__RESULT_STATUSES(ABBREV) };
#undef ABBREV
	size_t n = 0;
	out[0] = '\0';
	for (int i = 0; i < KJIT__RS_COUNT; i++)
		if (by_status[i] && n < size) {
			int k = snprintf(out + n, size - n, "%s%s%s%lld", n ? " " : "", abbr[i],
			                 tight ? "" : " ", (long long)by_status[i]);
			n += k > 0 ? (size_t)k : 0;
		}
	if (!out[0])
		snprintf(out, size, "-");
}

static void fmt_progress(const top_run *r, char *out, size_t size)
{
	if (r->total >= 0)
		snprintf(out, size, "%lld/%lld", (long long)r->evaluated, (long long)r->total);
	else
		snprintf(out, size, "%lld/?", (long long)r->evaluated);
}

void top_format_run(const top_run *r, const top_columns *c, char *buf, int width)
{
	if (!r) {
		const char *t[TOP_RCOL_COUNT];
		for (int i = 0; i < TOP_RCOL_COUNT; i++)
			t[i] = rcols[i].title;
		put_row(buf, width, c, rcols, t);
		return;
	}
	char id[24], prog[48], counts[128], best[24], eta[16];
	snprintf(id, sizeof id, "%lld", (long long)r->id);
	fmt_progress(r, prog, sizeof prog);
	fmt_counts(r->by_status, 0, counts, sizeof counts);
	/* the counts without their inner spaces rather than cut (80 columns) */
	if ((int)strlen(counts) > c->w[TOP_RCOL_COUNTS])
		fmt_counts(r->by_status, 1, counts, sizeof counts);
	top_fmt_ns(r->best_ns, best, sizeof best);
	top_fmt_eta(r->eta_s, eta, sizeof eta);
	const char *cells[TOP_RCOL_COUNT] = { id, r->kernel, r->strategy, prog, r->status, counts,
		                              best, eta };
	put_row(buf, width, c, rcols, cells);
}

size_t top_run_device_lines(const top_model *m, const top_run *r)
{
	if (strcmp(r->status, KJIT__RUN_RUNNING) != 0)
		return 0;
	for (size_t i = 0; i < r->n_devices; i++) {
		const top_run_device *d = &m->devices[r->first_device + i];
		if (d->ordinal >= 0 || d->uuid[0])
			return r->n_devices;
	}
	return 0;
}

size_t top_run_rows(const top_model *m)
{
	size_t n = m->n_runs;
	for (size_t i = 0; i < m->n_runs; i++)
		n += top_run_device_lines(m, &m->runs[i]);
	return n;
}

void top_short_uuid(const char *uuid, char *out, size_t size)
{
	if (strncmp(uuid, "GPU-", 4) == 0)
		uuid += 4;
	int n = (int)strcspn(uuid, "-");
	if (n == 0)
		snprintf(out, size, "-");
	else
		snprintf(out, size, "%.*s", n < 8 ? n : 8, uuid);
}

void top_format_run_device(const top_run_device *d, double now, char *buf, int width)
{
	char label[48], uuid[16], best[24], age[16], counts[128], s[512];
	top_short_uuid(d->uuid, uuid, sizeof uuid);
	if (d->ordinal < 0 && !d->uuid[0])
		snprintf(label, sizeof label, "unknown device");
	else if (d->ordinal < 0)
		snprintf(label, sizeof label, "gpu ? %s", uuid);
	else
		snprintf(label, sizeof label, "gpu %lld %s", (long long)d->ordinal, uuid);
	top_fmt_ns(d->best_ns, best, sizeof best);
	/* a writer's clock a little ahead of ours: just now */
	top_fmt_eta(now > d->last ? now - d->last : 0, age, sizeof age);
	fmt_counts(d->by_status, 0, counts, sizeof counts);
	/* indented under the run's kernel (the RUN column and its space) */
	snprintf(s, sizeof s, "     %-14s %5lld evaluated  best %-8s last %s ago  %s", label,
	         (long long)d->evaluated, best, age, counts);
	put_line(buf, width, s);
}

/* Line `line` of s wrapped at spaces into lines of w characters (a word
 * longer than w stays whole, for put_cell() to cut), into out[size];
 * returns the number of lines (1 for an empty s). */
static int wrap_line(const char *s, int w, int line, char *out, size_t size)
{
	int lines = 0;
	out[0] = '\0';
	for (const char *p = s + strspn(s, " "); *p; p += strspn(p, " ")) {
		const char *end = p + strcspn(p, " ");
		for (const char *q = end + strspn(end, " "); *q;) {
			const char *next = q + strcspn(q, " ");
			if (next - p > w)
				break;
			end = next;
			q = next + strspn(next, " ");
		}
		if (lines++ == line)
			snprintf(out, size, "%.*s", (int)(end - p), p);
		p = end;
	}
	return lines ? lines : 1;
}

int top_format_variant(const top_variant *v, size_t rank, int line, const top_columns *c,
                       char *buf, int width)
{
	if (!v) {
		const char *t[TOP_VCOL_COUNT];
		for (int i = 0; i < TOP_VCOL_COUNT; i++)
			t[i] = vcols[i].title;
		put_row(buf, width, c, vcols, t);
		return 1;
	}
	/* a configuration wider than its column goes on over the next lines,
	 * in its column, so that every parameter shows */
	char cfg[sizeof v->config];
	int lines = wrap_line(v->config, imax(c->w[TOP_VCOL_CONFIG], 1), line, cfg, sizeof cfg);
	char r[32] = "", time[32] = "", n[32] = "", gbps[32] = "", flops[32] = "", peak[32] = "";
	char occ[32] = "", energy[32] = "";
	if (line == 0) {
		snprintf(r, sizeof r, "%zu", rank);
		top_fmt_ns(v->median_ns, time, sizeof time);
		fmt_count(v->n_samples, n, sizeof n);
		fmt_gbps(v->dram_bytes_per_s, gbps, sizeof gbps);
		top_fmt_si(v->flop_per_s, "", flops, sizeof flops);
		fmt_percent(v->peak, peak, sizeof peak);
		fmt_percent(v->occupancy, occ, sizeof occ);
		top_fmt_si(v->energy_j, "J", energy, sizeof energy);
	}
	const char *cells[TOP_VCOL_COUNT] = { r, cfg, line == 0 ? v->status : "", time, gbps,
		                              flops, peak, occ, energy, n };
	put_row(buf, width, c, vcols, cells);
	return lines;
}

/* Configurations in order of their text, where runs of digits compare as
 * numbers: block_size_y=2 before block_size_y=16. */
int top_config_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			int d = strncmp(a, b, la);
			if (d)
				return d;
			a += la;
			b += lb;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++;
			b++;
		}
	}
	return (*a != 0) - (*b != 0);
}

int top_history_columns(int width)
{
	int n = width - 12 - 24;
	return n < 0 ? 0 : n > TOP_HISTORY_N ? TOP_HISTORY_N : n;
}

void top_format_meter_line(const top_model *m, int line, char *buf, int width)
{
	const top_meters *t = &m->meters;
	char s[512];
	if (line == 0) {
		char p50[16], p95[16], max[16];
		fmt_ms(t->compile_p50_ms, p50, sizeof p50);
		fmt_ms(t->compile_p95_ms, p95, sizeof p95);
		fmt_ms(t->compile_max_ms, max, sizeof max);
		char tiers[160];
		top_format_tiers(t->mem, t->disk, t->ptx, t->miss, tiers, sizeof tiers);
		/* the cache first: at 80 columns its miss share is the number that
		 * must show (the key one when nothing hits) */
		snprintf(s, sizeof s, "%s | compile p50 %s p95 %s max %s", tiers, p50, p95, max);
	} else {
		snprintf(s, sizeof s, "launches %.1f/s | compiles %lld/min | writers %lld | tuning "
		         "%lld active | dropped %lld", t->launches_per_s, (long long)t->compiles,
		         (long long)t->writers, (long long)t->active_runs, (long long)t->dropped);
	}
	put_line(buf, width, s);
}

void top_format_power(const char *name, double watts, const struct kjit_gpu_sensors *sensors,
                      const char *reason, char *out, size_t size)
{
	if (name && sensors)
		snprintf(out, size, "%s %.0f W %.0f C %.0f MHz", name, watts, sensors->temperature_c,
		         sensors->graphics_clock_mhz);
	else if (name)
		snprintf(out, size, "%s %.0f W", name, watts);
	else
		snprintf(out, size, "power: n/a (%s)", reason && *reason ? reason : "unknown");
}

void top_format_run_bar(const top_run *r, char *buf, int width)
{
	char eta[16], prog[48], head[96], tail[96];
	top_fmt_eta(r->eta_s, eta, sizeof eta);
	fmt_progress(r, prog, sizeof prog);
	snprintf(head, sizeof head, "run %lld %s ", (long long)r->id, r->kernel);
	double f = r->total > 0 ? (double)r->evaluated / (double)r->total : 0;
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	snprintf(tail, sizeof tail, " %s %3.0f%% ETA %s", prog, 100 * f, eta);
	int bar = width - (int)strlen(head) - (int)strlen(tail) - 2;
	if (bar < 5) {
		char s[200];
		snprintf(s, sizeof s, "%s%s", head, tail);
		put_line(buf, width, s);
		return;
	}
	if (bar > 40)
		bar = 40;
	char s[512];
	int n = snprintf(s, sizeof s, "%s[", head);
	int fill = (int)(f * bar + 0.5);
	for (int i = 0; i < bar; i++)
		s[n++] = i < fill ? '#' : '.';
	snprintf(s + n, sizeof s - (size_t)n, "]%s", tail);
	put_line(buf, width, s);
}

/* ---- sparklines and histograms ----------------------------------------------------- */

void top_spark_levels(const double *v, int n, int from_zero, int *levels)
{
	double lo = from_zero ? 0 : INFINITY, hi = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(v[i])) {
			lo = v[i] < lo ? v[i] : lo;
			hi = v[i] > hi ? v[i] : hi;
		}
	for (int i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			levels[i] = 0;
		else if (hi <= lo)
			levels[i] = from_zero ? 1 : 4; /* flat: all zero, or steady */
		else
			levels[i] = 1 + (int)lround(7 * (v[i] - lo) / (hi - lo));
	}
}

void top_histogram(const double *sorted, size_t n, int nbins, int *counts)
{
	for (int i = 0; i < nbins; i++)
		counts[i] = 0;
	if (!n || nbins <= 0)
		return;
	double lo = sorted[0], span = sorted[n - 1] - sorted[0];
	for (size_t i = 0; i < n; i++) {
		int b = span > 0 ? (int)((sorted[i] - lo) / span * nbins) : 0;
		counts[b < nbins ? b : nbins - 1]++;
	}
}

/* ---- the kernels table as shown ------------------------------------------------------ */

static const char *const sort_names[TOP_SORT_COUNT] = {
	"launches", "name", "hit rate", "compile", "recent time", "drift"
};

const char *top_sort_name(top_sort s)
{
	return s < TOP_SORT_COUNT ? sort_names[s] : "?";
}

static top_sort cur_sort;
static const top_kernel *cur_kernels;

/* Larger first; NAN always last. */
static int cmp_desc(double a, double b)
{
	int an = isnan(a), bn = isnan(b);
	if (an || bn)
		return an - bn;
	return (a < b) - (a > b);
}

static int cmp_view(const void *pa, const void *pb)
{
	const top_kernel *a = &cur_kernels[*(const size_t *)pa];
	const top_kernel *b = &cur_kernels[*(const size_t *)pb];
	int c = 0;
	switch (cur_sort) {
	case TOP_SORT_LAUNCHES: c = (a->launches < b->launches) - (a->launches > b->launches); break;
	case TOP_SORT_HIT: { /* worst hit rate first, NAN last */
		double x = hit_rate(a->mem, a->disk, a->ptx, a->miss),
		       y = hit_rate(b->mem, b->disk, b->ptx, b->miss);
		c = isnan(x) || isnan(y) ? isnan(x) - isnan(y) : (x > y) - (x < y);
		break;
	}
	case TOP_SORT_COMPILE: c = cmp_desc(a->compile_p50_ms, b->compile_p50_ms); break;
	case TOP_SORT_RECENT: c = cmp_desc(a->recent_ns, b->recent_ns); break;
	case TOP_SORT_DRIFT: c = cmp_desc(a->drift, b->drift); break;
	default: break;
	}
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->signature, b->signature);
	return c;
}

size_t top_view_kernels(const top_model *m, top_sort sort, const char *filter, size_t *idx)
{
	size_t n = 0;
	size_t flen = filter ? strlen(filter) : 0;
	for (size_t i = 0; i < m->n_kernels; i++) {
		const char *name = m->kernels[i].name;
		int keep = flen == 0;
		for (const char *p = name; !keep && *p; p++)
			keep = strncasecmp(p, filter, flen) == 0;
		if (keep)
			idx[n++] = i;
	}
	/* qsort has no context argument in C11: the comparison reads these */
	cur_sort = sort;
	cur_kernels = m->kernels;
	if (n > 1)
		qsort(idx, n, sizeof *idx, cmp_view);
	return n;
}
