/*
 * tui.h - internal header of kjit-top: the data model (model.c, reads the
 * database into plain structs), the layout (layout.c, pure functions from
 * terminal size and model to rectangles and text rows) and the drawing
 * (draw.c, ncurses). Only draw.c and main.c touch the terminal, so the
 * model and the layout are unit-tested without one.
 */
#ifndef KJIT_TUI_H
#define KJIT_TUI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "store_schema.h"

/* ---- windows of time ------------------------------------------------------ */

#define TOP_METER_WINDOW_S 60.0    /* meters and the kernels table */
#define TOP_HISTORY_BUCKET_S 5     /* one sparkline column */
#define TOP_HISTORY_N 120          /* 10 minutes of buckets: history, compile p50 */
#define TOP_RUN_RECENT_S 600.0     /* finished runs stay listed this long */
/* A database's figures may be hostile or damaged (model.c): a count
 * beyond 0..TOP_COUNT_MAX reads as 0 (2^30 a row: the sums of the rows
 * kept in memory cannot overflow), a time beyond 0..TOP_TIME_MAX (the
 * end of the year 9999) as unknown, a time that is not positive as
 * unknown. */
#define TOP_COUNT_MAX ((int64_t)1 << 30)
#define TOP_TIME_MAX 253402300799.0

/* The wall clock, or $KJIT_TOP_NOW (Unix seconds): a testing hook that
 * makes every window, ETA and the clock in the header reproducible. */
double top_now(void);

/* ---- the model (model.c) --------------------------------------------------- */

typedef enum top_db_state {
	TOP_DB_OK = 0,
	TOP_DB_MISSING, /* no file yet */
	TOP_DB_EMPTY,   /* a file with no schema yet */
	TOP_DB_FOREIGN, /* not a kjit database */
	TOP_DB_SCHEMA,  /* a schema version this kjit-top does not read */
	TOP_DB_REFUSED, /* a path that names no file (a URI): none will come */
	TOP_DB_ERROR    /* any other failure: message says which */
} top_db_state;

typedef struct top_meters {
	double compile_p50_ms, compile_p95_ms, compile_max_ms; /* NAN: no compile */
	int64_t compiles;
	int64_t mem, disk, ptx, miss; /* cache lookups by tier */
	double launches_per_s;
	int64_t writers;           /* processes that wrote events */
	int64_t dropped;           /* events the writers dropped */
	int64_t active_runs;
} top_meters;

/* One 5 s bucket of history; index = floor(ts / 5), -1 when empty. */
typedef struct top_bucket {
	int64_t index;
	double compiles, hits, lookups, launches;
	double kernel_ns_sum, kernel_ns_n;
} top_bucket;

/* The ring: slot index % TOP_HISTORY_N, counted again at each frame from
 * the model's cache of the window's events. */
typedef struct top_history {
	top_bucket b[TOP_HISTORY_N];
} top_history;

typedef enum top_series {
	TOP_SERIES_COMPILES = 0, /* compiles per second */
	TOP_SERIES_HIT_RATE,     /* cache hits / lookups, 0..1 */
	TOP_SERIES_KERNEL_NS,    /* mean of the timed launch samples */
	TOP_SERIES_COUNT
} top_series;

/* The last n buckets ending at the bucket of now, oldest first, into
 * out[n]; NAN where a bucket has nothing to say. */
void top_history_series(const top_history *h, top_series which, double now, double *out,
                        int n);

typedef struct top_kernel {
	char signature[33];
	char name[64];
	int64_t launches;          /* in the last minute */
	int64_t mem, disk, ptx, miss; /* lookups in the last minute */
	double compile_p50_ms;     /* last 10 minutes; NAN: none */
	int has_best;
	char best_config[128];     /* JSON as stored */
	double best_ns;
	int stale;
	double recent_ns;          /* median of the timed launches of the last minute */
	double drift;              /* recent / best - 1; NAN when either is missing */
} top_kernel;

/* The results of a run that one device measured; one entry for the
 * results that name no device (from before devices were recorded, or a
 * compile error that reached none). */
typedef struct top_run_device {
	int64_t ordinal;           /* -1: unknown */
	char uuid[64];             /* "GPU-..."; "": unknown */
	int64_t evaluated;         /* its results of the run (as top_run.evaluated counts) */
	int64_t by_status[KJIT__RS_COUNT];
	double best_ns;            /* its best ok median; NAN: none */
	double last;               /* when its latest result was stored */
} top_run_device;

