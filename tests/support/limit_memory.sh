# Sourced by the CLI test scripts, which set $radial to the host under test.
# limit_memory KB: an address-space limit for the host run in this subshell. An ASan build
# reserves terabytes of shadow memory, so it gets ASan's own cap on one allocation instead.
limit_memory() {
  if readelf -d "$radial" 2>/dev/null | grep -q 'libasan'; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=$(($1 / 1024))"
  else
    ulimit -v "$1"
  fi
}
