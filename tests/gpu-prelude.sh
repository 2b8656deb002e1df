# gpu-prelude.sh - sourced by the GPU shell tests after they set $build:
# exits 77 without a GPU, makes a private scratch folder $dir (removed on
# exit), turns telemetry off, and gives fail and bad() to count failures.
if ! gpu=$("$build/examples/saxpy/kjit-saxpy" --check-gpu 2>&1); then
	echo "SKIP: needs a GPU: $gpu"
	exit 77
fi
echo "$gpu"
dir=$(mktemp -d) || exit 1
chmod 700 "$dir"
trap 'rm -rf "$dir"' EXIT
export KJIT_TELEMETRY=0
fail=0
bad() { echo "FAIL: $*"; fail=1; }
