#!/usr/bin/env bash
# An existing results file is never overwritten unless --force: a fresh name
# is chosen and printed (check_no_overwrite in lib.sh), for --json and
# --trace alike. The note is on stderr and the report on stdout; each is
# checked in its own stream (see lib.sh), so the check does not depend on
# how the launcher interleaves them.
. "$(dirname "$0")/lib.sh"
check_no_overwrite coll -b 8 -e 1K -n 2 -w 0 --min-span-s 0 -- --json r.json --trace t.json
python3 -c "import json; json.load(open('r-1.json'))" || fail "r-1.json is not JSON"
python3 -c "import json; json.load(open('t-1.json'))['traceEvents']" || fail "t-1.json is not a trace"
echo "ok: r.json and t.json kept, r-1.json and t-1.json chosen and printed, --force overwrote"
