#!/bin/sh
# test-gpu-tune-profile: on a GPU, kjit-tune --profile stores each ok
# configuration's counters (saxpy's DRAM bytes within 2% of 12n) and the
# exports carry them; --profile best profiles the best (and a near-tie that
# measuring it again crowns, up to three); --objective
# energy chooses the best by energy per launch (with NVML) and says so;
# each objective after another on one database measures what the store
# lacks for it and skips what it has.
# kjit-top's snapshot of the database reads the profiles. Exit 77 without
# a GPU.
build=${KJIT_BUILDDIR:-.}
src=${KJIT_SRCDIR:-.}
tune=$build/autotune/kjit-tune
spec=$src/examples/saxpy/saxpy.json
. "$src/tests/gpu-prelude.sh"

# every ok configuration profiled
out=$("$tune" "$spec" --strategy random --budget 4 --seed 3 --profile --early-stop 0 \
	--db "$dir/a.db" 2>&1) || bad "--profile: exit $?"
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q '^  best {.* by time.*of peak' ||
	bad "--profile: the best's line has no share of the peak"
csv=$("$tune" "$spec" --export csv --db "$dir/a.db") || bad "--export csv: exit $?"
printf '%s\n' "$csv" | head -3
# the DRAM columns of each ok row: read + write within 2% of 12n
n=67108864
rows=$(printf '%s\n' "$csv" | awk -F, -v n=$n '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["status"] == "ok" {
		b = $col["dram_read_bytes"] + $col["dram_write_bytes"]; r = b / (12 * n)
		printf "%s %.4f\n", $col["dram_read_bytes"] == "" ? "missing" : "ok", r
	}')
echo "$rows"
[ -n "$rows" ] || bad "--export csv: no ok row"
printf '%s\n' "$rows" | awk '$1 != "ok" || $2 < 0.98 || $2 > 1.02 { bad = 1 } END { exit bad }' ||
	bad "saxpy's DRAM bytes not within 2% of 12n in every ok row"
json=$("$tune" "$spec" --export json --db "$dir/a.db") || bad "--export json: exit $?"
printf '%s\n' "$json" | grep -q '"dram_read_bytes"' || bad "--export json: no profile"
"$tune" "$spec" --export t4 --db "$dir/a.db" | grep -q 'dram_read_bytes' ||
	bad "--export t4: no profile"
top=$("$build/tui/kjit-top" --json --db "$dir/a.db") || bad "kjit-top --json: exit $?"
printf '%s\n' "$top" | grep -q 'saxpy' || bad "kjit-top: no saxpy kernel"

# --profile best: the best has a profile; measuring it again can crown a
# near-tie, which is then profiled too (kjit-tune(1): up to three in all)
"$tune" "$spec" --strategy random --budget 4 --seed 3 --profile best \
	--db "$dir/b.db" > "$dir/b.out" 2>&1 || bad "--profile best: exit $?"
cat "$dir/b.out"
grep -q '^  best {.*of peak' "$dir/b.out" || bad "--profile best: the best's line has no peak"
profiled=$("$tune" "$spec" --export csv --db "$dir/b.db" | awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["dram_read_bytes"] != "" { n++ } END { print n + 0 }')
[ "$profiled" -ge 1 ] && [ "$profiled" -le 3 ] ||
	bad "--profile best: $profiled rows with a profile, expected 1 to 3"

# --objective energy; without NVML's energy, no best: said, and exit 1
"$tune" "$spec" --strategy random --budget 3 --seed 5 --objective energy \
	--db "$dir/c.db" > "$dir/c.out" 2>&1
rc=$?
cat "$dir/c.out"
nvml=1
if grep -q 'no result has an energy measurement' "$dir/c.out"; then
	nvml=0
	echo "note: no NVML energy here; the objective said so"
	[ "$rc" = 1 ] || bad "--objective energy with no best: exit $rc, expected 1"
else
	[ "$rc" = 0 ] || bad "--objective energy: exit $rc"
	grep -q '^  best {.* by energy, [0-9.e+-]* J per launch' "$dir/c.out" ||
		bad "--objective energy: the best's line names no energy"
fi

# one objective after another on one database: what the store lacks for
# the new objective (energy, where only times are) is measured, what it
# has is skipped, and each run ends with its best
objective() { # DB OBJECTIVE EVALUATED SKIPPED
	out=$("$tune" "$spec" --strategy random --budget 4 --seed 7 --objective "$2" \
		--db "$dir/$1" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E 'evaluated|best'
	printf '%s\n' "$out" | grep -q "evaluated $3, skipped $4 " ||
		bad "$1, --objective $2 after the runs before: not 'evaluated $3, skipped $4'"
	[ "$rc" = 0 ] || bad "$1, --objective $2: exit $rc"
	printf '%s\n' "$out" | grep -q "^  best {.* by $2" || bad "$1, --objective $2: no best by $2"
}
if [ "$nvml" = 1 ]; then
	objective d.db time 4 0
	objective d.db energy 4 0 # time alone known: measured again, for energy
	objective d.db time 0 4
	objective d.db edp 0 4
	objective d.db energy 0 4
	objective e.db time 4 0
	objective e.db edp 4 0    # edp needs energy: measured
	objective e.db time 0 4
	objective f.db energy 4 0
	objective f.db time 0 4
	objective f.db edp 0 4
fi
[ "$fail" -eq 0 ] && echo "ok: profiles and energy from kjit-tune to the store, the exports and kjit-top"
exit $fail
