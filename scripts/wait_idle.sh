# Sourced by the benchmark scripts (bench.sh, bench_peers.sh): waits, up to
# TORCHIR_BENCH_WAIT_IDLE seconds (default 0: no wait), for two quiet 5-second windows,
# since other processes distort the numbers, the 2-thread ones most.
#
#   source scripts/wait_idle.sh
#   wait_for_idle NAME     NAME prefixes the warning printed when the machine stays busy

# The share of the machine's CPU time that was busy over the next $1 seconds.
busy_percent() {
  local before after
  read -ra before < <(awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
  sleep "$1"
  read -ra after < <(awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
  echo $((100 * (after[0] - before[0]) / (after[1] - before[1] + 1)))
}

wait_for_idle() {
  local wait_until=$((SECONDS + ${TORCHIR_BENCH_WAIT_IDLE:-0})) quiet=0 busy
  while :; do
    busy=$(busy_percent 5)
    if ((busy < 10)); then quiet=$((quiet + 1)); else quiet=0; fi
    ((quiet >= 2 || SECONDS >= wait_until)) && break
    echo "   machine ${busy}% busy; waiting for it to be idle" >&2
  done
  ((busy < 10)) || echo "$1: warning: the machine is ${busy}% busy; the numbers will suffer" >&2
}
