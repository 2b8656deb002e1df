# kjit-top: the live dashboard. The model (model.c) and the layout
# (layout.c) are linked straight into their unit tests (tests/tui.mk);
# only draw.c and main.c need a terminal.
bin_PROGRAMS += tui/kjit-top
KJIT_TOP_CORE = tui/tui.h tui/model.c tui/layout.c tui/output.c
tui_kjit_top_SOURCES = $(KJIT_TOP_CORE) tui/power.c tui/draw.c tui/main.c
tui_kjit_top_CPPFLAGS = $(AM_CPPFLAGS) $(NCURSESW_CFLAGS)
tui_kjit_top_LDADD = $(KJIT_INTERNAL_LIBS) $(NCURSESW_LIBS) $(SQLITE_LIBS) -lm

# doc/local.mk sets dist_man_MANS with `=` after this file is read: the
# section-1 variable keeps the two apart.
dist_man1_MANS = doc/kjit-top.1

# what the screen looks like (doc/kjit-top.1 describes it)
EXTRA_DIST += doc/kjit-top-screenshot.txt doc/kjit-top-screenshot.png
