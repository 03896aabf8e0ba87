#!/usr/bin/env bash
# PROMISE: running the host from a folder that holds a library named like one of its
# dependencies never loads that library (a RUNPATH "lib:" has an empty entry, which searches
# the current folder). Usage: current_folder_library.sh RADIAL_HOST COMPILER
set -euo pipefail
host=$(realpath "$1")
cc=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/evil.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void evil(void) {
  FILE* f = fopen("evil-ran", "w");
  if (f) fclose(f);
  _exit(42);
}
C
# Every library the host and its plugins need, by the name the loader looks for (but the C and
# C++ runtimes, which a planted copy would break before any constructor runs).
needed=$( (readelf -d "$host"; readelf -d "$(dirname "$host")"/../lib*/libradial.so*; \
           for p in "$(dirname "$host")"/../lib*/radial/plugins/*.so; do readelf -d "$p"; done) 2>/dev/null |
         sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | sort -u |
         grep -Ev '^(libc|libm|libmvec|libstdc\+\+|libgcc_s|libpthread|libdl|ld-linux.*)\.so' || true)
[ -n "$needed" ] || { echo "FAIL: no NEEDED entries read from $host"; exit 1; }
for lib in $needed; do
  "$cc" -x c -shared -fPIC -o "$work/$lib" "$work/evil.c"
done
cd "$work"
set +e
"$host" --version > out.txt 2>&1
rc=$?
"$host" plugins list >> out.txt 2>&1
rc2=$?
set -e
if [ -e evil-ran ] || [ "$rc" -eq 42 ] || [ "$rc2" -eq 42 ]; then
  echo "FAIL: the host loaded a library from the current folder ($(echo $needed))"
  exit 1
fi
[ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] || { echo "FAIL: the host failed: $(cat out.txt)"; exit 1; }
echo "ok: $(echo "$needed" | wc -w) libraries planted in the current folder, none loaded"
