#!/usr/bin/env bash
# `shardroof sweep --json --csv` keeps the output policy (README, "Exit
# status and reliability"):
#  1. existing files are never overwritten without --force: fresh names are
#     chosen and printed, for --json and --csv alike;
#  2. SIGTERM to every rank: exit status 130, a message saying where the
#     finished points are, both files holding exactly those points, the JSON
#     marked "interrupted" and not "complete";
#  3. SIGKILL of one rank (a killed sweep): the files left behind parse and
#     hold whole points.
. "$(dirname "$0")/lib.sh"

# 1. No overwrite without --force.
check_no_overwrite sweep --B 64 --F 64 --D 16,32 --warmup 0 --iters 1 -- --json q.json --csv q.csv
check_records sweep q-1.json q-1.csv "" 2
echo "ok: q.json and q.csv kept, fresh names chosen and printed, --force overwrote"

# 2. Every rank gets SIGTERM while every rank holds after the first of five
#    points (start_held in lib.sh): both files hold exactly that point.
points=(sweep --B 64 --F 64 --D 16:256:x2 --warmup 0 --iters 1 --json s.json --csv s.csv)
start_held 1 "${points[@]}"
kill -TERM "$(cat pid.0)" "$(cat pid.1)"
finish_launcher 60
[ "$rc" -eq 130 ] || fail "exit status $rc after SIGTERM, expected 130"
grep -q "interrupted after 1 of 5 points; finished points are in s.json" err.txt ||
  fail "no message saying where the finished points are"
check_records sweep s.json s.csv SIGTERM 1
echo "ok: SIGTERM -> exit status 130, 1 of 5 points kept and reported"

# 3. A killed sweep: one rank dies, held in the same place.
rm -f s.json s.csv
start_held 1 "${points[@]}"
kill -KILL "$(cat pid.1)"
finish_launcher 30
[ "$rc" -ne 0 ] || fail "exit status 0 after a rank was killed"
check_records sweep s.json s.csv "" 1
echo "ok: SIGKILL of rank 1 -> exit status $rc, the finished point kept"