typedef struct top_run {
	int64_t id;
	char kernel[64], strategy[32], status[16];
	int64_t total;             /* -1: unknown */
	int64_t evaluated;
	int64_t by_status[KJIT__RS_COUNT]; /* results by kjit_result_status */
	double best_ns;            /* best ok median so far; NAN: none */
	double eta_s;              /* running runs at the rate so far; NAN: unknown */
	double started, updated;
	size_t first_device, n_devices; /* top_model.devices[first_device..], by ordinal,
	                                 * the unknown device last */
} top_run;

typedef struct top_variant {
	char config[128];          /* JSON of a result, or the -D options of a binary */
	char status[16];           /* a result status, "cached" or "evicted" */
	int failed;                /* a result with a status other than ok */
	double median_ns;          /* NAN: not timed */
	int64_t n_samples;
	int64_t result_id;         /* 0: a binary, not a tuning result */
	char key[33];              /* binary key of a cached binary */
	/* its stored profile (the profiles table), NAN where unknown */
	int has_profile;
	double dram_bytes_per_s;
	double flop_per_s;
	double peak;               /* the larger of DRAM and FLOP rate as a fraction of
	                            * the device's peak (kjit_profile_peak) */
	double occupancy;          /* achieved, 0..1 */
	double energy_j;           /* per launch */
} top_variant;

typedef struct top_detail {
	char signature[33];
	char name[64];
	top_variant *v;            /* sorted by median time, untimed last */
	size_t n_v;
	int has_profiles;          /* a variant has a profile: the table shows them */
	size_t sel;                /* the variant whose samples are loaded */
	double *samples;           /* ns, sorted */
	size_t n_samples;
	char rule[320];            /* the selection rule in force */
	int64_t mem, disk, ptx, miss; /* the kernel's lookups in the last minute */
} top_detail;

typedef struct top_model {
	char *path;
	sqlite3 *db;
	sqlite3_stmt *st[16];       /* prepared once per connection */
	top_db_state state;
	char message[512];          /* why the state is not TOP_DB_OK */
	int64_t data_version;
	int64_t window_bucket;      /* meters follow the clock at this step too */
	double now;                 /* of the last query */

	/* The events of the last 10 minutes, each read from the database once
	 * (model.c): a frame reads only the rows committed since the last. */
	struct top_ev *ev;
	size_t n_ev, cap_ev;
	int64_t last_id;            /* the largest id read; -1: nothing yet */
	struct top_key *keys;       /* (signature, kernel) of the events */
	size_t n_keys, cap_keys;
	struct kjit__table *key_index; /* keys by value: index + 1 */

	top_meters meters;
	top_history history;
	top_kernel *kernels;
	size_t n_kernels, cap_kernels;
	top_run *runs;
	size_t n_runs, cap_runs;
	top_run_device *devices;    /* of every run, each run's in one stretch */
	size_t n_devices, cap_devices;
	top_detail detail;

	double build_ms;            /* the last frame's queries */
} top_model;

/* Sets the model up for path (malloc'ed copy); opens nothing yet. */
void top_model_init(top_model *m, const char *path);
void top_model_close(top_model *m);

/*
 * Brings the model to time now: (re)opens the database when needed,
 * checks PRAGMA data_version and re-queries in one read transaction when
 * it changed, when the 5 s window moved, or when force. Returns 1 when
 * queried, 0 when nothing changed, -1 when the database cannot be read
 * (m->state and m->message say why; the next call tries again).
 */
int top_model_refresh(top_model *m, double now, int force);

/* Loads the detail of one kernel (its variants, and the samples of
 * variant sel, clamped). Returns 0, or -1 with m->message. */
int top_model_load_detail(top_model *m, const char *signature, size_t sel, double now);

/* p in [0, 1] of sorted[n] (nearest rank); NAN when n == 0. */
double top_percentile(const double *sorted, size_t n, double p);

/* ---- the layout (layout.c) -------------------------------------------------- */

typedef struct top_rect {
	int y, x, h, w;
} top_rect;

typedef enum top_view_kind { TOP_VIEW_MAIN = 0, TOP_VIEW_DETAIL, TOP_VIEW_HELP } top_view_kind;

