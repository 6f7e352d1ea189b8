#!/usr/bin/env bash
# One rank made slower on purpose must be the rank `coll` and `sweep` name as
# the straggler. An MPMD launch runs the last rank through
# scripts/cpu-limit.sh, which holds it to a fixed share of one CPU (CFS
# bandwidth control of a cgroup v1 cpu group made for this run and removed
# on exit); the product is unchanged. The limit is the kernel's, not a
# contest with busy loops, so the slowdown does not depend on what else
# runs on the machine. Checked: at least one "# straggler" line, and every
# one names the limited rank. Usage: straggler_named.sh COMMAND CHECK
# SHARDROOF MPIEXEC [FLAGS...] (COMMAND: coll or sweep; CHECK: blocking, or
# print to print what was named and fail only when the command fails).
# Exit 77 (skipped) where no writable cpu controller exists.
ranks=2
command=$1
check=$2
shift 2
. "$(dirname "$0")/lib.sh"

# A fifth of the share a rank needs to keep up: the limited rank is several
# times slower than the other, far beyond the report's 10%.
share=0.15
limit="$here/../../scripts/cpu-limit.sh"
slow=$((ranks - 1))
group=$("$limit" create "$share" 2>skip.txt)
case $? in
  0) ;;
  77) cat skip.txt; exit 77 ;;
  *) fail "cpu-limit.sh create: $(cat skip.txt)" ;;
esac
trap '"$limit" remove "$group"; cleanup' EXIT

case $command in
  coll) cmd=(coll -v --impl ring -b 4M -e 4M -n 10 -w 2 --min-span-s 0) ;;
  sweep) cmd=(sweep -v --D 4096 --B 512 --F 512 --iters 5 --warmup 1) ;;
  *) fail "unknown command '$command'" ;;
esac
mpiexec=$1
flags=("${@:2}")
"$mpiexec" "${flags[@]}" -n $((ranks - 1)) "$bin" "${cmd[@]}" : \
  -n 1 "$limit" exec "$group" "$bin" "${cmd[@]}" >out.txt 2>err.txt
rc=$?
no_sanitizer_report
[ "$rc" -eq 0 ] || fail "$command exited with status $rc"
named=$(grep '^# straggler at' out.txt)
verdict=""
if [ -z "$named" ]; then
  verdict="no straggler named; rank $slow ran on $share of a CPU"
elif grep '^# straggler at' out.txt | grep -qv ": rank $slow "; then
  verdict="a rank other than the limited rank $slow was named"
fi
echo "$named"
if [ -n "$verdict" ]; then
  [ "$check" = blocking ] && fail "$verdict"
  echo "not blocking: $verdict"
  exit 0
fi
echo "ok: $command named the limited rank $slow ($share of a CPU)"
