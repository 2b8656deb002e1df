#!/bin/sh
# test-gpu-examples: on a GPU, each tuning example (examples/NAME/NAME.json,
# its spec as shipped) tunes a few random configurations with kjit-tune:
# every configuration compiles, runs and gives the output its spec's
# verification expects, and the run names a best. Exit 77 without a GPU.
# The LTO and T1 examples have tests of their own (test-gpu-lto,
# test-gpu-t1).
build=${KJIT_BUILDDIR:-.}
src=${KJIT_SRCDIR:-.}
tune=$build/autotune/kjit-tune
. "$src/tests/gpu-prelude.sh"

n=0
for spec in "$src"/examples/*/*.json; do
	name=${spec%/*}
	name=${name##*/}
	[ "$spec" = "$src/examples/$name/$name.json" ] || continue
	n=$((n + 1))
	out=$("$tune" "$spec" --strategy random --budget 6 --seed 1 --db "$dir/$name.db" 2>&1) ||
		bad "$name: kjit-tune exit $?"
	printf '%s\n' "$out" | grep -E '^(problem|  best)'
	# each problem's line: ok at least 1, no failure of any kind
	printf '%s\n' "$out" | awk '
		/^problem / { n++
			if ($0 !~ /\(ok [1-9]/ ||
			    $0 !~ /compile_error 0, launch_error 0, crashed 0, timeout 0, wrong_result 0,/)
				bad = 1 }
		END { exit bad || n == 0 }' ||
		bad "$name: a configuration failed, gave a wrong result, or no problem was tuned"
	printf '%s\n' "$out" | grep -q '^  best {' || bad "$name: no best"
done
[ $n -gt 0 ] || bad "no example spec in $src/examples"
[ $fail -eq 0 ] && echo "ok: $n examples tuned on the GPU, every configuration ran and verified"
exit $fail
