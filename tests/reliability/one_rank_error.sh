#!/usr/bin/env bash
# An error that only one rank sees in the middle of a run (rank 0 can no
# longer replace its results file) must end the whole job within seconds with
# one message naming that rank and a non-zero status, not hang the others.
. "$(dirname "$0")/lib.sh"
start_ranks coll -b 64K -e 64M -f 2 -n 20 -w 1 --min-span-s 0 --json k.json
wait_for 120 test -s k.json || fail "no size finished"
# The next atomic rename onto a directory fails, on rank 0 only. Rank 0 may
# rename a fresh k.json into place between the rm and the mkdir: try again.
for _ in $(seq 100); do rm -f k.json; mkdir k.json 2>/dev/null && break; done
[ -d k.json ] || fail "could not put a directory in place of k.json"
broken=$(date +%s)
finish_launcher 30
elapsed=$(( $(date +%s) - broken ))
[ "$rc" -eq 3 ] || fail "exit status $rc, expected 3 (runtime error)"
grep -Eq "shardroof: error \(rank 0\): cannot replace 'k.json'" err.txt || fail "no message naming rank 0"
[ "$(grep -c 'shardroof: error' err.txt)" -eq 1 ] || fail "more than one error message"
echo "ok: rank 0's error ended the job with status $rc ${elapsed} s later"
