/*
 * output.c - the snapshots of --once (text, the same rows as the screen)
 * and --json. Both print only what the model holds, so with $KJIT_TOP_NOW
 * they are reproducible byte for byte.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui.h"

/* ---- text --------------------------------------------------------------------- */

static void print_row(FILE *f, const char *row)
{
	/* rows are padded to the width: trailing blanks would only make noise */
	size_t n = strlen(row);
	while (n && row[n - 1] == ' ')
		n--;
	fprintf(f, "%.*s\n", (int)n, row);
}

static void print_spark(FILE *f, const top_model *m, top_series which, const char *label,
                        int n)
{
	static const char ascii[] = " _.-:=+*#";
	double v[TOP_HISTORY_N];
	int lv[TOP_HISTORY_N];
	top_history_series(&m->history, which, m->now, v, n);
	top_spark_levels(v, n, which == TOP_SERIES_COMPILES, lv);
	double max = NAN, last = NAN;
	for (int i = 0; i < n; i++)
		if (isfinite(v[i])) {
			max = isnan(max) || v[i] > max ? v[i] : max;
			last = v[i];
		}
	fprintf(f, "  %-12s|", label);
	for (int i = 0; i < n; i++)
		fputc(ascii[lv[i]], f);
	char a[24], b[24];
	if (which == TOP_SERIES_KERNEL_NS) {
		top_fmt_ns(last, a, sizeof a);
		top_fmt_ns(max, b, sizeof b);
	} else if (which == TOP_SERIES_HIT_RATE) {
		snprintf(a, sizeof a, isnan(last) ? "-" : "%.1f%%", 100 * last);
		snprintf(b, sizeof b, isnan(max) ? "-" : "%.1f%%", 100 * max);
	} else {
		snprintf(a, sizeof a, isnan(last) ? "-" : "%.2f", last);
		snprintf(b, sizeof b, isnan(max) ? "-" : "%.2f", max);
	}
	fprintf(f, "| now %s max %s\n", a, b);
}

void top_print_text(FILE *f, const top_model *m, int width)
{
	if (width < TOP_MIN_COLS)
		width = TOP_MIN_COLS;
	if (width > 400)
		width = 400;
	char row[401];
	char when[64];
	time_t t = (time_t)m->now;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(f, "kjit-top %s | %s | %s\n", PACKAGE_VERSION, m->path, when);
	for (int line = 0; line < 2; line++) {
		top_format_meter_line(m, line, row, width);
		print_row(f, row);
	}
	for (size_t i = 0; i < m->n_runs; i++)
		if (strcmp(m->runs[i].status, KJIT__RUN_RUNNING) == 0) {
			top_format_run_bar(&m->runs[i], row, width);
			print_row(f, row);
		}

	int n = width - 40;
	n = n > TOP_HISTORY_N ? TOP_HISTORY_N : n;
	fprintf(f, "\nhistory (last %d s, %d s a column):\n", n * TOP_HISTORY_BUCKET_S,
	        TOP_HISTORY_BUCKET_S);
	print_spark(f, m, TOP_SERIES_COMPILES, "compiles/s", n);
	print_spark(f, m, TOP_SERIES_HIT_RATE, "hit rate", n);
	print_spark(f, m, TOP_SERIES_KERNEL_NS, "kernel time", n);

	size_t *idx = malloc((m->n_kernels + 1) * sizeof *idx);
	size_t nk = idx ? top_view_kernels(m, TOP_SORT_LAUNCHES, NULL, idx) : 0;
	int stale = 0;
	fprintf(f, "\nkernels (%zu, by launches in the last minute):\n", nk);
	top_columns c;
	top_kernel_columns(width, &c);
	top_format_kernel(NULL, &c, row, width);
	print_row(f, row);
	for (size_t i = 0; i < nk; i++) {
		const top_kernel *k = &m->kernels[idx[i]];
		stale |= k->has_best && k->stale;
		top_format_kernel(k, &c, row, width);
		print_row(f, row);
	}
	/* the configurations the table cuts, whole */
	for (size_t i = 0; i < nk; i++)
		if (top_kernel_config_cut(&m->kernels[idx[i]], &c)) {
			top_format_kernel_best(&m->kernels[idx[i]], row, width);
			print_row(f, row);
		}
	free(idx);

	if (m->n_runs) {
		fprintf(f, "\ntuning runs (%zu):\n", m->n_runs);
		top_run_columns(width, &c);
		top_format_run(NULL, &c, row, width);
		print_row(f, row);
		for (size_t i = 0; i < m->n_runs; i++) {
			const top_run *r = &m->runs[i];
			top_format_run(r, &c, row, width);
			print_row(f, row);
			size_t lines = top_run_device_lines(m, r);
			for (size_t k = 0; k < lines; k++) {
				top_format_run_device(&m->devices[r->first_device + k], m->now, row, width);
				print_row(f, row);
			}
		}
	}
	/* the footnote in two lines where one would pass the width */
	static const char stale1[] = "* stale: the best configuration now runs slower than stored,",
	                  stale2[] = "or was tuned with another toolkit";
	if (stale && (int)(sizeof stale1 + sizeof stale2) - 1 <= width)
		fprintf(f, "\n%s %s\n", stale1, stale2);
	else if (stale)
		fprintf(f, "\n%s\n  %s\n", stale1, stale2);
}

