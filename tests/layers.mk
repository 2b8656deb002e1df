# The layers of libkjit (src/local.mk) link alone, bottom up: each
# program takes all of one layer (--whole-archive) and only the layers
# below it, so an upward call is an undefined reference at link time.
# The archive goes inside the linker flag, as libtool moves archives and
# .la files after all flags; KJIT_WHOLE comes from configure, so that
# automake lets the flag stand among the libraries.
KJIT_LAYER_LINKS = tests/link-base tests/link-instr tests/link-core tests/link-tuning
check_PROGRAMS += $(KJIT_LAYER_LINKS)
TESTS += $(KJIT_LAYER_LINKS)

tests_link_base_SOURCES = tests/link-layer.c
tests_link_base_DEPENDENCIES = libkjit_base.la
tests_link_base_LDADD = $(KJIT_WHOLE),.libs/libkjit_base.a,--no-whole-archive $(KJIT_EXTERNAL_LIBS)
tests_link_instr_SOURCES = tests/link-layer.c
tests_link_instr_DEPENDENCIES = libkjit_instr.la
tests_link_instr_LDADD = $(KJIT_WHOLE),.libs/libkjit_instr.a,--no-whole-archive libkjit_base.la \
	$(KJIT_EXTERNAL_LIBS)
tests_link_core_SOURCES = tests/link-layer.c
tests_link_core_DEPENDENCIES = libkjit_core.la
tests_link_core_LDADD = $(KJIT_WHOLE),.libs/libkjit_core.a,--no-whole-archive libkjit_instr.la \
	libkjit_base.la $(KJIT_EXTERNAL_LIBS)
tests_link_tuning_SOURCES = tests/link-layer.c
tests_link_tuning_DEPENDENCIES = libkjit_tuning.la
tests_link_tuning_LDADD = $(KJIT_WHOLE),.libs/libkjit_tuning.a,--no-whole-archive libkjit_core.la \
	libkjit_instr.la libkjit_base.la $(KJIT_EXTERNAL_LIBS)

# the shared library's exports (skips in a static build)
TESTS += tests/test-exports.sh
EXTRA_DIST += tests/test-exports.sh

# kjit-tune and kjit-top borrow only the kjit__ names src/tuning/tools.h
# lists for them
TESTS += tests/test-tools-borrow.sh
EXTRA_DIST += tests/test-tools-borrow.sh

# pkg-config's static link line links (skips without a static library)
TESTS += tests/test-pkgconfig.sh
EXTRA_DIST += tests/test-pkgconfig.sh

# databases another user cannot reach or write (root with setpriv only)
TESTS += tests/test-perms-user.sh
EXTRA_DIST += tests/test-perms-user.sh

# where a database may be kept: sticky folders, URIs, a read-only -shm
# (root with setpriv only)
TESTS += tests/test-db-rules.sh
EXTRA_DIST += tests/test-db-rules.sh

