# Man pages: installed in $(mandir)/man3 and shipped in the tarball.
dist_man_MANS = doc/kjit.3
