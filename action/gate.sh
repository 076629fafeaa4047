#!/usr/bin/env bash
# The composite action's gate step (action.yml): dpverify check, and check --base when a base
# revision is given, each writing its reports; then an audit report per failed (or named) spec.
# The step itself always succeeds, so that the reports are uploaded; the exit status of the gate
# goes to the step's "status" output, and the action's last step fails the job on it.
set -uo pipefail
python="${INPUT_PYTHON:-python3}"
out="${INPUT_OUTPUT_DIRECTORY:-dpverify-report}"
mkdir -p "$out/sarif" "$out/audit"
out="$(cd "$out" && pwd)"
output="${GITHUB_OUTPUT:-/dev/null}"
echo "report-directory=$out" >> "$output"

selection=()
for module in ${INPUT_SPEC_MODULES:-}; do selection+=(--spec-module "$module"); done
for name in ${INPUT_SPECS:-}; do selection+=(--spec "$name"); done
limit=(--time-limit "${INPUT_TIME_LIMIT:-120}")
options=("${limit[@]}")
if [ -n "${INPUT_JOBS:-}" ]; then options+=(--jobs "$INPUT_JOBS"); fi
if [ -n "${INPUT_SEED:-}" ]; then options+=(--seed "$INPUT_SEED"); fi

"$python" -m dpverify check "${selection[@]}" "${options[@]}" --junit "$out/junit.xml" --json "$out/check.json" \
  --sarif "$out/sarif/check.sarif" 2>&1 | tee "$out/check.txt"
status=${PIPESTATUS[0]}

if [ -n "${INPUT_BASE:-}" ]; then
  "$python" -m dpverify check --base "$INPUT_BASE" "${selection[@]}" "${limit[@]}" \
    --sarif "$out/sarif/check-base.sarif" 2>&1 | tee "$out/check-base.txt"
  base_status=${PIPESTATUS[0]}
  if [ "$status" = 0 ]; then status=$base_status; fi
fi

case "${INPUT_AUDIT:-failed}" in
  none) audited=() ;;
  failed)
    # The specs with a case that missed its expectation, read from the check's JSON report.
    mapfile -t audited < <("$python" - "$out/check.json" <<'PY'
import json, sys
try:
    with open(sys.argv[1], encoding="utf-8") as handle:
        entries = json.load(handle)["entries"]
except (OSError, ValueError, KeyError):
    entries = []
print("\n".join(dict.fromkeys(entry["spec"] for entry in entries if not entry["met"])))
PY
    ) ;;
  *) read -r -a audited <<< "$INPUT_AUDIT" ;;
esac
modules=()
for module in ${INPUT_SPEC_MODULES:-}; do modules+=(--spec-module "$module"); done
for name in "${audited[@]}"; do
  [ -n "$name" ] || continue
  echo "dpverify audit $name"
  seed=()
  if [ -n "${INPUT_SEED:-}" ]; then seed=(--seed "$INPUT_SEED"); fi
  # An audit's own exit status is the spec's verdict, which the gate above already reported.
  "$python" -m dpverify audit "$name" "${modules[@]}" "${limit[@]}" "${seed[@]}" --out "$out/audit/$name" \
    || echo "dpverify audit $name: exit $? (its report says why)"
done

echo "status=$status" >> "$output"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    echo "### dpverify"
    echo '```'
    tail -n 1 "$out/check.txt"
    if [ -f "$out/check-base.txt" ]; then tail -n 1 "$out/check-base.txt"; fi
    echo '```'
  } >> "$GITHUB_STEP_SUMMARY"
fi
exit 0
