#!/usr/bin/env bash
# `shardroof report` opened in a real browser (headless Chromium):
#
#   check_report_browser.sh SHARDROOF OUTDIR [--skipped TEXT]... -- RECORD...
#
# writes OUTDIR/report.html from the records, loads it in Chromium and
# fails on any console message (the page has no script, so a message is an
# error: a blocked fetch, a bad SVG), on a section the records feed that is
# not in the rendered page (`shardroof report -v` names them), on the
# answer's first line missing from the page, and, for each --skipped TEXT,
# on the page's "skipped" section not naming it. Saves OUTDIR/report.png.
# Exits 77 (skipped) where no Chromium is installed.
set -euo pipefail
bin=$1 out=$2
shift 2
skipped=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    --skipped) skipped+=("$2"); shift 2 ;;
    *) echo "check_report_browser: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
shift
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIPPED: no chromium (Debian: apt-get install chromium)"
  exit 77
fi
mkdir -p "$out"
rm -f "$out/report.html" "$out/report.png"
"$bin" report -v --force -o "$out/report.html" "$@" > "$out/console.txt"
cat "$out/console.txt"
sections=$(sed -n 's/^# [0-9]* records read; sections: //p' "$out/console.txt" | tr -d ',')
answer=$(sed -n '2p' "$out/console.txt")
[ -n "$sections" ] || { echo "FAIL: shardroof report named no sections"; exit 1; }

# Chromium as root needs --no-sandbox; its own D-Bus and GPU warnings are
# not the page's. A page's console messages are logged as "INFO:CONSOLE".
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr --v=0
       --user-data-dir="$out/chromium-profile")
url="file://$(cd "$out" && pwd)/report.html"
timeout 120 "$browser" "${flags[@]}" --dump-dom "$url" > "$out/dom.html" 2> "$out/chromium-dom.log"
timeout 120 "$browser" "${flags[@]}" --window-size=1280,3600 --screenshot="$out/report.png" "$url" \
  > /dev/null 2> "$out/chromium-screenshot.log"

fail=0
if grep -h ':CONSOLE' "$out/chromium-dom.log" "$out/chromium-screenshot.log"; then
  echo "FAIL: the page logged to the browser's console (above)"
  fail=1
fi
for s in $sections; do
  if grep -q "<section id=\"$s\">" "$out/dom.html"; then
    echo "rendered: section $s"
  else
    echo "FAIL: section '$s' is not in the rendered page"
    fail=1
  fi
done
# The DOM escapes &, < and > in text.
escaped=$(printf '%s' "$answer" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g')
if grep -qF -- "$escaped" "$out/dom.html"; then
  echo "rendered: the answer ($answer)"
else
  echo "FAIL: the answer's line '$answer' is not in the rendered page"
  fail=1
fi
for t in "${skipped[@]}"; do
  if sed -n '/<section id="skipped">/,/<\/section>/p' "$out/dom.html" | grep -qF -- "$t"; then
    echo "rendered: skipped names '$t'"
  else
    echo "FAIL: the page's skipped section does not name '$t'"
    fail=1
  fi
done
if [ ! -s "$out/report.png" ] || [ "$(head -c 4 "$out/report.png" | tail -c 3)" != "PNG" ]; then
  echo "FAIL: no screenshot"
  fail=1
else
  echo "screenshot: $out/report.png"
fi
exit $fail
