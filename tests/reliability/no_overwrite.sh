#!/usr/bin/env bash
# An existing results file is never overwritten unless --force: a fresh name
# is chosen and printed. The note is on stderr and the report on stdout;
# each is checked in its own stream (see lib.sh), so the check does not
# depend on how the launcher interleaves them.
. "$(dirname "$0")/lib.sh"
args=(coll -b 8 -e 1K -n 2 -w 0)
run_ranks "${args[@]}" --json r.json
[ "$rc" -eq 0 ] || fail "first run failed"
before=$(md5sum <r.json)
run_ranks "${args[@]}" --json r.json
[ "$rc" -eq 0 ] || fail "second run failed"
grep -qx -- "--json: 'r.json' exists; writing 'r-1.json' instead (--force overwrites)" err.txt ||
  fail "no note of the fresh name"
grep -q "JSON written to r-1.json" out.txt || fail "the report does not name the fresh file"
[ "$(md5sum <r.json)" = "$before" ] || fail "r.json was overwritten"
python3 -c "import json; json.load(open('r-1.json'))" || fail "r-1.json is not JSON"
run_ranks "${args[@]}" --json r.json --force
[ "$rc" -eq 0 ] || fail "--force run failed"
if grep -q "exists; writing" err.txt; then fail "--force still chose a fresh name"; fi
grep -q "JSON written to r.json" out.txt || fail "--force did not write r.json"
[ ! -e r-2.json ] || fail "--force wrote a fresh file"
# --trace follows the same policy.
run_ranks "${args[@]}" --trace t.json
[ "$rc" -eq 0 ] || fail "first traced run failed"
before=$(md5sum <t.json)
run_ranks "${args[@]}" --trace t.json
[ "$rc" -eq 0 ] || fail "second traced run failed"
grep -qx -- "--trace: 't.json' exists; writing 't-1.json' instead (--force overwrites)" err.txt ||
  fail "no note of the fresh trace name"
grep -q "trace written to t-1.json" out.txt || fail "the report does not name the fresh trace file"
[ "$(md5sum <t.json)" = "$before" ] || fail "t.json was overwritten"
python3 -c "import json; json.load(open('t-1.json'))['traceEvents']" || fail "t-1.json is not a trace"
run_ranks "${args[@]}" --trace t.json --force
[ "$rc" -eq 0 ] || fail "--force traced run failed"
if grep -q "exists; writing" err.txt; then fail "--force still chose a fresh trace name"; fi
[ ! -e t-2.json ] || fail "--force wrote a fresh trace file"
echo "ok: r.json kept, r-1.json chosen and printed, --force overwrote; the same for --trace"
