#!/usr/bin/env bash
# Ends a running `coll --json` in the two ways a cluster does and checks that
# every finished size is still in a parseable file:
#  1. SIGKILL of one rank (a node dies): the job ends, the file holds whole sizes;
#  2. SIGTERM to every rank (a scheduler's time limit): exit status 130, a
#     message saying where the results are, the file marked "interrupted".
. "$(dirname "$0")/lib.sh"
run_args=(coll -b 64K -e 64M -f 2 -n 50 -w 1 --json k.json)

check_json() {  # check_json EXPECTED_INTERRUPTED [EXPECTED_SIZES]
  python3 - "$@" <<'PY' || fail "k.json is not a complete record of the finished sizes"
import json, sys
doc = json.load(open("k.json"))
want_interrupted = sys.argv[1]
rows = doc["results"]
assert rows, "no results"
sizes = sorted({r["bytes"] for r in rows})
impls = {r["impl"] for r in rows}
for s in sizes:  # every size that reached the file is whole: every impl, out of and in place
    assert sum(1 for r in rows if r["bytes"] == s) == 2 * len(impls), f"size {s} incomplete"
for r in rows:
    assert r["time_us"]["median"] > 0 and r["wrong"] == 0, r
assert doc["settings"]["sizes"][:len(sizes)] == sizes
if want_interrupted:
    assert doc.get("interrupted") == want_interrupted, doc.get("interrupted")
if len(sys.argv) > 2:
    assert len(sizes) == int(sys.argv[2]), (len(sizes), sys.argv[2])
print(f"k.json: {len(sizes)} whole sizes, {len(rows)} records")
PY
}

# 1. One rank dies.
start_ranks "${run_args[@]}"
wait_for 120 test -s k.json || fail "no size finished"
kill -KILL "$(cat pid.1)"
finish_launcher 30
[ "$rc" -ne 0 ] || fail "exit status 0 after a rank was killed"
check_json ""
echo "ok: SIGKILL of rank 1 -> exit status $rc, finished sizes kept"

# 2. Every rank gets SIGTERM.
rm -f k.json pid.*
start_ranks "${run_args[@]}"
wait_for 120 test -s k.json || fail "no size finished"
kill -TERM "$(cat pid.0)" "$(cat pid.1)"
finish_launcher 60
[ "$rc" -eq 130 ] || fail "exit status $rc after SIGTERM, expected 130"
grep -Eq "interrupted after [0-9]+ of [0-9]+ sizes; finished sizes are in k.json" err.txt ||
  fail "no message saying where the results are"
done_sizes=$(sed -nE 's/.*interrupted after ([0-9]+) of.*/\1/p' err.txt | head -1)
check_json SIGTERM "$done_sizes"
echo "ok: SIGTERM -> exit status 130, $done_sizes sizes kept and reported"