/* ---- JSON ---------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fputs("null", f);
}

static void json_series(FILE *f, const top_model *m, top_series which)
{
	double v[TOP_HISTORY_N];
	top_history_series(&m->history, which, m->now, v, TOP_HISTORY_N);
	fputc('[', f);
	for (int i = 0; i < TOP_HISTORY_N; i++) {
		if (i)
			fputc(',', f);
		json_num(f, v[i]);
	}
	fputc(']', f);
}

static void json_by_status(FILE *f, const int64_t *by_status)
{
	fputc('{', f);
	for (int s = 0; s < KJIT__RS_COUNT; s++)
		fprintf(f, "%s\"%s\":%lld", s ? "," : "",
		        kjit_result_status_name((kjit_result_status)s), (long long)by_status[s]);
	fputc('}', f);
}

/* Every device entry of the run, the unknown one included: the screen
 * leaves out what tells nothing apart, the data does not. */
static void json_devices(FILE *f, const top_model *m, const top_run *r)
{
	fputc('[', f);
	for (size_t i = 0; i < r->n_devices; i++) {
		const top_run_device *d = &m->devices[r->first_device + i];
		fprintf(f, "%s{\"ordinal\":", i ? "," : "");
		if (d->ordinal >= 0)
			fprintf(f, "%lld", (long long)d->ordinal);
		else
			fputs("null", f);
		fprintf(f, ",\"uuid\":");
		if (d->uuid[0])
			json_str(f, d->uuid);
		else
			fputs("null", f);
		fprintf(f, ",\"evaluated\":%lld,\"by_status\":", (long long)d->evaluated);
		json_by_status(f, d->by_status);
		fprintf(f, ",\"best_ns\":");
		json_num(f, d->best_ns);
		fprintf(f, ",\"last_result\":");
		json_num(f, d->last);
		fputc('}', f);
	}
	fputc(']', f);
}

static double rate(int64_t hits, int64_t all)
{
	return all ? (double)hits / (double)all : NAN;
}

