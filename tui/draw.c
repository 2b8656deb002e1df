/*
 * draw.c - the ncurses side: one window per rectangle of the layout, text
 * rows from layout.c, attributes and colours added here. Each window is
 * wnoutrefresh'ed and the frame ends with one doupdate, so the terminal
 * sees one update per frame.
 */
#include "config.h"

#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui.h"

enum { PAIR_TITLE = 1, PAIR_GOOD, PAIR_WARN, PAIR_BAD, PAIR_DIM };

enum { W_HEADER, W_HISTORY, W_KERNELS, W_RUNS, W_STATUS, W_VARIANTS, W_HISTOGRAM, W_HELP,
       W_COUNT };

static WINDOW *wins[W_COUNT];
static top_layout last;
static int have_last;

void top_draw_reset(void)
{
	for (int i = 0; i < W_COUNT; i++) {
		if (wins[i])
			delwin(wins[i]);
		wins[i] = NULL;
	}
	have_last = 0;
}

void top_draw_init_colors(void)
{
	start_color();
	use_default_colors();
	init_pair(PAIR_TITLE, COLOR_CYAN, -1);
	init_pair(PAIR_GOOD, COLOR_GREEN, -1);
	init_pair(PAIR_WARN, COLOR_YELLOW, -1);
	init_pair(PAIR_BAD, COLOR_RED, -1);
	init_pair(PAIR_DIM, COLOR_BLUE, -1);
}

static attr_t color(const top_ui *ui, int pair)
{
	return ui->colors ? COLOR_PAIR(pair) : A_NORMAL;
}

/* (Re)creates the windows when the rectangles changed. */
static void place(const top_layout *lay)
{
	if (have_last && memcmp(lay, &last, sizeof last) == 0)
		return;
	top_draw_reset();
	const top_rect *r[W_COUNT] = { &lay->header, &lay->history, &lay->kernels, &lay->runs,
		                       &lay->status, &lay->variants, &lay->histogram, &lay->help };
	for (int i = 0; i < W_COUNT; i++)
		if (r[i]->h > 0 && r[i]->w > 0)
			wins[i] = newwin(r[i]->h, r[i]->w, r[i]->y, r[i]->x);
	last = *lay;
	have_last = 1;
	/* the old frame may show where no window is now */
	clearok(curscr, TRUE);
}

static void line(WINDOW *w, int y, const char *text, attr_t attr)
{
	int width = getmaxx(w);
	wattron(w, attr);
	mvwaddnstr(w, y, 0, text, width);
	wattroff(w, attr);
}

