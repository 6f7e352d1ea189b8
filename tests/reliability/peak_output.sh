#!/usr/bin/env bash
# `shardroof peak --json` keeps the output policy of the other commands
# (README, "Exit status and reliability"):
#  1. an existing file is never overwritten without --force: a fresh name is
#     chosen and printed;
#  2. SIGINT to every rank (Ctrl-C; the other scripts send SIGTERM): exit
#     status 130, a message saying where the finished measurements are, the
#     file marked "interrupted" and holding every datatype measured before
#     the signal.
. "$(dirname "$0")/lib.sh"

# 1. No overwrite without --force.
quick=(peak --datatypes float --size 64 --k 16 --memory-bytes 64K --reduce-elements 1024 --warmup 0 --iters 1)
run_ranks "${quick[@]}" --json p.json
[ "$rc" -eq 0 ] || fail "first run failed"
before=$(md5sum <p.json)
run_ranks "${quick[@]}" --json p.json
[ "$rc" -eq 0 ] || fail "second run failed"
grep -qx -- "--json: 'p.json' exists; writing 'p-1.json' instead (--force overwrites)" err.txt ||
  fail "no note of the fresh name"
grep -q "JSON written to p-1.json" out.txt || fail "the report does not name the fresh file"
[ "$(md5sum <p.json)" = "$before" ] || fail "p.json was overwritten"
check_records peak p-1.json "" 1
run_ranks "${quick[@]}" --json p.json --force
[ "$rc" -eq 0 ] || fail "--force run failed"
if grep -q "exists; writing" err.txt; then fail "--force still chose a fresh name"; fi
[ ! -e p-2.json ] || fail "--force wrote a fresh file"
echo "ok: p.json kept, p-1.json chosen and printed, --force overwrote"

# 2. SIGINT while every rank holds after the first of four measurements
#    (three datatypes, then memory; start_held in lib.sh): the file holds
#    exactly that datatype.
start_held 1 peak --datatypes float,double,bfloat16 --size 64 --k 16 --memory-bytes 64K --reduce-elements 1024 \
  --warmup 0 --iters 1 --json t.json
kill -INT "$(cat pid.0)" "$(cat pid.1)"
finish_launcher 60
[ "$rc" -eq 130 ] || fail "exit status $rc after SIGINT, expected 130"
grep -q "interrupted after 1 of 4 measurements; finished measurements are in t.json" err.txt ||
  fail "no message saying where the finished measurements are"
check_records peak t.json SIGINT 1
echo "ok: SIGINT -> exit status 130, 1 of 4 measurements kept and reported"
