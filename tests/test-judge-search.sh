#!/bin/sh
# test-judge-search: judge-search reads bench-search's real output on a
# recorded space and Kernel Tuner's lines beside it (in bench-search-kt's
# form, placed one evaluation either side of the default's real medians):
# a tie within one is met, more is behind; with --fresh the strategy
# picked on the first run is judged on the second's medians; --against
# judges against one strategy; input it cannot read is an error that
# names the file and the space.
src=${KJIT_SRCDIR:-${srcdir:-.}}
build=${KJIT_BUILDDIR:-.}
py=${KJIT_PYTHON:-python3}
command -v "$py" >/dev/null 2>&1 || { echo "SKIP: no $py"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $1"; exit 1; }

spec=$src/examples/mandelbrot/mandelbrot.json
csv=$src/tests/data/mandelbrot-h100.csv
"$build/bench/bench-search" "$spec" "$csv" --seeds 9 --strategy hybrid >"$tmp/kjit" ||
	fail "bench-search failed"
"$build/bench/bench-search" "$spec" "$csv" --seeds 9 --first-seed 10 --strategy hybrid \
	>"$tmp/kjit2" || fail "bench-search --first-seed failed"
# the default's medians, as bench-search printed them
med() { sed -n "s/^  hybrid  *within $2%: median \([0-9.]*\) evaluations.*/\1/p" "$1"; }
m5=$(med "$tmp/kjit" 5) m1=$(med "$tmp/kjit" 1) f5=$(med "$tmp/kjit2" 5) f1=$(med "$tmp/kjit2" 1)
[ -n "$m5" ] && [ -n "$m1" ] && [ -n "$f5" ] && [ -n "$f1" ] || fail "no medians in bench-search's output"
size=$(sed -n 's/.*: \([0-9]*\) configurations.*/\1/p' "$tmp/kjit" | head -1)

# kt FILE NAME MEDIAN5 MEDIAN1 ...: Kernel Tuner's lines, as bench-search-kt prints them
kt() {
	f=$1
	shift
	echo "bench-search-kt: $spec on $csv: $size configurations, Kernel Tuner 1.5.0, 9 seeds" >>"$f"
	while [ $# -gt 0 ]; do
		printf '  %-20s within 5%%: median %s evaluations (0.1 of the space)\n' "$1" "$2" >>"$f"
		printf '  %-20s within 1%%: median %s evaluations (0.1 of the space)\n' "$1" "$3" >>"$f"
		shift 3
	done
}
add() { awk "BEGIN { print $1 + $2 }"; }
# at 5% the best is one evaluation below the default (a tie: met); at 1%
# one and a half below (behind)
cp "$tmp/kjit" "$tmp/run"
kt "$tmp/run" alpha "$(add "$m5" -1)" "$(add "$m1" 5)" beta "$(add "$m5" 3)" "$(add "$m1" -1.5)"
out=$("$py" "$src/bench/judge-search" "$tmp/run") || fail "exit status $? on a good run"
echo "$out"
echo "$out" | grep -q '^mandelbrot-h100  *5% .* alpha  *met$' || fail "a tie within one is not met"
echo "$out" | grep -q '^mandelbrot-h100  *1% .* beta  *behind$' || fail "1.5 more is not behind"
echo "$out" | grep -q '^met 1 of 2;' || fail "the count is not 1 of 2"
echo "$out" | grep -q '^  alpha  *1 of 2$' || fail "alpha against the best of the others"

# --fresh: alpha and beta picked on run, their medians and the default's
# from the second run, where alpha is 2 ahead at 5% and beta level at 1%
cp "$tmp/kjit2" "$tmp/fresh"
kt "$tmp/fresh" alpha "$(add "$f5" -2)" "$(add "$f1" 9)" beta "$(add "$f5" -9)" "$f1"
out=$("$py" "$src/bench/judge-search" "$tmp/run" --fresh "$tmp/fresh") || fail "exit status $? with --fresh"
echo "$out"
echo "$out" | grep -q '^mandelbrot-h100  *5% .* alpha  *behind$' || fail "--fresh: not alpha's fresh median"
echo "$out" | grep -q '^mandelbrot-h100  *1% .* beta  *met$' || fail "--fresh: not beta's fresh median"

# --against alpha: at 1% alpha is 5 behind the default, so met there too
out=$("$py" "$src/bench/judge-search" "$tmp/run" --against alpha) || fail "exit status $? with --against"
echo "$out" | grep -q '^mandelbrot-h100  *1% .* alpha  *met$' || fail "--against: not alpha at 1%"
echo "$out" | grep -q '^met 2 of 2;' || fail "--against: the count is not 2 of 2"
"$py" "$src/bench/judge-search" "$tmp/run" --against gamma >/dev/null 2>&1
[ $? -eq 1 ] || fail "--against a strategy not run: not exit 1"

# input it cannot read
out=$("$py" "$src/bench/judge-search" "$tmp/kjit" 2>&1)
[ $? -eq 1 ] || fail "a run without Kernel Tuner's lines: not exit 1"
echo "$out" | grep -q 'mandelbrot-h100: no Kernel Tuner median' || fail "the space is not named: $out"
out=$("$py" "$src/bench/judge-search" "$tmp/run" --fresh "$tmp/none" 2>&1)
[ $? -eq 1 ] || fail "a missing file: not exit 1"
echo "$out" | grep -q "$tmp/none" || fail "the missing file is not named: $out"
: >"$tmp/empty"
out=$("$py" "$src/bench/judge-search" "$tmp/empty" 2>&1)
[ $? -eq 1 ] || fail "an empty file: not exit 1"
"$py" "$src/bench/judge-search" --no-such-option "$tmp/run" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a bad option: not exit 2"
echo "PASS"