#define TOP_MIN_COLS 50
#define TOP_MIN_ROWS 12
#define TOP_MAX_RUN_LINES 3 /* progress bars in the header */
#define TOP_MAX_RUN_ROWS 10 /* rows of the runs table, its devices' included */

typedef struct top_layout {
	int rows, cols;
	int too_small;
	top_rect header, history, kernels, runs, status; /* main view */
	top_rect variants, histogram;                     /* detail view (and header, status) */
	top_rect help;
	int run_lines; /* progress bars in the header */
} top_layout;

/* Rectangles for a terminal of rows x cols; empty ones have h == 0.
 * run_rows: the rows the runs table would show (top_run_rows). */
void top_layout_compute(int rows, int cols, top_view_kind view, size_t active_runs,
                        size_t run_rows, top_layout *out);

/* The device lines shown under run r: one per device of a running run,
 * none when no result of it names a device (nothing to tell apart). */
size_t top_run_device_lines(const top_model *m, const top_run *r);
/* The rows of the runs table: every run and its device lines. */
size_t top_run_rows(const top_model *m);

/* Table columns. A column of width 0 is hidden (too narrow a screen). */
typedef enum top_kcol {
	TOP_KCOL_NAME = 0, TOP_KCOL_LAUNCHES, TOP_KCOL_HIT, TOP_KCOL_COMPILE, TOP_KCOL_CONFIG,
	TOP_KCOL_BEST, TOP_KCOL_RECENT, TOP_KCOL_DRIFT, TOP_KCOL_COUNT
} top_kcol;

typedef enum top_rcol {
	TOP_RCOL_ID = 0, TOP_RCOL_KERNEL, TOP_RCOL_STRATEGY, TOP_RCOL_PROGRESS, TOP_RCOL_STATUS,
	TOP_RCOL_COUNTS, TOP_RCOL_BEST, TOP_RCOL_ETA, TOP_RCOL_COUNT
} top_rcol;

/* The profile's columns (GB/S to ENERGY) show only when a variant of the
 * detail has a profile. */
typedef enum top_vcol {
	TOP_VCOL_RANK = 0, TOP_VCOL_CONFIG, TOP_VCOL_STATUS, TOP_VCOL_TIME, TOP_VCOL_GBPS,
	TOP_VCOL_FLOPS, TOP_VCOL_PEAK, TOP_VCOL_OCC, TOP_VCOL_ENERGY, TOP_VCOL_SAMPLES,
	TOP_VCOL_COUNT
} top_vcol;

#define TOP_MAX_COLS 10 /* the widest of the three tables */

typedef struct top_columns {
	int n;
	int w[TOP_MAX_COLS];
} top_columns;

void top_kernel_columns(int width, top_columns *out);
void top_run_columns(int width, top_columns *out);
/* profiles: the detail has profiles (top_detail.has_profiles). */
void top_variant_columns(int width, int profiles, top_columns *out);

/* Row text, exactly `width` columns of printable ASCII (space padded), in
 * buf[width + 1]. A NULL row gives the title row. */
void top_format_kernel(const top_kernel *k, const top_columns *c, char *buf, int width);
/* Whether kernel k's best configuration is cut or hidden in columns c:
 * then top_format_kernel_best() gives it a line of its own, "best of
 * saxpy: BLOCK_SIZE=256 ITEMS_PER_THREAD=4". */
int top_kernel_config_cut(const top_kernel *k, const top_columns *c);
void top_format_kernel_best(const top_kernel *k, char *buf, int width);
void top_format_run(const top_run *r, const top_columns *c, char *buf, int width);
/* Line `line` of variant v's row (v NULL: the titles) into buf; returns
 * the number of lines the row takes: a configuration wider than its
 * column wraps at spaces onto lines of its own. */
int top_format_variant(const top_variant *v, size_t rank, int line, const top_columns *c,
                       char *buf, int width);
/* Compares configuration texts with runs of digits as numbers (strcmp's
 * order otherwise): BLOCK=2 before BLOCK=16. */
int top_config_cmp(const char *a, const char *b);
/* The history columns (5 s each) that a screen `width` wide shows. */
int top_history_columns(int width);

/* Meter lines of the header (line 0..1), run progress lines, each exactly
 * width columns like the rows above. */
void top_format_meter_line(const top_model *m, int line, char *buf, int width);
/* "hit 90.0% mem 86.7 disk 3.3 ptx 0.0 miss 10.0": the share of cache
 * lookups that NVRTC did not answer, and each tier's, in percent. */
