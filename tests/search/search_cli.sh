#!/usr/bin/env bash
# The host with [search]: the example trains, saves the chosen model and reports the search;
# a bad grid value exits 2 naming its line and column; --set reaches [search].
# usage: search_cli.sh CASE RADIAL SOURCE_DIR WORK_DIR
set -u
case_name=$1 radial=$2 src=$3 work=$4
source "$src/tests/cli_harness.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
example="$src/docs/examples/search-kmeans.toml"

case "$case_name" in
train-example)
  run 0 train "$example" --quiet --model m.radial --report r.json --threads 2
  [ "$(json r.json "j['search']['metric']")" = cross_entropy ] || fail "metric"
  [ "$(json r.json "len(j['search']['candidates'])")" = 8 ] || fail "8 candidates"
  best=$(json r.json "j['search']['best']['centres.count']")
  [ "$(json r.json "j['centres']['count']")" = "$best" ] || fail "the model has not the chosen count $best"
  # The best mean is the lowest; ties would go to the earlier candidate.
  json r.json "min(range(8), key=lambda i: j['search']['candidates'][i]['mean']) == [c['values'] for c in j['search']['candidates']].index(j['search']['best'])" | grep -q True || fail "best is not the lowest mean"
  run 0 inspect m.radial
  out_has "# [search] chose centres.count = $best"
  run 0 train "$example" --quiet --report r1.json --threads 1
  json r.json "[c['per_fold'] for c in j['search']['candidates']]" >a.txt
  json r1.json "[c['per_fold'] for c in j['search']['candidates']]" >b.txt
  cmp -s a.txt b.txt || fail "per-fold metrics differ between 1 and 2 threads"
  ;;
bad-grid-value)
  sed 's/^"centres.count" = \[2, 4, 6, 8\]/"centres.count" = [2, 0]/' "$example" >bad.toml
  cp -r "$src/docs/examples/data" data
  run 2 validate bad.toml
  err_has "bad.toml:27:23: centres plugin 'kmeans'"
  run 2 train bad.toml --set search.folds=1
  err_has "--set search.folds=1: folds = 1"
  ;;
set-folds)
  run 0 train "$example" --quiet --report r.json --set search.folds=3 --set 'centres.count=3'
  [ "$(json r.json "j['search']['folds']")" = 3 ] || fail "--set search.folds=3 ignored"
  [ "$(json r.json "len(j['search']['candidates'][0]['per_fold'])")" = 3 ] || fail "3 folds"
  ;;
*) fail "unknown case" ;;
esac
echo "ok [$case_name]"
