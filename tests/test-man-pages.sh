#!/bin/sh
# test-man-pages: the man pages agree on their date and source (.TH),
# groff formats each without a warning, kjit-tune(1)'s --json error object
# renders with its quotes, and kjit-tune(1) FILES names every example
# folder that holds a spec.
src=${KJIT_SRCDIR:-$(dirname "$0")/..}
fail=0
first=
for page in "$src"/doc/*.1 "$src"/doc/*.3 "$src"/doc/*.5; do
	# .TH NAME SECTION DATE SOURCE MANUAL, the quotes dropped
	th=$(grep -m1 '^\.TH ' "$page" | sed 's/"//g' | awk '{ print $4, $5, $6, $7, $8 }')
	if [ -z "$first" ]; then
		first=$th
		firstpage=$page
	elif [ "$th" != "$first" ]; then
		echo "FAIL: ${page##*/}: .TH says '$th', ${firstpage##*/} says '$first'"
		fail=1
	fi
	if command -v groff >/dev/null 2>&1; then
		warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
		[ -z "$warnings" ] || { echo "FAIL: groff warns of ${page##*/}:"; echo "$warnings"; fail=1; }
	fi
done
# JSON as it renders: its quotes kept
if command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -rLL=250n "$src/doc/kjit-tune.1" 2>/dev/null | sed 's/.\x08//g' |
		tr -s ' ' | grep -qF '{"spec": PATH, "error": MESSAGE}' ||
		{ echo "FAIL: kjit-tune(1) --json: the error object renders without its quotes"; fail=1; }
fi
files=$(sed -n '/^\.SH FILES/,/^\.SH /p' "$src/doc/kjit-tune.1")
for spec in "$src"/examples/*/*.json; do
	d=$(basename "$(dirname "$spec")")
	printf '%s\n' "$files" | grep -q "^\.B[IR]* $d\( \|$\)" ||
		{ echo "FAIL: kjit-tune(1) FILES does not name examples/$d"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "ok: the man pages say '$first'; FILES names every example"
exit $fail
