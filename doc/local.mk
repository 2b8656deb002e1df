# Man pages: installed in $(mandir)/man3 and shipped in the tarball.
dist_man_MANS = doc/kjit.3

# the architecture, shipped in the tarball
EXTRA_DIST += doc/DESIGN.md
