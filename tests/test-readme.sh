#!/bin/sh
# test-readme: the README's commands are what the tree runs: the main-job
# command names a script that is there, the test command is the one that
# CI (.ci/run, where the tree has it: a tarball does not) runs, and the
# README says how to run make check alone and what test-tune-t4 needs.
src=${KJIT_SRCDIR:-$(dirname "$0")/..}
readme=$src/README.md
fail=0
has() { # LABEL TEXT: a line of the README is TEXT, indented as code
	grep -qxF "    $2" "$readme" || { echo "FAIL: README: no command line '$2' ($1)"; fail=1; }
}
main='./autogen.sh --install-deps && ./configure && make -j"$(nproc)" && examples/saxpy/main-job'
test_cmd='./autogen.sh --install-deps && ./configure --enable-werror && make -j"$(nproc)" check'
has "the main job" "$main"
has "the test command" "$test_cmd"
has "make check alone" 'make -j"$(nproc)" check'
[ -x "$src/examples/saxpy/main-job" ] ||
	{ echo "FAIL: examples/saxpy/main-job, which the README runs, is missing"; fail=1; }
grep -q 'jsonschema' "$readme" ||
	{ echo "FAIL: README: test-tune-t4's jsonschema is not mentioned"; fail=1; }
if [ -f "$src/.ci/run" ]; then
	grep -qF "$test_cmd ||" "$src/.ci/run" ||
		{ echo "FAIL: .ci/run does not run the README's test command"; fail=1; }
else
	echo "no .ci/run here (a release tarball): CI's command not compared"
fi
# the strategies: as many as kjit-tune has, and its default named as such
n=$(sed -n '/kjit__strategies\[\] = {/,/NULL/p' "$src/src/tuning/strategies/common.c" |
	grep -o '&kjit__strategy_[a-z_]*' | wc -l)
word=$(echo "zero one two three four five six seven eight nine ten eleven twelve" |
	cut -d' ' -f$((n + 1)))
def=$(sed -n 's/^#define KJIT_STRATEGY_DEFAULT "\(.*\)".*/\1/p' "$src"/include/kjit.h)
flat=$(tr '\n' ' ' < "$readme" | tr -s ' ')
echo "$flat" | grep -qi "$word search strategies" ||
	{ echo "FAIL: README: not '$word search strategies' ($n in kjit__strategies[])"; fail=1; }
echo "$flat" | grep -qF "$def (the default with a budget)" ||
	{ echo "FAIL: README: the default strategy is not '$def (the default with a budget)'"; fail=1; }
[ "$fail" -eq 0 ] && echo "ok: the README's main job and test command are the tree's; $n strategies, $def the default"
exit $fail
