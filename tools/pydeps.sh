#!/usr/bin/env bash
# Installs the PyPI test drivers of tools/requirements.txt into one virtual environment,
# $GRANDSTAND_CACHE/venv (default .cache/venv), which the tests find there. Idempotent: skipped
# when the requirements are unchanged since the last install. Needs python3-venv (make deps).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${GRANDSTAND_CACHE:-$repo/.cache}
venv=$cache/venv
requirements=$repo/tools/requirements.txt
stamp=$venv/.requirements
if [ -x "$venv/bin/python3" ] && cmp -s "$requirements" "$stamp"; then exit 0; fi
mkdir -p "$cache"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
cp "$requirements" "$stamp"
echo "pydeps: $(grep -v '^#' "$requirements" | xargs) in $venv"
