# The emulated links' and Open MPI's transport options that the benches over
# scripts/emulate-links.sh share (--queue, --congestion, --tcp-put), checked
# and handed to emulate-links.sh through its environment. Sourced, not run.
#
#   export_link_options QUEUE CONGESTION TCP_PUT
#     QUEUE       the longest wait in each shaped queue, e.g. 10ms
#     CONGESTION  the ranks' TCP congestion control; `kernel`: the kernel's
#     TCP_PUT     on or off: Open MPI's TCP transport with or without put
# A value it cannot use ends the script with status 2 (usage).
export_link_options() {
  local queue="$1" congestion="$2" tcp_put="$3"
  [[ "$queue" =~ ^[1-9][0-9]*ms$ ]] || { echo "--queue: a time in ms, e.g. 10ms, got '$queue'" >&2; exit 2; }
  [[ "$tcp_put" == on || "$tcp_put" == off ]] || { echo "--tcp-put: on or off, got '$tcp_put'" >&2; exit 2; }
  [[ "$congestion" == kernel ]] && congestion=""
  export SHARDROOF_EMULATE_TBF_LATENCY="$queue"
  export SHARDROOF_EMULATE_CONGESTION="$congestion"
  export SHARDROOF_EMULATE_TCP_PUT="$tcp_put"
}

#   shaper_lines PREFIX RATE CONSOLE...
# One line per distinct shaper that emulate-links.sh named in the consoles
# of the runs at RATE (each run measures its own slack, and the packets it
# is given may differ by layout), with how many runs had it, each line
# starting with PREFIX; nothing where no console names one.
shaper_lines() {
  local prefix="$1" rate="$2"
  shift 2
  { sed -n 's/.*(shaper: \(.*\))$/\1/p' "$@" 2>/dev/null || true; } \
    | sed 's/measured: a bulk transfer at [0-9.]* of the TCP payload rate/measured/' | sort | uniq -c \
    | sed "s/^ *\([0-9]*\) /${prefix}shaper at $rate Gbit\/s (\1 runs): /"
}
