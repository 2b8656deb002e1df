/*
 * results.c - tuning results written out (doc/DESIGN.md, "The store"): the
 * rows the record room reads (kjit_record_rows()) as CSV, JSON and T4,
 * and a profile's place against the device's peak.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "results.h"

void kt_profile_peak_text(const kjit_profile *p, char *buf, size_t size)
{
	double rate;
	const char *what;
	double f = kjit_profile_peak(p, &rate, &what);
	const char *unit = what && strcmp(what, "DRAM") == 0 ? "B/s" : "FLOP/s";
	static const char *const prefixes[] = { "", "k", "M", "G", "T", "P", "E" };
	int k = 0;
	for (; k < 6 && rate >= 1000; k++)
		rate /= 1000;
	if (isnan(f))
		snprintf(buf, size, "%s", "");
	else
		snprintf(buf, size, "%.3g %s%s %s, %.0f%% of peak", rate, prefixes[k], unit, what,
		         f * 100);
}

/* ---- export ------------------------------------------------------------------ */

/* A number divided by per (a time in ns to another unit, with one
 * correctly rounded division); null for NULL (NAN) and for what JSON
 * cannot hold (an infinity another writer stored). */
static void put_num(FILE *f, double v, double per)
{
	v /= per;
	if (!isfinite(v))
		fputs("null", f);
	else
		fprintf(f, "%.17g", v);
}

static void put_csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
}

/* 1 when a spreadsheet could read t as a formula: it starts with =, +, -,
 * @, a tab or a carriage return (OWASP's CSV injection list) and is not a
 * plain number; also when it starts with a single quote, so that the mark
 * is always one to drop (kt_replay_load drops it). */
static int csv_formula(const char *t)
{
	if (t[0] == '\'')
		return 1;
	if (!t[0] || !strchr("=+-@\t\r", t[0]))
		return 0;
	char *end;
	strtod(t, &end);
	return end == t || *end;
}

/* A CSV field: quoted when it holds a comma or a quote; line breaks become
 * spaces, so that one result is one line (kt_replay_load reads lines); a
 * possible formula after a single quote. */
static void put_csv_text(FILE *f, const char *t)
{
	if (!t)
		return;
	int quote = strpbrk(t, ",\"") != NULL;
	if (quote)
		fputc('"', f);
	if (csv_formula(t))
		fputc('\'', f);
	for (; *t; t++) {
		if (*t == '"')
			fputc('"', f);
		fputc(*t == '\n' || *t == '\r' ? ' ' : *t, f);
	}
	if (quote)
		fputc('"', f);
}

/* A row's samples as a JSON array, each divided by per. */
static void put_samples(FILE *f, const kjit_record_row *r, double per)
{
	fputc('[', f);
	for (size_t i = 0; i < r->n_blob; i++)
		fprintf(f, "%s%.17g", i ? "," : "", r->samples[i] / per);
	fputc(']', f);
}

/* T4's invalidity for a status (the schema's enum): stopped_early was
 * verified and measured, only cut short as certainly slow. */
static const char *t4_invalidity(const char *text)
{
	kjit_result_status status;
	if (!text)
		return "correct";
	if (kjit_result_status_parse(text, &status) != KJIT_OK)
		return "runtime";
	switch (status) {
	case KJIT_RESULT_OK:
	case KJIT_RESULT_STOPPED_EARLY:
		return "correct";
	case KJIT_RESULT_COMPILE_ERROR:
		return "compile";
	case KJIT_RESULT_WRONG_RESULT:
		return "correctness";
	case KJIT_RESULT_TIMEOUT:
		return "timeout";
	case KJIT_RESULT_LAUNCH_ERROR:
	case KJIT_RESULT_CRASHED:
		break;
	}
	return "runtime";
}

/* A time unit of T1's General.TimeUnit: its names and its size in ns. */
typedef struct t4_unit {
	const char *abbrev, *name;
	double ns;
} t4_unit;

static t4_unit t4_unit_of(const kjit__spec *spec)
{
	static const t4_unit units[] = { { "ns", "nanoseconds", 1 }, { "us", "microseconds", 1e3 },
		                         { "ms", "milliseconds", 1e6 }, { "s", "seconds", 1e9 } };
	const char *u = spec && spec->time_unit ? spec->time_unit : "ms";
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (strcmp(u, units[i].abbrev) == 0)
			return units[i];
	return units[2];
}

