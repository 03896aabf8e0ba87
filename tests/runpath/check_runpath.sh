#!/usr/bin/env bash
# Every ELF file under the given folders names only $ORIGIN-relative library folders in its
# RUNPATH/RPATH: an empty entry (as in "lib:" or "::::") means "the current folder", and an
# absolute one ties a build to where it was built.
# Usage: check_runpath.sh FOLDER...
set -uo pipefail
checked=0
bad=0
while IFS= read -r -d '' file; do
  [ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
  checked=$((checked + 1))
  while IFS= read -r path; do
    IFS=':' read -r -a entries <<< "$path:"  # the extra ':' keeps a trailing empty entry
    for ((i = 0; i < ${#entries[@]} - 1; ++i)); do
      entry=${entries[$i]}
      if [ -z "$entry" ]; then
        echo "FAIL: $file: RUNPATH '$path' has an empty entry (the current folder)"
        bad=$((bad + 1))
      elif [[ "$entry" != '$ORIGIN'* ]]; then
        echo "FAIL: $file: RUNPATH entry '$entry' is not relative to \$ORIGIN"
        bad=$((bad + 1))
      fi
    done
  done < <(readelf -d "$file" 2>/dev/null | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p')
done < <(find "$@" -type f \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) -print0)
if [ "$checked" -eq 0 ]; then
  echo "FAIL: no ELF file found under $*"
  exit 1
fi
echo "checked $checked ELF files: $bad bad RUNPATH entries"
[ "$bad" -eq 0 ]