void top_format_tiers(int64_t mem, int64_t disk, int64_t ptx, int64_t miss, char *out,
                      size_t size);
void top_format_run_bar(const top_run *r, char *buf, int width);
/* A device line of a run: "gpu 0 8c4e2a1f   17 evaluated  best 1.00 us
 * last 24s ago  ok 15 cr 1 to 1", indented under the run's kernel; the
 * age from now. */
void top_format_run_device(const top_run_device *d, double now, char *buf, int width);
/* The first 8 hex digits of a UUID after its "GPU-"; "-" for "". */
void top_short_uuid(const char *uuid, char *out, size_t size);

/* The header's power: "NVIDIA H200 312 W 56 C 1980 MHz" (the
 * temperature and graphics clock where sensors is not NULL), or
 * "power: n/a (reason)" when name is NULL. */
void top_format_power(const char *name, double watts, const struct kjit_gpu_sensors *sensors,
                      const char *reason, char *out, size_t size);

/* "BLOCK=256 ITEMS=4" from '{"BLOCK":256,"ITEMS":4}' or from an option
 * list of one "-DNAME=VALUE" a line (other options left out). */
void top_config_text(const char *config, char *out, size_t size);

/* A figure in 3 significant digits with an SI prefix (n to P) and unit:
 * "3.41T" + unit, "52.1mJ"; "-" for NAN and infinity. */
void top_fmt_si(double v, const char *unit, char *out, size_t size);
/* Durations: "812 ns", "12.3 us", "4.56 ms", "1.20 s"; "-" for NAN. */
void top_fmt_ns(double ns, char *out, size_t size);
/* ETA: "45s", "12m03s", "3h05m"; "-" for NAN. */
void top_fmt_eta(double s, char *out, size_t size);

/* Sparkline levels 0..8 (0: no data) of v[n], scaled from 0 (counts) or
 * from the smallest value (rates and times, whose changes matter) to the
 * largest. */
void top_spark_levels(const double *v, int n, int from_zero, int *levels);

/* Histogram of sorted[n] in nbins equal bins between min and max. */
void top_histogram(const double *sorted, size_t n, int nbins, int *counts);

/* The kernels table as shown: indices into m->kernels, filtered (name
 * contains filter, case-insensitive; NULL or "" for all) and sorted. */
typedef enum top_sort {
	TOP_SORT_LAUNCHES = 0, TOP_SORT_NAME, TOP_SORT_HIT, TOP_SORT_COMPILE, TOP_SORT_RECENT,
	TOP_SORT_DRIFT, TOP_SORT_COUNT
} top_sort;
const char *top_sort_name(top_sort s);
size_t top_view_kernels(const top_model *m, top_sort sort, const char *filter, size_t *idx);

/* ---- the GPU's power (power.c, through NVML) ------------------------------------ */

typedef struct top_power {
	struct kjit_power *power;  /* NULL: no NVML, reason says why */
	char reason[256];
	char text[320];            /* what the header shows */
} top_power;

/* Opens NVML for its first GPU; never fails: without NVML the text of
 * each top_power_read() says why. top_power_close() releases it. */
void top_power_open(top_power *p);
/* Reads the power again into p->text. */
void top_power_read(top_power *p);
void top_power_close(top_power *p);

/* ---- drawing (draw.c) and output (main.c) ---------------------------------- */

typedef struct top_ui {
	top_view_kind view;
	top_sort sort;
	char filter[64];
	int filtering;        /* the / prompt is open */
	int paused;
	size_t sel;           /* selected row of the kernels table */
	size_t top;           /* first row shown */
	size_t vsel;          /* selected variant in the detail view */
	int colors;
	int utf8;
	double clock;         /* now, for the header */
	const char *power;    /* the GPU's power for the header (top_power) */
} top_ui;

/* Draws one frame: wnoutrefresh of each window, then one doupdate. */
void top_draw(const top_model *m, top_ui *ui);
/* Forgets the windows (after a resize). */
void top_draw_reset(void);
void top_draw_init_colors(void);

/* The text snapshot of --once and the JSON of --json (output.c). */
void top_print_text(FILE *f, const top_model *m, int width);
void top_print_json(FILE *f, const top_model *m);

#endif /* KJIT_TUI_H */