/* ISO 8601 in UTC, as Python's isoformat() writes it; no time (NULL) is
 * the epoch. */
static void put_timestamp(FILE *f, double t)
{
	if (!isfinite(t))
		t = 0;
	time_t sec = (time_t)floor(t);
	struct tm tm;
	char text[64];
	int ms = (int)((t - floor(t)) * 1000);
	if (!gmtime_r(&sec, &tm) || !strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(text, sizeof text, "1970-01-01T00:00:00");
	fprintf(f, "\"%s.%03d+00:00\"", text, ms > 999 ? 999 : ms);
}

static void put_json_text(FILE *f, const char *t)
{
	kjit__buf b = { 0 };
	kjit__buf_json_str(&b, t ? t : "");
	fputs(b.oom ? "\"\"" : b.p, f);
	free(b.p);
}

static void put_json_text_or_null(FILE *f, const char *t)
{
	if (t)
		put_json_text(f, t);
	else
		fputs("null", f);
}

/* T4's metadata: Kernel Tuner's timeunit, and the metadata schema's
 * hardware and environment (device_query from the device key
 * "arch|name|SMs|driver"). */
static void t4_metadata(FILE *f, const t4_unit *u, int64_t run_id, const char *sig,
                        const char *dev)
{
	struct utsname un;
	fprintf(f, "\"metadata\":{\"timeunit\":\"%s\",\"tool\":\"kjit-tune\",\"tool_version\":\""
	        PACKAGE_VERSION "\",\"signature\":", u->name);
	put_json_text(f, sig);
	fputs(",\"device_key\":", f);
	put_json_text(f, dev);
	if (run_id > 0)
		fprintf(f, ",\"run_id\":%lld", (long long)run_id);
	fputs(",\"hardware\":{\"operating_system\":", f);
	put_json_text(f, uname(&un) == 0 ? un.sysname : "unidentified OS");
	fputs("},\"environment\":{\"device_query\":{", f);
	static const char *const fields[] = { "arch", "name", "multiprocessors", "driver" };
	const char *p = dev ? dev : "";
	for (size_t i = 0; i < 4 && *p; i++) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		char *part = strndup(p, len);
		fprintf(f, "%s\"%s\":", i ? "," : "", fields[i]);
		put_json_text(f, part);
		free(part);
		p += len + (bar != NULL);
	}
	fprintf(f, "},\"requirements\":[\"libkjit==%s\"]}}", kjit_version());
}

/* CSV: every figure, then the reasons; empty fields without a profile. */
static void put_profile_csv(FILE *f, const kjit_record_row *r)
{
	size_t n;
	kjit_profile_fields(&n);
	for (size_t i = 0; i < n; i++) {
		fputc(',', f);
		put_csv_num(f, r->figures[i]);
	}
	fputc(',', f);
	put_csv_text(f, r->counters_reason);
	fputc(',', f);
	put_csv_text(f, r->energy_reason);
}

/* JSON and T4: the figures and reasons a profile has, each as
 * "NAME":value (JSON's object) or as a measurement {name, value, unit}
 * (T4's list), after a comma; nothing without a profile. */
static void put_profile(FILE *f, const kjit_record_row *r, int t4)
{
	if (!r->has_profile)
		return;
	size_t n;
	const kjit_profile_field *fd = kjit_profile_fields(&n);
	const char *sep = ",";
	if (!t4) {
		fputs(",\"profile\":{", f);
		sep = "";
	}
	for (size_t i = 0; i < n; i++) {
		if (isnan(r->figures[i]))
			continue;
		fprintf(f, t4 ? "%s{\"name\":\"%s\",\"value\":" : "%s\"%s\":", sep, fd[i].name);
		put_num(f, r->figures[i], 1);
		if (t4)
			fprintf(f, ",\"unit\":\"%s\"}", fd[i].unit);
		sep = ",";
	}
	static const char *const names[] = { KJIT__C_COUNTERS_REASON, KJIT__C_ENERGY_REASON };
	const char *const reasons[] = { r->counters_reason, r->energy_reason };
	for (int k = 0; k < 2; k++) {
		if (!reasons[k])
			continue;
		fprintf(f, t4 ? "%s{\"name\":\"%s\",\"value\":" : "%s\"%s\":", sep, names[k]);
		put_json_text(f, reasons[k]);
		if (t4)
			fputs(",\"unit\":\"\"}", f);
		sep = ",";
	}
	if (!t4)
		fputc('}', f);
}

