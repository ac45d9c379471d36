#!/usr/bin/env bash
# Makes (or reuses) the tools' virtual environment .venv-tools at the repository root with
# tools/requirements.txt and the converter (tools/convert) installed; `--rd` adds
# tools/requirements-rd.txt (training and the RD report). Reused while the requirement files
# are unchanged (a stamp holds their SHA-256). Prints the venv's python on standard output.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${WAIHOST_TOOLS_VENV:-.venv-tools}
reqs=(tools/requirements.txt)
[ "${1:-}" = "--rd" ] && reqs+=(tools/requirements-rd.txt)
want=$(cat "${reqs[@]}" tools/convert/pyproject.toml | sha256sum | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$want" ]; then
  echo "$venv/bin/python"
  exit 0
fi
start=$(date +%s)
python3 -m venv "$venv" >&2
for r in "${reqs[@]}"; do "$venv/bin/pip" install -q -r "$r" >&2; done
"$venv/bin/pip" install -q --no-deps -e ./tools/convert >&2
echo "$want" > "$venv/.stamp"
echo "tools/venv.sh: $venv made in $(( $(date +%s) - start )) s, $(du -sh "$venv" | cut -f1)" >&2
echo "$venv/bin/python"