void top_print_json(FILE *f, const top_model *m)
{
	const top_meters *t = &m->meters;
	fprintf(f, "{\"version\":");
	json_str(f, PACKAGE_VERSION);
	fprintf(f, ",\"database\":");
	json_str(f, m->path);
	fprintf(f, ",\"now\":");
	json_num(f, m->now);
	fprintf(f, ",\n\"meters\":{\"compile_ms\":{\"count\":%lld,\"p50\":", (long long)t->compiles);
	json_num(f, t->compile_p50_ms);
	fprintf(f, ",\"p95\":");
	json_num(f, t->compile_p95_ms);
	fprintf(f, ",\"max\":");
	json_num(f, t->compile_max_ms);
	fprintf(f, "},\"cache\":{\"memory\":%lld,\"disk\":%lld,\"ptx\":%lld,\"miss\":%lld,"
	        "\"hit_rate\":", (long long)t->mem, (long long)t->disk, (long long)t->ptx,
	        (long long)t->miss);
	json_num(f, rate(t->mem + t->disk + t->ptx, t->mem + t->disk + t->ptx + t->miss));
	fprintf(f, "},\"launches_per_s\":");
	json_num(f, t->launches_per_s);
	fprintf(f, ",\"writers\":%lld,\"dropped\":%lld,\"active_runs\":%lld},\n",
	        (long long)t->writers, (long long)t->dropped, (long long)t->active_runs);
	fprintf(f, "\"history\":{\"bucket_s\":%d,\"compiles_per_s\":", TOP_HISTORY_BUCKET_S);
	json_series(f, m, TOP_SERIES_COMPILES);
	fprintf(f, ",\n\"hit_rate\":");
	json_series(f, m, TOP_SERIES_HIT_RATE);
	fprintf(f, ",\n\"kernel_ns\":");
	json_series(f, m, TOP_SERIES_KERNEL_NS);
	fprintf(f, "},\n\"kernels\":[");
	for (size_t i = 0; i < m->n_kernels; i++) {
		const top_kernel *k = &m->kernels[i];
		fprintf(f, "%s\n{\"name\":", i ? "," : "");
		json_str(f, k->name);
		fprintf(f, ",\"signature\":");
		json_str(f, k->signature);
		fprintf(f, ",\"launches\":%lld,\"cache\":{\"memory\":%lld,\"disk\":%lld,"
		        "\"ptx\":%lld,\"miss\":%lld},\"hit_rate\":", (long long)k->launches,
		        (long long)k->mem, (long long)k->disk, (long long)k->ptx, (long long)k->miss);
		json_num(f, rate(k->mem + k->disk + k->ptx, k->mem + k->disk + k->ptx + k->miss));
		fprintf(f, ",\"compile_p50_ms\":");
		json_num(f, k->compile_p50_ms);
		fprintf(f, ",\"best\":");
		if (k->has_best) {
			fprintf(f, "{\"config\":");
			json_str(f, k->best_config);
			fprintf(f, ",\"median_ns\":");
			json_num(f, k->best_ns);
			fprintf(f, ",\"stale\":%s}", k->stale ? "true" : "false");
		} else {
			fputs("null", f);
		}
		fprintf(f, ",\"recent_ns\":");
		json_num(f, k->recent_ns);
		fprintf(f, ",\"drift\":");
		json_num(f, k->drift);
		fputc('}', f);
	}
	fprintf(f, "],\n\"runs\":[");
	for (size_t i = 0; i < m->n_runs; i++) {
		const top_run *r = &m->runs[i];
		fprintf(f, "%s\n{\"id\":%lld,\"kernel\":", i ? "," : "", (long long)r->id);
		json_str(f, r->kernel);
		fprintf(f, ",\"strategy\":");
		json_str(f, r->strategy);
		fprintf(f, ",\"status\":");
		json_str(f, r->status);
		fprintf(f, ",\"evaluated\":%lld,\"total\":", (long long)r->evaluated);
		if (r->total >= 0)
			fprintf(f, "%lld", (long long)r->total);
		else
			fputs("null", f);
		fprintf(f, ",\"by_status\":");
		json_by_status(f, r->by_status);
		fprintf(f, ",\"best_ns\":");
		json_num(f, r->best_ns);
		fprintf(f, ",\"eta_s\":");
		json_num(f, r->eta_s);
		fprintf(f, ",\"started\":");
		json_num(f, r->started);
		fprintf(f, ",\"updated\":");
		json_num(f, r->updated);
		fprintf(f, ",\"devices\":");
		json_devices(f, m, r);
		fputc('}', f);
	}
	fprintf(f, "]}\n");
}