/* One result in T4 (results-schema.json 1.0.0), times in the unit. */
static void t4_result(FILE *f, const kjit_record_row *r, const t4_unit *u)
{
	const char *inv = t4_invalidity(r->status);
	fputs("{\"timestamp\":", f);
	put_timestamp(f, r->created);
	fprintf(f, ",\"configuration\":%s,\"problem\":%s,\"objectives\":[\"time\"],\"times\":{",
	        r->config ? r->config : "{}", r->problem ? r->problem : "{}");
	if (!isnan(r->compile_ms)) {
		fputs("\"compilation_time\":", f);
		/* ms to ns exactly, then to the unit */
		fprintf(f, "%.17g", r->compile_ms * 1e6 / u->ns);
		fputc(',', f);
	}
	fputs("\"runtimes\":", f);
	put_samples(f, r, u->ns);
	fprintf(f, "},\"invalidity\":\"%s\",\"correctness\":%d,\"measurements\":[", inv,
	        strcmp(inv, "correctness") != 0);
	if (!isnan(r->median_ns)) {
		fputs("{\"name\":\"time\",\"value\":", f);
		put_num(f, r->median_ns, u->ns);
		fprintf(f, ",\"unit\":\"%s\"},", u->abbrev);
	}
	fputs("{\"name\":\"status\",\"value\":", f);
	put_json_text(f, r->status);
	fputs(",\"unit\":\"\"},{\"name\":\"l2\",\"value\":", f);
	put_json_text(f, r->l2 ? r->l2 : "warm");
	fputs(",\"unit\":\"\"}", f);
	put_profile(f, r, 1);
	fputs("]}", f);
}


static void put_csv_header(FILE *f, const kjit__spec *spec, size_t np)
{
	for (size_t i = 0; i < np; i++)
		fprintf(f, "%s,", spec->params[i].name);
	if (!np)
		fputs("config,", f);
	/* the device and profile columns last: a reader that knows the columns
	 * before them by position still finds them there (--replay reads by
	 * name) */
	fputs("time,status,l2,timer,median_ns,spread_ns,min_ns,max_ns,n_samples,"
	      "compile_ms,message,device_ordinal,device_uuid", f);
	size_t n;
	const kjit_profile_field *fd = kjit_profile_fields(&n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, ",%s", fd[i].name);
	fputs("," KJIT__C_COUNTERS_REASON "," KJIT__C_ENERGY_REASON "\n", f);
}

static void put_csv_row(FILE *f, const kjit_record_row *r, size_t np)
{
	for (size_t i = 0; i < np; i++) {
		put_csv_text(f, r->values[i]);
		fputc(',', f);
	}
	if (!np) {
		put_csv_text(f, r->config);
		fputc(',', f);
	}
	if (r->status && strcmp(r->status, "ok") == 0)
		put_csv_num(f, r->objective);
	fputc(',', f);
	put_csv_text(f, r->status);
	fputc(',', f);
	put_csv_text(f, r->l2);
	fputc(',', f);
	put_csv_text(f, r->timer);
	const double nums[] = { r->median_ns, r->spread_ns, r->min_ns, r->max_ns, r->n_samples,
		                r->compile_ms };
	for (size_t k = 0; k < sizeof nums / sizeof *nums; k++) {
		fputc(',', f);
		put_csv_num(f, nums[k]);
	}
	fputc(',', f);
	put_csv_text(f, r->message);
	fputc(',', f);
	put_csv_num(f, r->device_ordinal);
	fputc(',', f);
	put_csv_text(f, r->device_uuid);
	put_profile_csv(f, r);
	fputc('\n', f);
}

