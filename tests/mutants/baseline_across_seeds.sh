#!/usr/bin/env bash
# A baseline of one bug holds across seeds, and a second bug fails it (docs/design.md, "Expected
# failures"). ONE is a plugin with one bug; TWO has the same bug and a second one (mutant_pair.cpp.in).
#   1. certify ONE at seed 1: it fails, and `dmlcert baseline` lists one cause;
#   2. with that list (--expect), ONE passes at seeds 2 to 6 and its failures print as known;
#   3. TWO fails it, naming the new cause, and ONE fails it with --unexpected-passes-fail once the
#      list holds an entry for a bug ONE does not have.
# usage: baseline_across_seeds.sh DMLCERT ONE.so TWO.so WORK_DIR
set -uo pipefail
dmlcert=$1 one=$2 two=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
certify() {  # certify PLUGIN SEED NAME [options...]: exit status in $status, output in $work/NAME.out
  local plugin=$1 seed=$2 name=$3
  shift 3
  "$dmlcert" certify --backend "plugin:$plugin" --ops GATHER_ELEMENTS,SLICE1 --budget smoke --seed "$seed" \
    --jobs 1 --repro-dir "$work/$name-repros" --report "$work/$name.json" "$@" >"$work/$name.out" 2>&1
  status=$?
}
fail() {
  echo "FAILED: $*" >&2
  exit 1
}

certify "$one" 1 seed1
[ "$status" -eq 1 ] || fail "seed 1 of the one-bug plugin should fail (exit $status; $work/seed1.out)"
"$dmlcert" baseline "$work/seed1.json" >"$work/baseline.txt" || fail "dmlcert baseline failed"
cat "$work/baseline.txt"
causes=$(grep -c '^cause "' "$work/baseline.txt")
[ "$causes" -eq 1 ] || fail "one bug should be one cause in the baseline, not $causes"

for seed in 2 3 4 5 6; do
  certify "$one" "$seed" "seed$seed" --expect "$work/baseline.txt" --unexpected-passes-fail
  [ "$status" -eq 0 ] || fail "seed $seed of the same bug should pass the baseline (exit $status): $(grep -m3 'Expectations\|NOT CERTIFIED' "$work/seed$seed.out")"
  grep -q '^KNOWN ' "$work/seed$seed.out" || fail "seed $seed printed no failure as KNOWN"
  if grep -q '^FAILED ' "$work/seed$seed.out"; then fail "seed $seed printed a known failure as FAILED"; fi
  echo "seed $seed: $(grep -m1 '^Expectations:' "$work/seed$seed.out")"
done

certify "$two" 2 second-bug --expect "$work/baseline.txt"
[ "$status" -eq 1 ] || fail "a second bug should fail the baseline (exit $status)"
grep -q '^Expectations: .* [1-9][0-9]* new: SLICE1/' "$work/second-bug.out" ||
  fail "the second bug's cells are not named as new: $(grep -m1 '^Expectations:' "$work/second-bug.out")"
echo "second bug: $(grep -m1 '^Expectations:' "$work/second-bug.out")"

# An entry for a bug this plugin does not have passes unexpectedly: reported, and failing with the flag.
{ cat "$work/baseline.txt"; echo 'cause "SLICE1: wrong output, memory fault or hang" status=either fixed in 2.4'; } \
  >"$work/stale.txt"
certify "$one" 2 stale --expect "$work/stale.txt"
[ "$status" -eq 0 ] || fail "an unexpected pass alone should not fail the run (exit $status)"
certify "$one" 2 stale-strict --expect "$work/stale.txt" --unexpected-passes-fail
[ "$status" -eq 1 ] || fail "with --unexpected-passes-fail, an unexpected pass should fail the run (exit $status)"
echo "stale entry: $(grep -m1 '^Expectations:' "$work/stale-strict.out")"
echo "baseline_across_seeds: ok"
