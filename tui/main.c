/*
 * kjit-top - a live monitor of one kjit database: compile latency, cache
 * hit rate, launches, tuning runs, written by any number of processes.
 *
 * Exit status: 0 ok, 1 runtime error (such as a database that cannot be
 * read by --once or --json, or no terminal), 2 usage.
 */
#include "config.h"

#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "tools.h"
#include "tui.h"

static volatile sig_atomic_t got_winch, got_quit;

static void on_winch(int sig)
{
	(void)sig;
	got_winch = 1;
}

static void on_quit(int sig)
{
	(void)sig;
	got_quit = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: kjit-top [OPTION]...\n"
	        "Live monitor of a kjit database: compile latency, cache hit rate, launches,\n"
	        "kernel times and tuning runs, from every process that writes to it.\n"
	        "\n"
	        "  -d, --db PATH        the database (default $KJIT_DB, else\n"
	        "                       $XDG_CACHE_HOME/kjit/kjit.db, else ~/.cache/kjit/kjit.db)\n"
	        "  -i, --interval SECS  refresh period (default 1, at least 0.05)\n"
	        "  -n, --iterations N   stop after N refreshes\n"
	        "  -1, --once           print one text snapshot to stdout and exit\n"
	        "  -j, --json           print one snapshot as JSON and exit\n"
	        "  -C, --no-color       no colours (also when NO_COLOR is set)\n"
	        "  -h, --help           this help\n"
	        "  -V, --version        the version\n"
	        "\n"
	        "Keys: arrows or j/k move, Enter detail, Esc back, s or F6 sort, / filter,\n"
	        "p pause, ? or F1 help, q or F10 quit.\n"
	        "Exit status: 0 ok, 1 runtime error (unreadable database), 2 usage.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "kjit-top: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'kjit-top --help'.\n");
	return 2;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The signature of the selected row of the kernels table ("" none). */
static void selected_kernel(const top_model *m, const top_ui *ui, char *sig, size_t size)
{
	sig[0] = '\0';
	size_t *idx = malloc((m->n_kernels + 1) * sizeof *idx);
	if (!idx)
		return;
	size_t n = top_view_kernels(m, ui->sort, ui->filter, idx);
	if (ui->sel < n)
		snprintf(sig, size, "%s", m->kernels[idx[ui->sel]].signature);
	free(idx);
}

/* The / prompt: returns 1 when the key was taken. */
static int filter_key(top_ui *ui, int ch)
{
	size_t len = strlen(ui->filter);
	if (ch == 27) {
		ui->filter[0] = '\0';
		ui->filtering = 0;
	} else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		ui->filtering = 0;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (len)
			ui->filter[len - 1] = '\0';
	} else if (ch >= 32 && ch < 127 && len + 1 < sizeof ui->filter) {
		ui->filter[len] = (char)ch;
		ui->filter[len + 1] = '\0';
	} else {
		return 0;
	}
	ui->sel = ui->top = 0;
	return 1;
}

/* Returns 0 to quit. */
static int handle_key(top_model *m, top_ui *ui, int ch, int rows)
{
	if (ui->filtering && filter_key(ui, ch))
		return 1;
	size_t page = rows > 12 ? (size_t)rows - 12 : 1;
	if (ch == 'q' || ch == KEY_F(10))
		return 0;
	if (ch == '?' || ch == KEY_F(1)) {
		ui->view = ui->view == TOP_VIEW_HELP ? TOP_VIEW_MAIN : TOP_VIEW_HELP;
		return 1;
	}
	if (ch == 'p') {
		ui->paused = !ui->paused;
		return 1;
	}
	if (ui->view != TOP_VIEW_MAIN) {
		size_t before = ui->vsel;
		if (ch == 27 || ch == KEY_LEFT || ch == KEY_BACKSPACE || ch == 'h')
			ui->view = TOP_VIEW_MAIN;
		else if (ch == KEY_UP || ch == 'k')
			ui->vsel -= ui->vsel > 0;
		else if (ch == KEY_DOWN || ch == 'j')
			ui->vsel += ui->vsel + 1 < m->detail.n_v;
		if (ui->view == TOP_VIEW_DETAIL && ui->vsel != before)
			(void)top_model_load_detail(m, m->detail.signature, ui->vsel, top_now());
		return 1;
	}
	switch (ch) {
	case KEY_UP: case 'k': ui->sel -= ui->sel > 0; break;
	case KEY_DOWN: case 'j': ui->sel++; break; /* clamped when drawn */
	case KEY_PPAGE: ui->sel = ui->sel > page ? ui->sel - page : 0; break;
	case KEY_NPAGE: ui->sel += page; break;
	case KEY_HOME: case 'g': ui->sel = 0; break;
	case KEY_END: case 'G': ui->sel = m->n_kernels; break;
	case 's': case KEY_F(6): ui->sort = (top_sort)((ui->sort + 1) % TOP_SORT_COUNT); break;
	case '/': ui->filtering = 1; break;
	case 27: ui->filter[0] = '\0'; break;
	case '\n': case '\r': case KEY_ENTER: {
		char sig[33];
		selected_kernel(m, ui, sig, sizeof sig);
		if (sig[0]) {
			ui->vsel = 0;
			ui->view = TOP_VIEW_DETAIL;
			(void)top_model_load_detail(m, sig, 0, top_now());
		}
		break;
	}
	default: break;
	}
	return 1;
}

