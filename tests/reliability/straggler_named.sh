#!/usr/bin/env bash
# One rank made slower on purpose must be the rank `coll` and `sweep` name as
# the straggler. An MPMD launch runs the last rank through a wrapper that
# pins it to one CPU beside four busy loops of its own (about a fifth of that
# CPU), and the other ranks on the other CPUs; the product is unchanged.
# Checked: at least one "# straggler" line, and every one names the slowed
# rank. Usage: straggler_named.sh COMMAND SHARDROOF MPIEXEC [FLAGS...]
# (COMMAND: coll or sweep).
ranks=2
command=$1
shift
. "$(dirname "$0")/lib.sh"

cpus=$(nproc)
[ "$cpus" -ge 2 ] || { echo "skipped: needs 2 CPUs, this machine has $cpus"; exit 77; }
slow_cpu=$((cpus - 1))
fast_cpus=0-$((cpus - 2))
slow=$((ranks - 1))

# The wrapper of the slowed rank: its busy loops end with it.
cat >slowed.sh <<'WRAPPER'
#!/usr/bin/env bash
cpu=$1
shift
loops=()
for _ in 1 2 3 4; do taskset -c "$cpu" sh -c 'while :; do :; done' & loops+=($!); done
taskset -c "$cpu" "$@"
rc=$?
kill "${loops[@]}"
exit $rc
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
[ -n "$named" ] || fail "no straggler named; rank $slow ran on a fifth of a CPU"
echo "$named"
if grep '^# straggler at' out.txt | grep -qv ": rank $slow "; then fail "a rank other than the slowed rank $slow was named"; fi
echo "ok: $command named the slowed rank $slow"
