#!/usr/bin/env bash
# One rank made slower on purpose must be the rank `coll` and `sweep` name as
# the straggler. An MPMD launch runs the last rank through a wrapper that
# pins it to one CPU beside four busy loops of its own (about a fifth of that
# CPU), and the other ranks on the other CPUs; the product is unchanged.
# Checked: at least one "# straggler" line, and every one names the slowed
# rank. Usage: straggler_named.sh COMMAND CHECK SHARDROOF MPIEXEC [FLAGS...]
# (COMMAND: coll or sweep; CHECK: blocking, or print to print what was named
# and fail only when the command fails: inside a collective every rank
# waits for the slowed one and finishes with it, so whether coll names it
# depends on how its last step went; see docs/commands/coll.md).
ranks=2
command=$1
check=$2
shift 2
. "$(dirname "$0")/lib.sh"

cpus=$(nproc)
[ "$cpus" -ge 2 ] || { echo "skipped: needs 2 CPUs, this machine has $cpus"; exit 77; }
slow_cpu=$((cpus - 1))
fast_cpus=0-$((cpus - 2))
slow=$((ranks - 1))

# The wrapper of the slowed rank: its busy loops end with it, and on their
# own after the test's time limit if the wrapper itself was killed.
cat >slowed.sh <<'WRAPPER'
#!/usr/bin/env bash
cpu=$1
shift
loops=()
for _ in 1 2 3 4; do timeout 150 taskset -c "$cpu" sh -c 'while :; do :; done' & loops+=($!); done
trap 'kill "${loops[@]}" 2>/dev/null' EXIT
taskset -c "$cpu" "$@"
exit $?
WRAPPER
chmod +x slowed.sh

case $command in
  coll) cmd=(coll --impl ring -b 4M -e 4M -n 10 -w 2) ;;
  sweep) cmd=(sweep --D 4096 --B 512 --F 512 --iters 5 --warmup 1) ;;
  *) fail "unknown command '$command'" ;;
esac
mpiexec=$1
flags=("${@:2}")
"$mpiexec" "${flags[@]}" -n $((ranks - 1)) taskset -c "$fast_cpus" "$bin" "${cmd[@]}" : \
  -n 1 ./slowed.sh "$slow_cpu" "$bin" "${cmd[@]}" >out.txt 2>err.txt
rc=$?
no_sanitizer_report
[ "$rc" -eq 0 ] || fail "$command exited with status $rc"
named=$(grep '^# straggler at' out.txt)
verdict=""
if [ -z "$named" ]; then
  verdict="no straggler named; rank $slow ran on a fifth of a CPU"
elif grep '^# straggler at' out.txt | grep -qv ": rank $slow "; then
  verdict="a rank other than the slowed rank $slow was named"
fi
echo "$named"
if [ -n "$verdict" ]; then
  [ "$check" = blocking ] && fail "$verdict"
  echo "not blocking: $verdict"
  exit 0
fi
echo "ok: $command named the slowed rank $slow"
