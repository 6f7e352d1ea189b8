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

check_files() {  # check_files JSON CSV EXPECTED_INTERRUPTED [EXPECTED_POINTS]
  python3 - "$@" <<'PY' || fail "$1 / $2 are not a complete record of the finished points"
import csv, json, sys
jpath, cpath, want_interrupted = sys.argv[1], sys.argv[2], sys.argv[3]
doc = json.load(open(jpath))
rows = list(csv.DictReader(open(cpath)))
points = doc["points"]
Ds = doc["settings"]["D"]
assert [p["D"] for p in points] == Ds[:len(points)], "points out of order"
for p in points:  # every point that reached the file is whole
    for t in ("t_math_s", "t_comm_s", "t_step_s"):
        assert 0 < p[t]["min"] <= p[t]["median"] <= p[t]["max"], (p["D"], t)
    assert p["check"]["passed"] is True, p["check"]
assert doc["complete"] == (len(points) == len(Ds))
# The CSV is replaced right after the JSON: a kill between the two leaves it
# one point behind, never ahead.
assert [int(r["D"]) for r in rows] == Ds[:len(rows)], "CSV rows out of order"
if want_interrupted:
    assert doc.get("interrupted") == want_interrupted, doc.get("interrupted")
    assert len(rows) == len(points), (len(rows), len(points))
else:
    assert "interrupted" not in doc
    assert len(points) - 1 <= len(rows) <= len(points), (len(rows), len(points))
if len(sys.argv) > 4:
    assert len(points) == int(sys.argv[4]), (len(points), sys.argv[4])
print(f"{jpath}: {len(points)} of {len(Ds)} points, {cpath}: {len(rows)} rows")
PY
}
has_points() {  # the JSON is written once before the first point: wait for one
  python3 -c "import json, sys; sys.exit(0 if json.load(open('$1'))['points'] else 1)" 2>/dev/null
}

# 1. No overwrite without --force.
quick=(sweep --B 64 --F 64 --D 16,32 --warmup 0 --iters 1)
run_ranks "${quick[@]}" --json q.json --csv q.csv
[ "$rc" -eq 0 ] || fail "first run failed"
before=$(md5sum q.json q.csv)
run_ranks "${quick[@]}" --json q.json --csv q.csv
[ "$rc" -eq 0 ] || fail "second run failed"
grep -qx -- "--json: 'q.json' exists; writing 'q-1.json' instead (--force overwrites)" err.txt ||
  fail "no note of the fresh JSON name"
grep -qx -- "--csv: 'q.csv' exists; writing 'q-1.csv' instead (--force overwrites)" err.txt ||
  fail "no note of the fresh CSV name"
grep -q "JSON written to q-1.json" out.txt && grep -q "CSV written to q-1.csv" out.txt ||
  fail "the report does not name the fresh files"
[ "$(md5sum q.json q.csv)" = "$before" ] || fail "q.json or q.csv was overwritten"
check_files q-1.json q-1.csv "" 2
run_ranks "${quick[@]}" --json q.json --csv q.csv --force
[ "$rc" -eq 0 ] || fail "--force run failed"
if grep -q "exists; writing" err.txt; then fail "--force still chose a fresh name"; fi
[ ! -e q-2.json ] && [ ! -e q-2.csv ] || fail "--force wrote fresh files"
echo "ok: q.json and q.csv kept, fresh names chosen and printed, --force overwrote"

# Points that take a while each (large D, many iterations), so signals land
# between the first point and the last.
long=(sweep --B 512 --F 512 --D 64:65536:x2 --warmup 1 --iters 20 --json s.json --csv s.csv)

# 2. Every rank gets SIGTERM after the first point reached the files.
start_ranks "${long[@]}"
wait_for 180 has_points s.json || fail "no point finished"
kill -TERM "$(cat pid.0)" "$(cat pid.1)"
finish_launcher 120
[ "$rc" -eq 130 ] || fail "exit status $rc after SIGTERM, expected 130"
grep -Eq "interrupted after [0-9]+ of 11 points; finished points are in s.json" err.txt ||
  fail "no message saying where the finished points are"
done_points=$(sed -nE 's/.*interrupted after ([0-9]+) of 11 points.*/\1/p' err.txt | head -1)
check_files s.json s.csv SIGTERM "$done_points"
echo "ok: SIGTERM -> exit status 130, $done_points points kept and reported"

# 3. A killed sweep: one rank dies.
rm -f s.json s.csv pid.*
start_ranks "${long[@]}"
wait_for 180 has_points s.json || fail "no point finished"
kill -KILL "$(cat pid.1)"
finish_launcher 30
[ "$rc" -ne 0 ] || fail "exit status 0 after a rank was killed"
check_files s.json s.csv ""
echo "ok: SIGKILL of rank 1 -> exit status $rc, finished points kept"
