#!/usr/bin/env bash
# Ends a running `coll --json` in the two ways a cluster does and checks that
# every finished size is still in a parseable file:
#  1. SIGKILL of one rank (a node dies): the job ends, the file holds whole sizes;
#  2. SIGTERM to every rank (a scheduler's time limit): exit status 130, a
#     message saying where the results are, the file marked "interrupted".
# The ranks hold after the first of four sizes until the signal (start_held
# in lib.sh), so the file holds exactly that size on a machine of any speed
# (one round: with more, a size is finished after its last round).
. "$(dirname "$0")/lib.sh"
run_args=(coll -b 1K -e 64K -f 4 -n 2 -w 1 --rounds 1 --min-span-s 0 --json k.json)

# 1. One rank dies.
start_held 1 "${run_args[@]}"
kill -KILL "$(cat pid.1)"
finish_launcher 30
[ "$rc" -ne 0 ] || fail "exit status 0 after a rank was killed"
check_records coll k.json "" 1
echo "ok: SIGKILL of rank 1 -> exit status $rc, the finished size kept"

# 2. Every rank gets SIGTERM.
rm -f k.json
start_held 1 "${run_args[@]}"
kill -TERM "$(cat pid.0)" "$(cat pid.1)"
finish_launcher 60
[ "$rc" -eq 130 ] || fail "exit status $rc after SIGTERM, expected 130"
grep -q "interrupted after 1 of 4 sizes; finished sizes are in k.json" err.txt ||
  fail "no message saying where the results are"
check_records coll k.json SIGTERM 1
echo "ok: SIGTERM -> exit status 130, 1 of 4 sizes kept and reported"
