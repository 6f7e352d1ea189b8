#!/usr/bin/env bash
# Stops rank 1 with SIGSTOP in the middle of a collective; rank 0's watchdog
# must end the whole job with exit status 5 within --timeout + 10 s, naming
# the operation, its size and itself as a rank still waiting.
. "$(dirname "$0")/lib.sh"
timeout=3
start_ranks coll -b 1M -e 1M -n 1000000 -w 1 --impl ring --timeout "$timeout"
wait_for 60 both_pids || fail "ranks did not start"
wait_for 60 grep -q "^# shardroof coll" out.txt || fail "the run did not reach its measurements"
sleep 1
kill -STOP "$(cat pid.1)"
stopped=$(date +%s)
finish_launcher $(( timeout + 10 ))
elapsed=$(( $(date +%s) - stopped ))
[ "$rc" -eq 5 ] || fail "exit status $rc, expected 5 (timeout)"
grep -Eq "error \(rank 0\): timeout: no progress for 3 s in shardroof coll > all_reduce ring 1 MiB" err.txt ||
  fail "no watchdog message naming the operation, size and rank 0"
grep -q "rank 0 is still waiting" err.txt || fail "the message does not name the waiting rank"
if grep -q "rank 1 is still waiting" err.txt; then fail "the stopped rank reported itself"; fi
echo "ok: watchdog ended the job with status $rc ${elapsed} s after rank 1 stopped (limit $((timeout + 10)) s)"
