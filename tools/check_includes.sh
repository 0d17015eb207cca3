#!/usr/bin/env bash
# Fails if a file of the tree includes a deprecated forwarding header (one whose first
# line is `// deprecated: include ...`): those stay for users' existing includes only.
# Prints each offending include with the header's replacement.
set -uo pipefail
cd "$(dirname "$0")/.."

mapfile -t deprecated < <(git ls-files '*.h' | while read -r h; do
  head -n 1 "$h" | grep -q '^// deprecated: include ' && echo "$h"
done)
[ "${#deprecated[@]}" -gt 0 ] || { echo "check_includes: no deprecated header found"; exit 0; }
bad=0
for h in "${deprecated[@]}"; do
  while IFS= read -r hit; do
    echo "check_includes: $hit: $(head -n 1 "$h" | sed 's|^// ||')"
    bad=1
  done < <(git grep -n -F "#include \"$h\"" -- '*.h' '*.cc' '*.inc' '*.cpp' | grep -v "^$h:")
done
echo "check_includes: ${#deprecated[@]} deprecated headers, $([ $bad -eq 0 ] && echo none || echo some) included from the tree"
exit "$bad"
