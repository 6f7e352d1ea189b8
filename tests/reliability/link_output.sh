#!/usr/bin/env bash
# `shardroof link --json` keeps the output policy of the other commands
# (README, "Exit status and reliability"), on 3 ranks (3 pairs):
#  1. an existing file is never overwritten without --force: a fresh name is
#     chosen and printed; --force overwrites;
#  2. SIGTERM to every rank: exit status 130, a message saying where the
#     finished pairs are, the file marked "interrupted" and holding them;
#  3. SIGKILL of one rank: the job ends, the file holds whole pairs;
#  4. a pair member stopped with SIGSTOP: the watchdog of the other member
#     ends the job with status 5, naming the pair and the size, while the
#     rank outside the pair, waiting longer than --timeout, does not report.
ranks=3
. "$(dirname "$0")/lib.sh"

# 1. No overwrite without --force.
check_no_overwrite link -b 8 -e 1K -n 2 -w 0 -- --json l.json
check_records link l-1.json "" 3
check_records link l.json "" 3
echo "ok: l.json kept, l-1.json chosen and printed, --force overwrote"

# 2. Every rank gets SIGTERM while every rank holds after the first of the
#    three pairs (start_held in lib.sh): the file holds exactly that pair.
pairs=(link -b 1K -e 16K -f 4 -n 2 -w 1 --json t.json)
start_held 1 "${pairs[@]}"
kill -TERM $(cat pid.0 pid.1 pid.2)
finish_launcher 60
[ "$rc" -eq 130 ] || fail "exit status $rc after SIGTERM, expected 130"
grep -q "interrupted after 1 of 3 pairs; finished pairs are in t.json" err.txt ||
  fail "no message saying where the finished pairs are"
check_records link t.json SIGTERM 1
echo "ok: SIGTERM -> exit status 130, 1 of 3 pairs kept and reported"

# 3. One rank dies, held in the same place.
rm -f t.json
start_held 1 "${pairs[@]}"
kill -KILL "$(cat pid.2)"
finish_launcher 30
[ "$rc" -ne 0 ] || fail "exit status 0 after a rank was killed"
check_records link t.json "" 1
echo "ok: SIGKILL of rank 2 -> exit status $rc, the finished pair kept"

# 4. Rank 1 stops in the middle of pair 0-1, which by itself lasts far longer
#    than --timeout (a million round trips of 1 MiB); rank 2 waits for it.
timeout=3
start_ranks link -b 1M -e 1M -n 1000000 -w 1 --timeout "$timeout"
wait_for 60 all_pids || fail "ranks did not start"
wait_for 60 grep -q "^# shardroof link" out.txt || fail "the run did not reach its measurements"
sleep $((timeout + 1))  # longer than --timeout: rank 2 has waited through it
kill -STOP "$(cat pid.1)"
stopped=$(date +%s)
finish_launcher $((timeout + 10))
elapsed=$(( $(date +%s) - stopped ))
[ "$rc" -eq 5 ] || fail "exit status $rc, expected 5 (timeout)"
grep -Eq "error \(rank 0\): timeout: no progress for 3 s in shardroof link > pair 0-1 > 1 MiB > (timed|warm-up) iteration" err.txt ||
  fail "no watchdog message naming the pair, the size and rank 0"
if grep -Eq "rank [12] is still waiting" err.txt; then fail "the stopped rank or the rank outside the pair reported"; fi
echo "ok: watchdog ended the job with status $rc ${elapsed} s after rank 1 stopped (limit $((timeout + 10)) s)"