# libFuzzer targets (tests/fuzz/README), built and run by tests/fuzz/run
# (clang only; .ci/run runs a fixed number of inputs)
EXTRA_DIST += tests/fuzz/run tests/fuzz/README tests/fuzz/fuzz-expr.c tests/fuzz/fuzz-spec.c \
	tests/fuzz/fuzz-tune.c tests/fuzz/fuzz-store.c tests/fuzz/fuzz-replay.c tests/fuzz/fuzz-wire.c \
	tests/fuzz/fuzz-cubin.c \
	tests/fuzz/expr.dict tests/fuzz/spec.dict tests/fuzz/store.dict tests/fuzz/replay.dict \
	tests/fuzz/wire.dict tests/fuzz/cubin.dict \
	tests/fuzz/cubin-seeds/mixed tests/fuzz/cubin-seeds/none tests/fuzz/cubin-seeds/one-pointer \
	tests/fuzz/cubin-seeds/struct \
	tests/fuzz/expr-seeds/condition.txt tests/fuzz/expr-seeds/empty-comprehension.txt \
	tests/fuzz/expr-seeds/empty-repeat-kjit.txt tests/fuzz/expr-seeds/empty-repeat.txt \
	tests/fuzz/expr-seeds/escapes.txt tests/fuzz/expr-seeds/kjit.txt \
	tests/fuzz/expr-seeds/math-name.txt tests/fuzz/expr-seeds/nested-tuple.txt \
	tests/fuzz/expr-seeds/number-exponent-kjit.txt tests/fuzz/expr-seeds/number-exponent.txt \
	tests/fuzz/expr-seeds/problem.txt tests/fuzz/expr-seeds/python.txt \
	tests/fuzz/expr-seeds/range-sum.txt tests/fuzz/expr-seeds/search.txt \
	tests/fuzz/expr-seeds/values.txt tests/fuzz/spec-seeds/kjit-budget.json \
	tests/fuzz/spec-seeds/kjit-empty-repeat.json \
	tests/fuzz/spec-seeds/kjit-number-exponent.json tests/fuzz/spec-seeds/t1-budget.json \
	tests/fuzz/spec-seeds/t1-condition-parameters-leak.json \
	tests/fuzz/spec-seeds/t1-empty-typenames-leak.json \
	tests/fuzz/spec-seeds/t1-empty-repeat.json tests/fuzz/spec-seeds/t1-escapes.json \
	tests/fuzz/spec-seeds/t1-math-pi.json tests/fuzz/spec-seeds/t1-number-exponent.json \
	tests/fuzz/store-seeds/best-config tests/fuzz/store-seeds/best-types \
	tests/fuzz/store-seeds/cubin-rewritten tests/fuzz/store-seeds/key-mismatch \
	tests/fuzz/store-seeds/null-columns \
	tests/fuzz/replay-seeds/costs.csv tests/fuzz/replay-seeds/flat.json \
	tests/fuzz/replay-seeds/pandas-index.csv tests/fuzz/replay-seeds/plain.csv \
	tests/fuzz/replay-seeds/quoted.csv tests/fuzz/replay-seeds/results.json \
	tests/fuzz/replay-seeds/settings.csv tests/fuzz/replay-seeds/settings-only.txt \
	tests/fuzz/wire-seeds/begin tests/fuzz/wire-seeds/binary tests/fuzz/wire-seeds/compile \
	tests/fuzz/wire-seeds/compiled \
	tests/fuzz/wire-seeds/compiled-error tests/fuzz/wire-seeds/framed-begin \
	tests/fuzz/wire-seeds/framed-compile tests/fuzz/wire-seeds/framed-compiled \
	tests/fuzz/wire-seeds/framed-compiled-error tests/fuzz/wire-seeds/framed-hello \
	tests/fuzz/wire-seeds/framed-hello-error tests/fuzz/wire-seeds/framed-lbinary \
	tests/fuzz/wire-seeds/framed-lframe tests/fuzz/wire-seeds/framed-note-34 \
	tests/fuzz/wire-seeds/framed-note-35 tests/fuzz/wire-seeds/framed-note-36 \
	tests/fuzz/wire-seeds/framed-note-39 tests/fuzz/wire-seeds/framed-note-40 \
	tests/fuzz/wire-seeds/framed-note-42 tests/fuzz/wire-seeds/framed-note-44 \
	tests/fuzz/wire-seeds/framed-rcompiled tests/fuzz/wire-seeds/framed-rcompiled-error \
	tests/fuzz/wire-seeds/framed-reply tests/fuzz/wire-seeds/framed-reply-fatal \
	tests/fuzz/wire-seeds/framed-reply-profile tests/fuzz/wire-seeds/framed-request \
	tests/fuzz/wire-seeds/framed-request-prepare tests/fuzz/wire-seeds/framed-rjob \
	tests/fuzz/wire-seeds/framed-role tests/fuzz/wire-seeds/framed-setup \
	tests/fuzz/wire-seeds/hello tests/fuzz/wire-seeds/hello-error \
	tests/fuzz/wire-seeds/lbinary tests/fuzz/wire-seeds/lframe tests/fuzz/wire-seeds/note-34 \
	tests/fuzz/wire-seeds/note-35 tests/fuzz/wire-seeds/note-36 tests/fuzz/wire-seeds/note-39 \
	tests/fuzz/wire-seeds/note-40 tests/fuzz/wire-seeds/note-42 tests/fuzz/wire-seeds/note-44 \
	tests/fuzz/wire-seeds/rcompiled tests/fuzz/wire-seeds/rcompiled-error \
	tests/fuzz/wire-seeds/reply tests/fuzz/wire-seeds/reply-fatal \
	tests/fuzz/wire-seeds/reply-profile tests/fuzz/wire-seeds/request \
	tests/fuzz/wire-seeds/request-prepare tests/fuzz/wire-seeds/rjob \
	tests/fuzz/wire-seeds/role tests/fuzz/wire-seeds/setup