/* Free text in a line of the window, cut to its width. */
static void textf(WINDOW *w, int y, attr_t attr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void textf(WINDOW *w, int y, attr_t attr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	wmove(w, y, 0);
	wclrtoeol(w);
	line(w, y, buf, attr);
}

static void draw_header(WINDOW *w, const top_model *m, const top_ui *ui, const top_layout *lay)
{
	char when[16], row[512];
	time_t t = (time_t)ui->clock;
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%H:%M:%S", &tm);
	int width = getmaxx(w);
	werase(w);
	/* the power before the path, which can be long enough to push it
	 * off an 80-column screen; where the line does not fit, the frame
	 * time goes, then the path, then the power's reason is cut between
	 * words, never in one */
	const char *power = ui->power ? ui->power : "";
	char title[1024];
	int n = 0;
	for (int level = 0; level < 3; level++) {
		char frame[32] = "";
		if (level == 0)
			snprintf(frame, sizeof frame, "  frame %.1f ms", m->build_ms);
		n = snprintf(title, sizeof title, "kjit-top %s  %s%s  %.300s%s%.600s%s", PACKAGE_VERSION,
		             when, ui->paused ? "  [PAUSED]" : "", power, level < 2 ? "  " : "",
		             level < 2 ? m->path : "", frame);
		if (n <= width)
			break;
	}
	if (n > width && width > 0 && width < (int)sizeof title) {
		int cut = width;
		while (cut > 0 && title[cut] != ' ')
			cut--;
		while (cut > 0 && title[cut - 1] == ' ')
			cut--;
		title[cut > 0 ? cut : width] = '\0';
	}
	textf(w, 0, A_BOLD | color(ui, PAIR_TITLE), "%s", title);
	if (m->state != TOP_DB_OK) {
		textf(w, 1, A_BOLD | color(ui, PAIR_BAD), "%s", m->message);
		textf(w, 2, A_NORMAL, "waiting for the database (q quits)");
		wnoutrefresh(w);
		return;
	}
	for (int i = 0; i < 2; i++) {
		top_format_meter_line(m, i, row, width);
		line(w, 1 + i, row, A_NORMAL);
	}
	int y = 3;
	for (size_t i = 0; i < m->n_runs && y < 3 + lay->run_lines; i++)
		if (strcmp(m->runs[i].status, KJIT__RUN_RUNNING) == 0) {
			top_format_run_bar(&m->runs[i], row, width);
			line(w, y++, row, color(ui, PAIR_GOOD));
		}
	wnoutrefresh(w);
}

static void draw_history(WINDOW *w, const top_model *m, const top_ui *ui)
{
	static const char *const blocks[9] = { " ", "\u2581", "\u2582", "\u2583", "\u2584",
		                               "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = " _.-:=+*#";
	static const char *const labels[TOP_SERIES_COUNT] = { "compiles/s", "hit rate",
		                                              "kernel time" };
	werase(w);
	int width = getmaxx(w);
	int n = top_history_columns(width);
	for (int s = 0; s < TOP_SERIES_COUNT && n > 0; s++) {
		double v[TOP_HISTORY_N];
		int lv[TOP_HISTORY_N];
		top_history_series(&m->history, (top_series)s, m->now, v, n);
		top_spark_levels(v, n, s == TOP_SERIES_COMPILES, lv);
		double cur = NAN, max = NAN;
		for (int i = 0; i < n; i++)
			if (isfinite(v[i])) {
				cur = v[i];
				max = isnan(max) || v[i] > max ? v[i] : max;
			}
		mvwprintw(w, s, 0, "%-11.11s ", labels[s]);
		wattron(w, color(ui, PAIR_GOOD));
		for (int i = 0; i < n; i++) {
			if (ui->utf8)
				waddstr(w, blocks[lv[i]]);
			else
				waddch(w, (chtype)ascii[lv[i]]);
		}
		wattroff(w, color(ui, PAIR_GOOD));
		char a[24], b[24];
		if (s == TOP_SERIES_KERNEL_NS) {
			top_fmt_ns(cur, a, sizeof a);
			top_fmt_ns(max, b, sizeof b);
		} else if (s == TOP_SERIES_HIT_RATE) {
			snprintf(a, sizeof a, isnan(cur) ? "-" : "%.1f%%", 100 * cur);
			snprintf(b, sizeof b, isnan(max) ? "-" : "%.1f%%", 100 * max);
		} else {
			snprintf(a, sizeof a, isnan(cur) ? "-" : "%.2f", cur);
			snprintf(b, sizeof b, isnan(max) ? "-" : "%.2f", max);
		}
		char tail[64];
		snprintf(tail, sizeof tail, " %s (max %s)", a, b);
		waddnstr(w, tail, width - 12 - n);
	}
	wnoutrefresh(w);
}

/* Keeps the selection on screen. */
static void scroll_to(size_t *top, size_t sel, size_t visible)
{
	if (sel < *top)
		*top = sel;
	else if (visible && sel >= *top + visible)
		*top = sel - visible + 1;
}

static void draw_kernels(WINDOW *w, const top_model *m, top_ui *ui)
{
	int width = getmaxx(w), h = getmaxy(w);
	char row[512];
	top_columns c;
	top_kernel_columns(width, &c);
	werase(w);
	top_format_kernel(NULL, &c, row, width);
	line(w, 0, row, A_BOLD | A_UNDERLINE);
	size_t *idx = malloc((m->n_kernels + 1) * sizeof *idx);
	size_t n = idx ? top_view_kernels(m, ui->sort, ui->filter, idx) : 0;
	if (n == 0)
		textf(w, 1, A_DIM, ui->filter[0] ? "no kernel matches \"%s\"" : "%s",
		      ui->filter[0] ? ui->filter : "no kernels yet");
	if (ui->sel >= n)
		ui->sel = n ? n - 1 : 0;
	/* the selected kernel's best configuration, when its column cuts it,
	 * on the window's last line */
	const top_kernel *sel = n ? &m->kernels[idx[ui->sel]] : NULL;
	int best_line = sel && h >= 3 && top_kernel_config_cut(sel, &c);
	size_t visible = h > 1 + best_line ? (size_t)(h - 1 - best_line) : 0;
	if (best_line) {
		top_format_kernel_best(sel, row, width);
		line(w, h - 1, row, A_BOLD);
	}
	scroll_to(&ui->top, ui->sel, visible);
	for (size_t i = ui->top; i < n && i - ui->top < visible; i++) {
		const top_kernel *k = &m->kernels[idx[i]];
		top_format_kernel(k, &c, row, width);
		attr_t a = A_NORMAL;
		if (!isnan(k->drift) && k->drift > 0.10)
			a = color(ui, PAIR_BAD);
		else if ((!isnan(k->drift) && k->drift > 0.03) || (k->has_best && k->stale))
			a = color(ui, PAIR_WARN);
		if (i == ui->sel)
			a |= A_REVERSE;
		line(w, (int)(i - ui->top) + 1, row, a);
	}
	free(idx);
	wnoutrefresh(w);
}

static void draw_runs(WINDOW *w, const top_model *m, const top_ui *ui)
{
	int width = getmaxx(w), h = getmaxy(w);
	char row[512];
	top_columns c;
	top_run_columns(width, &c);
	werase(w);
	top_format_run(NULL, &c, row, width);
	line(w, 0, row, A_BOLD | A_UNDERLINE);
	int y = 1;
	for (size_t i = 0; i < m->n_runs && y < h; i++) {
		const top_run *r = &m->runs[i];
		top_format_run(r, &c, row, width);
		int running = strcmp(r->status, KJIT__RUN_RUNNING) == 0;
		line(w, y++, row, running ? color(ui, PAIR_GOOD) :
		     strcmp(r->status, KJIT__RUN_FAILED) == 0 ? color(ui, PAIR_BAD) : A_NORMAL);
		size_t n = top_run_device_lines(m, r);
		for (size_t k = 0; k < n && y < h; k++) {
			top_format_run_device(&m->devices[r->first_device + k], m->now, row, width);
			line(w, y++, row, A_NORMAL);
		}
	}
	wnoutrefresh(w);
}

static void draw_status(WINDOW *w, const top_model *m, const top_ui *ui)
{
	werase(w);
	if (ui->filtering)
		textf(w, 0, A_BOLD, "filter: %s_   (Enter keeps it, Esc clears it)", ui->filter);
	else if (ui->view == TOP_VIEW_DETAIL)
		textf(w, 0, A_REVERSE, "Up/Down variant  Esc back  p pause  ? help  q quit%s",
		      ui->paused ? "  [PAUSED]" : "");
	else {
		/* one space between the keys where two do not fit (80 columns),
		 * then the keys alone (? names them) */
		char text[512];
		const char *sort = top_sort_name(ui->sort), *colon = ui->filter[0] ? ": " : "";
		for (int level = 0; level < 3; level++) {
			const char *gap = level ? " " : "  ";
			int n = level < 2
			                ? snprintf(text, sizeof text, "j/k move%sEnter detail%ss sort: %s%s/ "
			                           "filter%s%s%sp pause%s? help%sq quit%s| %zu kernels", gap,
			                           gap, sort, gap, colon, ui->filter, gap, gap, gap, gap,
			                           m->n_kernels)
			                : snprintf(text, sizeof text, "j/k Enter s sort: %s / filter%s%s p ? "
			                           "help q | %zu kernels", sort, colon, ui->filter,
			                           m->n_kernels);
			if (n < getmaxx(w))
				break;
		}
		textf(w, 0, A_REVERSE, "%s", text);
	}
	wnoutrefresh(w);
}

static void draw_detail(WINDOW *vw, WINDOW *hw, const top_model *m, top_ui *ui)
{
	const top_detail *d = &m->detail;
	int width = getmaxx(vw), h = getmaxy(vw);
	char row[512];
	werase(vw);
	char tiers[160];
	top_format_tiers(d->mem, d->disk, d->ptx, d->miss, tiers, sizeof tiers);
	/* the signature last: at 80 columns the miss share must show */
	textf(vw, 0, A_BOLD | color(ui, PAIR_TITLE), "%s  %zu variants  cache %s  %s", d->name,
	      d->n_v, tiers, d->signature);
	textf(vw, 1, A_NORMAL, "%s", d->rule);
	top_columns c;
	top_variant_columns(width, d->has_profiles, &c);
	top_format_variant(NULL, 0, 0, &c, row, width);
	line(vw, 2, row, A_BOLD | A_UNDERLINE);
	if (d->n_v == 0)
		textf(vw, 3, A_DIM, "no variant compiled or tuned yet");
	if (ui->vsel >= d->n_v)
		ui->vsel = d->n_v ? d->n_v - 1 : 0;
	/* rows take a line or more (a long configuration wraps): the first
	 * row shown is the earliest with which the selection still fits */
	int visible = h - 3, used = d->n_v ? top_format_variant(&d->v[ui->vsel], 0, 0, &c, row,
	                                                         width) : 0;
	size_t top = ui->vsel;
	for (int n; top > 0 &&
	     used + (n = top_format_variant(&d->v[top - 1], 0, 0, &c, row, width)) <= visible;
	     top--)
		used += n;
	for (size_t i = top, y = 3; i < d->n_v && (int)y < h; i++) {
		attr_t a = d->v[i].failed ? color(ui, PAIR_BAD) : A_NORMAL;
		int lines = top_format_variant(&d->v[i], i + 1, 0, &c, row, width);
		for (int l = 0; l < lines && (int)y < h; l++, y++) {
			top_format_variant(&d->v[i], i + 1, l, &c, row, width);
			line(vw, (int)y, row, i == ui->vsel ? a | A_REVERSE : a);
		}
	}
	wnoutrefresh(vw);
	if (!hw)
		return;
	werase(hw);
	int hh = getmaxy(hw), hwid = getmaxx(hw);
	textf(hw, 0, A_BOLD, "samples of variant %zu: %zu", d->sel + 1, d->n_samples);
	int nbins = hh - 1;
	if (d->n_samples && nbins > 0) {
		int counts[64] = { 0 }, max = 1;
		nbins = nbins > 64 ? 64 : nbins;
		top_histogram(d->samples, d->n_samples, nbins, counts);
		for (int b = 0; b < nbins; b++)
			max = counts[b] > max ? counts[b] : max;
		double lo = d->samples[0], span = d->samples[d->n_samples - 1] - lo;
		int bar = hwid - 22;
		for (int b = 0; b < nbins && bar > 0; b++) {
			char at[24];
			top_fmt_ns(lo + span * b / nbins, at, sizeof at);
			mvwprintw(hw, 1 + b, 0, "%10s %6d ", at, counts[b]);
			int len = (int)((double)counts[b] / max * bar + 0.5);
			wattron(hw, color(ui, PAIR_GOOD));
			for (int i = 0; i < len; i++)
				waddch(hw, ui->utf8 ? ACS_CKBOARD : '#');
			wattroff(hw, color(ui, PAIR_GOOD));
		}
	}
	wnoutrefresh(hw);
}

static void draw_help(WINDOW *w)
{
	/* what the history graphs of the main view hold at this width */
	int cols = top_history_columns(getmaxx(w));
	char history[128];
	snprintf(history, sizeof history, "History graphs: %d s columns, %d here: the last %d s "
	         "(at most %d s).", TOP_HISTORY_BUCKET_S, cols, TOP_HISTORY_BUCKET_S * cols,
	         TOP_HISTORY_BUCKET_S * TOP_HISTORY_N);
	/* the run status codes, from the table that makes them */
#define STATUS_TEXT(id, name, abbrev) " " abbrev " " name ","
	static const char statuses[] = KJIT__RESULT_STATUSES(STATUS_TEXT);
#undef STATUS_TEXT
	char codes[2][96];
	size_t cut = sizeof statuses / 2;
	while (cut > 0 && statuses[cut] != ' ')
		cut--;
	snprintf(codes[0], sizeof codes[0], "  RUNS results:%.*s", (int)cut, statuses);
	snprintf(codes[1], sizeof codes[1], "               %.*s", (int)(sizeof statuses - cut - 3),
	         statuses + cut + 1);
	const char *const text[] = {
		"Keys",
		"  Up/Down, j/k    move the selection     PgUp/PgDn, g/G  page, first, last",
		"  Enter           detail of the kernel   Esc             back, clear the filter",
		"  s, F6           next sort order        /               filter kernels by name",
		"  p               pause refreshing       ?, F1           this help",
		"  q, F10          quit",
		"",
		"Columns",
		"  LAUNCHES and HIT%: the last minute. COMPILE: median NVRTC time, last 10 min.",
		"  BEST: the tuned best (* stale: slower than stored, or another toolkit).",
		"  RECENT: median of the timed launches of the last minute.",
		"  DRIFT: RECENT against BEST (yellow > 3%, red > 10%).",
		"  Narrow: RECENT, then COMPILE, make way for BEST CONFIG.",
		codes[0],
		codes[1],
		"",
		history,
	};
	werase(w);
	for (size_t i = 0; i < sizeof text / sizeof text[0] && (int)i < getmaxy(w); i++)
		line(w, (int)i, text[i], i == 0 || i == 7 ? A_BOLD : A_NORMAL);
	wnoutrefresh(w);
}

void top_draw(const top_model *m, top_ui *ui)
{
	int rows, cols;
	getmaxyx(stdscr, rows, cols);
	size_t active = (size_t)(m->state == TOP_DB_OK ? m->meters.active_runs : 0);
	top_layout lay;
	size_t run_rows = m->state == TOP_DB_OK ? top_run_rows(m) : 0;
	top_layout_compute(rows, cols, ui->view, active, run_rows, &lay);
	place(&lay);
	if (lay.too_small) {
		werase(stdscr);
		char msg[128];
		snprintf(msg, sizeof msg, "terminal too small (%dx%d): kjit-top needs %dx%d; q quits",
		         cols, rows, TOP_MIN_COLS, TOP_MIN_ROWS);
		/* wrapped at spaces, so that no word breaks across lines */
		int len = (int)strlen(msg);
		for (int y = 0, off = 0; y < rows && off < len; y++) {
			int n = len - off <= cols ? len - off : cols;
			if (n < len - off) {
				int cut = n;
				while (cut > 0 && msg[off + cut] != ' ')
					cut--;
				if (cut > 0)
					n = cut;
			}
			mvwaddnstr(stdscr, y, 0, msg + off, n);
			off += n;
			while (off < len && msg[off] == ' ')
				off++;
		}
		wnoutrefresh(stdscr);
		doupdate();
		return;
	}
	draw_header(wins[W_HEADER], m, ui, &lay);
	if (m->state == TOP_DB_OK && ui->view == TOP_VIEW_MAIN) {
		if (wins[W_HISTORY])
			draw_history(wins[W_HISTORY], m, ui);
		draw_kernels(wins[W_KERNELS], m, ui);
		if (wins[W_RUNS])
			draw_runs(wins[W_RUNS], m, ui);
	} else if (m->state == TOP_DB_OK && ui->view == TOP_VIEW_DETAIL) {
		draw_detail(wins[W_VARIANTS], wins[W_HISTOGRAM], m, ui);
	} else if (ui->view == TOP_VIEW_HELP) {
		draw_help(wins[W_HELP]);
	} else {
		/* no data: blank the body */
		for (int i = W_HISTORY; i < W_COUNT; i++)
			if (wins[i] && i != W_STATUS) {
				werase(wins[i]);
				wnoutrefresh(wins[i]);
			}
	}
	draw_status(wins[W_STATUS], m, ui);
	doupdate();
}
