# Sourced by run-demo and run-tests: create .venv with Python 3.11+ and install the project.
# $1 = extras to install ("test"), optional.
_extras="${1:-}"
_py=""
for candidate in python3.11 python3.12 python3.13 python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    _py="$candidate"; break
  fi
done
if [ -z "$_py" ]; then
  echo "error: Python 3.11 or newer is required (python3.11 or python3 on PATH)" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  "$_py" -m venv .venv
fi
# shellcheck disable=SC1091
source .venv/bin/activate
_stamp=".venv/.installed-${_extras:-base}"
if [ ! -f "$_stamp" ] || [ pyproject.toml -nt "$_stamp" ]; then
  python -m pip install -q --upgrade pip
  if [ -n "$_extras" ]; then
    python -m pip install -q -e ".[${_extras}]"
  else
    python -m pip install -q -e .
  fi
  touch "$_stamp"
fi
