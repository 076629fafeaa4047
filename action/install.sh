#!/usr/bin/env bash
# The composite action's first step (action.yml): dpverify from the action's own checkout, then
# the package under test, into the runner's Python.
set -euo pipefail
python="${INPUT_PYTHON:-python3}"
if [ "${INPUT_INSTALL_DPVERIFY:-true}" = true ]; then
  "$python" -m pip install --disable-pip-version-check "$DPVERIFY_ACTION_PATH"
fi
if [ -n "${INPUT_INSTALL:-}" ]; then
  # Several requirements may be given ("." ".[test]" extra-package), so the words split.
  # shellcheck disable=SC2086
  "$python" -m pip install --disable-pip-version-check $INPUT_INSTALL
fi
"$python" -m dpverify --version
