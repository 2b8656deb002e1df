# Man pages: installed in $(mandir)/man3 and shipped in the tarball.
dist_man_MANS = doc/kjit.3
# kjit-spec(5) is made from the spec format's Markdown by doc/md2man and
# committed, so that a build needs no Python; tests/test-man-spec.sh
# checks that it is up to date.
dist_man5_MANS = doc/kjit-spec.5
EXTRA_DIST += doc/spec-format.md doc/md2man

# the architecture, shipped in the tarball
EXTRA_DIST += doc/DESIGN.md
