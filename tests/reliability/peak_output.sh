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
check_no_overwrite peak --datatypes float --size 64 --k 16 --memory-bytes 64K --reduce-elements 1024 --warmup 0 \
  --iters 1 -- --json p.json
check_records peak p-1.json "" 1
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