static void put_json_row(FILE *f, const kjit_record_row *r)
{
	fprintf(f, "{\"id\":%lld,\"run_id\":", (long long)r->id);
	put_num(f, r->run_id, 1);
	fputs(",\"signature\":", f);
	put_json_text(f, r->signature);
	fputs(",\"device_key\":", f);
	put_json_text(f, r->device_key);
	fputs(",\"device_ordinal\":", f);
	put_num(f, r->device_ordinal, 1);
	fputs(",\"device_uuid\":", f);
	put_json_text_or_null(f, r->device_uuid);
	fprintf(f, ",\"problem\":%s,\"config\":%s,\"status\":", r->problem ? r->problem : "null",
	        r->config ? r->config : "null");
	put_json_text(f, r->status);
	const char *const texts[] = { r->timer, r->l2 };
	static const char *const text_names[] = { "timer", "l2" };
	for (int k = 0; k < 2; k++) {
		fprintf(f, ",\"%s\":", text_names[k]);
		put_json_text_or_null(f, texts[k]);
	}
	const double nums[] = { r->median_ns, r->spread_ns, r->min_ns, r->max_ns, r->n_samples };
	static const char *const names[] = { "median_ns", "spread_ns", "min_ns", "max_ns",
		                             "n_samples" };
	for (int k = 0; k < 5; k++) {
		fprintf(f, ",\"%s\":", names[k]);
		put_num(f, nums[k], 1);
	}
	fputs(",\"samples_ns\":", f);
	put_samples(f, r, 1);
	fputs(",\"objective\":", f);
	put_num(f, r->objective, 1);
	fputs(",\"compile_ms\":", f);
	put_num(f, r->compile_ms, 1);
	fputs(",\"message\":", f);
	put_json_text_or_null(f, r->message);
	fputs(",\"created\":", f);
	put_num(f, r->created, 1);
	put_profile(f, r, 0);
	fputc('}', f);
}

/* An export as the record room hands it its rows: the head at begin,
 * each row as it comes; begun once the head is out. */
typedef struct export {
	FILE *f;
	const kjit__spec *spec;
	int64_t run_id;
	kt_export_format format;
	t4_unit unit;
	int begun, first;
} export;

static void export_begin(void *ctx, const char *signature, const char *device_key)
{
	export *x = ctx;
	x->begun = 1;
	if (x->format == KT_EXPORT_CSV) {
		put_csv_header(x->f, x->spec, x->spec ? x->spec->n_params : 0);
	} else if (x->format == KT_EXPORT_JSON) {
		fputs("{\"format\":\"kjit-results\",\"version\":1,\"results\":[", x->f);
	} else {
		fputs("{\"schema_version\":\"1.0.0\",", x->f);
		t4_metadata(x->f, &x->unit, x->run_id, signature, device_key);
		fputs(",\"results\":[", x->f);
	}
}

static void export_row(void *ctx, const kjit_record_row *r)
{
	export *x = ctx;
	if (x->format == KT_EXPORT_CSV) {
		put_csv_row(x->f, r, x->spec ? x->spec->n_params : 0);
		return;
	}
	fputs(x->first ? "\n" : ",\n", x->f);
	x->first = 0;
	if (x->format == KT_EXPORT_T4)
		t4_result(x->f, r, &x->unit);
	else
		put_json_row(x->f, r);
}

kjit_status kt_results_export(kjit_records *rec, const kjit__spec *spec, int64_t run_id,
                              const char *signature, const char *device_key,
                              const char *const *problems, size_t n_problems,
                              kt_export_format format, FILE *f)
{
	export x = { f, spec, run_id, format, t4_unit_of(spec), 0, 1 };
	kjit_record_query q = { run_id, signature, device_key, problems, n_problems, spec };
	kjit_record_reader reader = { export_begin, export_row, &x };
	kjit_status st = kjit_record_rows(rec, &q, &reader);
	if (x.begun && format != KT_EXPORT_CSV)
		fputs(x.first ? "]}\n" : "\n]}\n", f);
	if (st == KJIT_OK && ferror(f))
		st = kjit__error(KJIT_ERR_IO, "writing the export: %s", "output error");
	return st;
}

typedef struct t4_file {
	kjit_records *rec;
	const kjit__spec *spec;
	const char *signature, *device_key;
	const char *const *problems;
	size_t n_problems;
} t4_file;

static kjit_status write_t4(FILE *f, void *ctx)
{
	t4_file *t = ctx;
	return kt_results_export(t->rec, t->spec, 0, t->signature, t->device_key, t->problems,
	                         t->n_problems, KT_EXPORT_T4, f);
}

kjit_status kt_results_write_t4(kjit_records *rec, const kjit__spec *spec,
                                const char *signature, const char *device_key,
                                const char *const *problems, size_t n_problems,
                                const char *path)
{
	t4_file t = { rec, spec, signature, device_key, problems, n_problems };
	return kjit__write_replace(path, "OutputFile", write_t4, &t);
}
