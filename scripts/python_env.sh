#!/usr/bin/env bash
# Creates (once) the Python virtual environment of scripts/python-requirements.txt and prints
# its interpreter's path on stdout. Progress goes to stderr.
#
#   scripts/python_env.sh            -> /root/.cache/torchir/venv-<hash>/bin/python
#
# The environment lives outside the checkout, keyed by the requirements file's hash, so a fresh
# clone with the same pins reuses it (as ccache reuses objects) and a changed pin makes a new
# one. Wheels come from PyPI only and are kept in a wheelhouse beside the environments
# (~/.cache/torchir/wheels; pip's HTTP cache stays empty here, the responses are not cacheable),
# so a new environment after a changed pin downloads only what changed. TORCHIR_VENV overrides
# the environment's place.
# The base interpreter is the `python3` first on PATH (3.10 to 3.13: executorch's wheels);
# Debian's /usr/bin/python3 needs the python3-venv package, which scripts/setup.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
requirements=scripts/python-requirements.txt
# Comments do not count: only the pins name the environment.
hash=$(grep -v '^#' "$requirements" | sha256sum | cut -c1-12)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/torchir
venv=${TORCHIR_VENV:-$cache/venv-$hash}
wheels=$cache/wheels

mkdir -p "$cache"
# One creator at a time: a second run waits, then finds the environment complete.
exec 9>"$cache/.lock"
flock 9
if [[ ! -f "$venv/.torchir-complete" ]]; then
  base=$(command -v python3)
  echo "python_env: creating $venv from $base ($("$base" --version 2>&1))" >&2
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$base" -m venv "$venv"
  start=$SECONDS
  # The torch wheel and its CUDA dependencies are ~4 GB (nothing here runs CUDA; the CPU
  # wheels are not on PyPI): about 1.5 minutes from PyPI here, half that from the wheelhouse.
  pip=("$venv/bin/python" -m pip --disable-pip-version-check)
  # `wheel`, not `download`: the one sdist (antlr4-python3-runtime) is built once, too.
  "${pip[@]}" wheel --quiet --find-links "$wheels" -w "$wheels" -r "$requirements" >&2
  "${pip[@]}" install --quiet --no-index --find-links "$wheels" -r "$requirements" >&2
  echo "python_env: installed in $((SECONDS - start)) s" >&2
  touch "$venv/.torchir-complete"
fi
echo "$venv/bin/python"