static void resize_from_tty(void)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resize_term(ws.ws_row, ws.ws_col);
	top_draw_reset();
	clearok(curscr, TRUE);
}

static int run_live(top_model *m, double interval, long iterations, int colors)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "kjit-top: not a terminal: use --once or --json for a snapshot\n");
		return 1;
	}
	/* a terminal that cannot move the cursor draws every frame on one line */
	const char *term = kjit__env(KJIT__ENV_TERM);
	if (!term || strcmp(term, "dumb") == 0) {
		fprintf(stderr, "kjit-top: TERM=%s cannot show the live view: use --once or --json "
		        "for a snapshot\n", term ? term : "(unset)");
		return 1;
	}
	/* our handlers before initscr, so that ncurses keeps them */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_quit;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	/* newterm(), unlike initscr(), leaves a terminal it cannot open to us */
	SCREEN *screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		fprintf(stderr, "kjit-top: TERM=%s: curses cannot use this terminal for the live "
		        "view: use --once or --json for a snapshot\n", term);
		return 1;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	top_ui ui;
	memset(&ui, 0, sizeof ui);
	ui.colors = colors && has_colors();
	if (ui.colors)
		top_draw_init_colors();
	ui.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	top_power power;
	top_power_open(&power);
	ui.power = power.text;

	double next = 0;
	long done = 0;
	int dirty = 1;
	for (;;) {
		if (got_quit)
			break;
		if (got_winch) {
			got_winch = 0;
			resize_from_tty();
			dirty = 1;
		}
		double t = mono_s();
		if (t >= next) {
			ui.clock = top_now();
			top_power_read(&power);
			if (!ui.paused && top_model_refresh(m, ui.clock, 0) == 1 &&
			    ui.view == TOP_VIEW_DETAIL)
				(void)top_model_load_detail(m, m->detail.signature, ui.vsel, ui.clock);
			done++;
			next = t + interval;
			dirty = 1;
		}
		if (dirty) {
			top_draw(m, &ui);
			dirty = 0;
		}
		if (iterations > 0 && done >= iterations)
			break;
		int ms = (int)ceil((next - mono_s()) * 1e3);
		timeout(ms < 1 ? 1 : ms);
		int ch = getch();
		if (ch == ERR)
			continue;
		if (ch == KEY_RESIZE) {
			top_draw_reset();
			dirty = 1;
			continue;
		}
		int rows = getmaxy(stdscr);
		if (!handle_key(m, &ui, ch, rows))
			break;
		dirty = 1;
	}
	endwin();
	delscreen(screen);
	top_power_close(&power);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "once", no_argument, NULL, '1' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-color", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *db = NULL;
	double interval = 1.0;
	long iterations = 0;
	int once = 0, json = 0, colors = 1;
	setlocale(LC_ALL, "");
	for (int ch; (ch = getopt_long(argc, argv, "d:i:n:1jChV", longopts, NULL)) != -1;) {
		char *end = NULL;
		switch (ch) {
		case 'd': db = optarg; break;
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (errno || !end || *end || !isfinite(interval) || interval < 0.05)
				return usage_error("--interval wants seconds, at least 0.05: '%s'", optarg);
			break;
		case 'n':
			errno = 0;
			iterations = strtol(optarg, &end, 10);
			if (errno || !end || *end || iterations < 1)
				return usage_error("-n wants a count of refreshes >= 1: '%s'", optarg);
			break;
		case '1': once = 1; break;
		case 'j': json = 1; break;
		case 'C': colors = 0; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("kjit-top %s (libkjit %s)\n", PACKAGE_VERSION, kjit_version()); return 0;
		default: fprintf(stderr, "Try 'kjit-top --help'.\n"); return 2; /* getopt said why */
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (once && json)
		return usage_error("%s", "--once and --json exclude each other");
	if (kjit__env(KJIT__ENV_NO_COLOR))
		colors = 0;

	char *path = NULL;
	if (db)
		path = strdup(db);
	else if (kjit_store_default_path(&path) != KJIT_OK) {
		fprintf(stderr, "kjit-top: %s\n", kjit_last_error());
		return 1;
	}
	if (!path) {
		fprintf(stderr, "kjit-top: out of memory\n");
		return 1;
	}
	top_model m;
	top_model_init(&m, path);
	free(path);
	int rc = 0;
	if (once || json) {
		if (top_model_refresh(&m, top_now(), 1) < 0) {
			fprintf(stderr, "kjit-top: %s\n", m.message);
			rc = 1;
		} else if (once) {
			const char *cols = kjit__env(KJIT__ENV_COLUMNS);
			int width = cols && atoi(cols) > 0 ? atoi(cols) : 100;
			top_print_text(stdout, &m, width);
		} else {
			top_print_json(stdout, &m);
		}
		if (fflush(stdout) != 0 && rc == 0) {
			fprintf(stderr, "kjit-top: cannot write the snapshot: %s\n", strerror(errno));
			rc = 1;
		}
	} else if (top_model_refresh(&m, top_now(), 1) < 0 &&
	           (m.state == TOP_DB_FOREIGN || m.state == TOP_DB_SCHEMA ||
	            m.state == TOP_DB_REFUSED)) {
		/* a file that is there and will not become readable: waiting
		 * for it would wait forever */
		fprintf(stderr, "kjit-top: %s\n", m.message);
		rc = 1;
	} else {
		rc = run_live(&m, interval, iterations, colors);
	}
	top_model_close(&m);
	return rc;
}
