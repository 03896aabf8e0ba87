#!/usr/bin/env bash
# cli_cases.sh CASE RADIAL_BINARY SOURCE_DIR WORK_DIR — one end-to-end case of the host.
set -u
case_name=$1 radial=$2 src=$3 work=$4
examples="$src/docs/examples"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
source "$src/tests/cli_harness.sh"

pipeline() { cat > "$1"; }

two_class="$examples/two-class-kmeans-thin-plate.toml"

case "$case_name" in
train-two-class)
  run 0 train "$two_class" --model m.model --report r.json --quiet
  [ -s m.model ] || fail "no model written"
  [ "$(json r.json "j['data']['train_rows'], j['data']['test_rows'], j['data']['features'], j['data']['classes']")" = "(250, 1000, 2, 2)" ] \
    || fail "data section wrong: $(json r.json "j['data']")"
  [ "$(json r.json "j['centres']['plugin'], j['centres']['count'], j['output']['plugin']")" = "('kmeans', 10, 'least-squares')" ] \
    || fail "stage sections wrong"
  for key in seed warnings; do json r.json "j['$key']" >/dev/null || fail "report lacks $key"; done
  for key in seconds iterations; do json r.json "j['centres']['$key']" >/dev/null || fail "centres lacks $key"; done
  for key in seconds iterations converged final_error; do json r.json "j['output']['$key']" >/dev/null || fail "output lacks $key"; done
  for key in error_rate misclassified cross_entropy mse; do
    json r.json "j['train']['$key'], j['test']['$key']" >/dev/null || fail "metrics lack $key"
  done
  # Nabney's synthetic problem is learnable: a 10-centre RBF classifies most test points.
  [ "$(json r.json "0 < j['test']['error_rate'] < 0.2")" = True ] || fail "test error $(json r.json "j['test']['error_rate']")"
  ;;
predict-evaluate-inspect)
  run 0 train "$two_class" --model m.model --report r.json --quiet
  run 0 predict m.model "$examples/data/synth3_test.csv" --output p.csv
  [ "$(head -1 p.csv)" = "label" ] || fail "prediction header: $(head -1 p.csv)"
  [ "$(wc -l < p.csv)" -eq 1001 ] || fail "prediction rows: $(wc -l < p.csv)"
  # Error rate recomputed from the predicted labels and the file's labels must match evaluate's.
  run 0 evaluate m.model "$examples/data/synth3_test.csv" --report e.json
  recomputed=$(/usr/bin/python3 -c "
import csv
truth=[int(float(r['label'])) for r in csv.DictReader(open('$examples/data/synth3_test.csv'))]
pred=[int(float(r['label'])) for r in csv.DictReader(open('p.csv'))]
print(sum(a!=b for a,b in zip(truth,pred)))")
  [ "$(json e.json "j['misclassified']")" = "$recomputed" ] || fail "evaluate misclassified != recomputed $recomputed"
  [ "$(json e.json "j['rows']")" = 1000 ] || fail "evaluate rows"
  [ "$(json e.json "j['error_rate'] == j['misclassified']/1000")" = True ] || fail "error_rate inconsistent"
  [ "$(json e.json "j['misclassified']")" = "$(json r.json "j['test']['misclassified']")" ] || fail "evaluate disagrees with the training report"
  run 0 inspect m.model
  out_has "basis: thin-plate"; out_has "centres: 10 in 2 dimensions"; out_has "output: least-squares"
  ;;
regression-example)
  run 0 train "$examples/regression-gaussian-subset.toml" --report r.json --quiet
  [ "$(json r.json "j['train']['error_rate']")" = None ] || fail "regression has an error rate"
  # Noise variance is 0.01: a good fit has test MSE near it.
  [ "$(json r.json "0.005 < j['test']['mse'] < 0.03")" = True ] || fail "test mse $(json r.json "j['test']['mse']")"
  ;;
iris-cross-validation)
  run 0 train "$examples/three-class-iris.toml" --report r.json --quiet
  [ "$(json r.json "j['cv']['folds'], len(j['cv']['per_fold'])")" = "(10, 10)" ] || fail "cv folds"
  [ "$(json r.json "sum(f['test_rows'] for f in j['cv']['per_fold'])")" = 150 ] || fail "folds do not cover the data"
  [ "$(json r.json "j['cv']['error_rate'] < 0.1")" = True ] || fail "iris cv error $(json r.json "j['cv']['error_rate']")"
  ;;
all-examples)
  # Every example pipeline in the docs validates and trains.
  n=0
  for p in "$examples"/*.toml; do
    run 0 validate "$p"
    run 0 train "$p" --quiet --report r.json
    json r.json "j['train']['mse']" >/dev/null || fail "$p: report lacks train.mse"
    n=$((n + 1))
  done
  [ "$n" -ge 3 ] || fail "only $n example pipelines"
  ;;
validate)
  run 0 validate "$two_class"
  out_has "ok"
  run 0 validate "$two_class" --set centres.count=12
  ;;
plugins-list)
  run 0 plugins list
  for id in thin-plate gaussian subset fixed kmeans least-squares weight-decay; do out_has " $id "; done
  ;;
broken-plugin-on-path)
  # One stale library on RADIAL_PLUGIN_PATH: listed with its path, every pipeline that does
  # not use it still runs, and one that names it is refused naming the file.
  mkdir -p stale && echo "a stale build, not a shared library" > stale/libradial-basis-stale.so
  export RADIAL_PLUGIN_PATH="$PWD/stale"
  run 0 plugins list
  out_has " thin-plate "
  out_has "not loaded: $PWD/stale/libradial-basis-stale.so"
  out_has "cannot be loaded as a shared library"
  run 0 train "$two_class" --model m.radial
  run 0 predict m.radial "$examples/data/synth3_test.csv"
  sed 's/^plugin = "thin-plate"/plugin = "stale"/' "$two_class" |
    sed "s|\"data/|\"$examples/data/|g" > stale.toml
  grep -q '"stale"' stale.toml || fail "the pipeline was not rewritten"
  run 2 train stale.toml --model s.radial
  err_has "$PWD/stale/libradial-basis-stale.so, which failed to load"
  [ ! -e s.radial ] || fail "a model was written"
  unset RADIAL_PLUGIN_PATH
  ;;
plugins-reference)
  # docs/plugins.md is generated from the parameter tables; it must match what is built.
  run 0 plugins markdown
  diff -u "$src/docs/plugins.md" out.txt >diff.txt || { cat diff.txt; fail "docs/plugins.md is stale: regenerate with radial plugins markdown > docs/plugins.md"; }
  ;;
plugins-show)
  run 0 plugins show kmeans
  out_has "count"; out_has "init"; out_has "kmeans++"; out_has "tolerance"
  out_has "capabilities: count is its centre count"
  run 0 plugins show gaussian
  out_has "capabilities: Gaussian activations; a width scale the trainer may choose; width_scale is its width scale"
  run 0 plugins show least-squares
  out_has "capabilities: weights the selection may score; least squares; a polynomial term's side conditions"
  run 0 plugins show rkhs
  out_has "capabilities: alpha is its ridge strength"
  run 2 plugins show kmean
  err_has "did you mean 'kmeans'"
  ;;
usage-errors)
  run 2
  run 2 frobnicate
  run 2 train
  run 2 train "$two_class" --threads -1
  ;;
bad-pipeline-key)
  pipeline p.toml <<'TOML'
seed = 1
[data]
train = "x.csv"
[basis]
plugin = "thin-plate"
[centres]
plugin = "kmeans"
cuont = 8
[output]
plugin = "least-squares"
TOML
  touch x.csv
  run 2 validate p.toml
  err_has "p.toml:8:"; err_has "cuont"; err_has "did you mean 'count'"
  ;;
bad-pipeline-plugin)
  pipeline p.toml <<'TOML'
[data]
train = "x.csv"
[basis]
plugin = "thin-plait"
[centres]
plugin = "kmeans"
[output]
plugin = "least-squares"
TOML
  touch x.csv
  run 2 validate p.toml
  err_has "p.toml:4:"; err_has "did you mean 'thin-plate'"
  ;;
bad-pipeline-range)
  pipeline p.toml <<'TOML'
[data]
train = "x.csv"
[basis]
plugin = "thin-plate"
[centres]
plugin = "kmeans"
count = 0
[output]
plugin = "least-squares"
TOML
  touch x.csv
  run 2 validate p.toml
  err_has "p.toml:7:"; err_has "count >= 1"
  ;;
bad-pipeline-syntax)
  printf '[data\ntrain = "x.csv"\n' > p.toml
  run 2 validate p.toml
  err_has "p.toml:1:"
  ;;
bad-set-override)
  run 2 validate "$two_class" --set centres.count
  err_has "--set centres.count"
  run 2 validate "$two_class" --set centres.count=zero
  err_has "count"
  ;;
missing-data-file)
  sed "s#data/synth3_train.csv#$work/nope.csv#; /^test/d" "$two_class" > p.toml
  run 2 validate p.toml
  err_has "p.toml:"; err_has "nope.csv"
  ;;
bad-data-ragged|bad-data-text)
  if [ "$case_name" = bad-data-ragged ]; then
    printf 'x1,x2,label\n0.1,0.2,0\n0.3,1\n' > d.csv; where="d.csv:3"
  else
    printf 'x1,x2,label\n0.1,0.2,0\n0.3,abc,1\n' > d.csv; where="d.csv:3:5"
  fi
  sed "s#data/synth3_train.csv#$work/d.csv#; /^test/d" "$two_class" > p.toml
  run 2 train p.toml --model m.model --quiet
  err_has "$where"
  [ ! -e m.model ] || fail "a model was written for bad data"
  ;;
corrupted-model|truncated-model|not-a-model)
  run 0 train "$two_class" --model m.model --quiet --report r.json
  case "$case_name" in
    corrupted-model)
      /usr/bin/python3 -c "
b=bytearray(open('m.model','rb').read()); i=len(b)//2; b[i]=ord('7') if b[i]!=ord('7') else ord('3'); open('m.model','wb').write(b)"
      expect="checksum";;
    truncated-model) head -c 300 m.model > t.model && mv t.model m.model; expect="truncated";;
    not-a-model) echo "hello" > m.model; expect="not a Radial model";;
  esac
  run 2 predict m.model "$examples/data/synth3_test.csv" --output p.csv
  err_has "m.model"; err_has "$expect"
  [ ! -e p.csv ] || fail "predictions written from a bad model"
  run 2 inspect m.model
  ;;
predict-wrong-columns)
  run 0 train "$two_class" --model m.model --quiet --report r.json
  printf 'a,b\n1,2\n' > d.csv
  run 2 predict m.model d.csv
  err_has "x1"
  ;;
probabilities-on-linear-model)
  run 0 train "$two_class" --model m.model --quiet --report r.json
  run 2 predict m.model "$examples/data/synth3_test.csv" --probabilities
  err_has "probabilit"
  ;;
no-partial-output)
  # An existing model file survives a failed training run untouched.
  echo "previous" > m.model
  printf 'x1,x2,label\n' > empty.csv
  sed "s#data/synth3_train.csv#$work/empty.csv#; /^test/d" "$two_class" > p.toml
  run 2 train p.toml --model m.model --report r.json --quiet
  [ "$(cat m.model)" = previous ] || fail "model file was overwritten"
  [ ! -e r.json ] || fail "a report was written for a failed run"
  [ -z "$(ls -A | grep -v -e '^m.model$' -e '^empty.csv$' -e '^p.toml$' -e '^out.txt$' -e '^err.txt$')" ] || fail "stray files: $(ls -A)"
  ;;
pipeline-not-a-file)
  # Regression: a folder is named as such, not "missing table [data]".
  run 2 train "$work" --quiet
  err_has "is a directory, not a pipeline file"
  run 2 validate "$work/nope.toml"
  err_has "no such pipeline file"
  # A pipe is read as a stream (process substitution), with data paths made absolute.
  sed "s#data/#$examples/data/#" "$two_class" > abs.toml
  run 0 validate <(cat abs.toml)
  # Unreadable: root reads anything, so as root the check runs as nobody (setpriv).
  cp abs.toml locked.toml && chmod 000 locked.toml
  if [ "$(id -u)" -ne 0 ]; then
    run 2 validate locked.toml
    err_has "locked.toml: cannot open the pipeline file (permission denied)"
  elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$radial"; then
    setpriv --reuid=65534 --regid=65534 --clear-groups "$radial" validate "$work/locked.toml" >out.txt 2>err.txt
    [ $? -eq 2 ] || { cat err.txt; fail "an unreadable pipeline file did not exit 2"; }
    err_has "locked.toml: cannot open the pipeline file (permission denied)"
  else
    echo "skip: unreadable-file check (root without setpriv, or the build is not readable by nobody)"
  fi
  ;;
pipeline-too-large)
  # Regression: a pipeline file is capped at 1 MB, checked as it is read (a device never ends).
  if mknod zero c 1 5 2>/dev/null && head -c 1 zero >/dev/null 2>&1; then
    start=$(date +%s)
    run 2 validate zero
    err_has "larger than 1"; err_has "pipeline file"
    [ $(( $(date +%s) - start )) -le 5 ] || fail "validate of an endless device took over 5 s"
  else
    echo "skip: no device node (mknod needs root and a file system without nodev); the regular-file limit is still checked"
  fi
  { cat "$two_class"; yes '#' | head -c 1100000; } > big.toml
  run 2 validate big.toml
  err_has "larger than 1"
  ;;
non-utf8-names)
  # Regression: a file name in Latin-1 trains and its report is valid JSON (bytes escaped);
  # a pipeline name that is not UTF-8 is refused before training, naming the key.
  sed "s#data/#$examples/data/#; /^name/d" "$two_class" > "$(printf 'caf\xe9.toml')"
  run 0 train "$(printf 'caf\xe9.toml')" --report r.json --quiet
  [ "$(json r.json "j['name']")" = 'caf\xE9' ] || fail "report name: $(json r.json "j['name']")"
  run 2 train "$two_class" --set "name=$(printf '\xff')" --model m.model --report r2.json --quiet
  err_has "name is not valid UTF-8"; err_has "--set name="
  [ ! -e m.model ] && [ ! -e r2.json ] || fail "output written for a refused name"
  ;;
seed-range)
  # Regression: --seed takes what the pipeline's seed takes, 0 to 2^63-1.
  for bad in -1 18446744073709551616 9223372036854775808 1e3; do
    run 2 train "$two_class" --seed="$bad" --report r.json --quiet
    err_has "--seed"; err_has "0 to 9223372036854775807"
    [ ! -e r.json ] || fail "a report was written for --seed $bad"
  done
  run 0 train "$two_class" --seed 9223372036854775807 --report r.json --quiet
  [ "$(json r.json "j['seed']")" = 9223372036854775807 ] || fail "seed in report: $(json r.json "j['seed']")"
  ;;
threads-range)
  # Issue 46: --threads 10000 started ~2,000 threads (load average 600; under [search] an abort
  # when they could not start); -1, abc and '' printed CLI11's range as a 300-digit number.
  for bad in -1 abc '' 1e3 99999999999; do
    run 2 train "$two_class" --threads="$bad" --report r.json --quiet
    err_has "is not a number of threads; give 0 (all cores) or a whole number"
    err_lacks "1797693"
    [ ! -e r.json ] || fail "a report was written for --threads '$bad'"
  done
  run 2 experiment nothing.toml --jobs=-2
  err_has "is not a number of jobs"
  hardware=$(nproc)
  run 0 train "$two_class" --threads 10000 --report r.json --quiet
  [ "$(json r.json "j['threads']")" = "$hardware" ] || fail "threads in report: $(json r.json "j['threads']")"
  [ "$(json r.json "[w['guard'] for w in j['warnings']]")" = "['threads-capped']" ] ||
    fail "no threads-capped warning: $(json r.json "j['warnings']")"
  sed 's/^seed = 1$/seed = 1\nthreads = 10000/' "$examples/search-kmeans.toml" > search.toml
  sed -i "s#\"data/#\"$examples/data/#g" search.toml
  ( limit_memory 4000000; run 0 train search.toml --report s.json --quiet )
  [ "$(json s.json "j['threads']")" = "$hardware" ] || fail "[search] threads: $(json s.json "j['threads']")"
  ;;
two-row-regression)
  # Issue 46: two rows gave "internal error: model selection found no candidate with a finite
  # leave-one-out error" (exit 1); the user can give more rows or the width by hand.
  printf 'x,y\n1,0.5\n2,1.5\n' > two.csv
  pipeline two.toml <<TOML
[data]
train = "$work/two.csv"
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
[output]
plugin = "least-squares"
TOML
  run 2 train two.toml --report r.json --quiet
  err_has "two.csv: 2 training rows cannot choose a width or penalty by leave-one-out"
  err_has "give at least 3 rows"
  err_lacks "internal error"
  ;;
outputs-overwrite-inputs)
  # Regression: no output may replace an input of the run, or another output of it, however
  # it is spelled (./, a link); refused with exit 2 before training.
  cp "$examples/data/synth3_train.csv" train.csv
  sed "s#data/synth3_train.csv#$work/train.csv#; /^test/d" "$two_class" > p.toml
  ln -s train.csv link.csv
  cp p.toml p.orig; cp train.csv train.orig
  for target in p.toml ./train.csv link.csv "$work/./p.toml"; do
    run 2 train p.toml --model "$target" --quiet
    err_has "--model"; err_has "destroy an input"
    run 2 train p.toml --report "$target" --quiet
    err_has "--report"
  done
  cmp -s p.toml p.orig && cmp -s train.csv train.orig || fail "an input was changed"
  [ -L link.csv ] || fail "the link was replaced"
  # A plugin's file parameter (the fixed centres file) is an input too.
  printf 'x1,x2\n0,0\n1,1\n' > centres.csv
  cp centres.csv centres.orig
  sed 's/^plugin = "kmeans"/plugin = "fixed"/; s/^count = 10/file = "centres.csv"/' p.toml > fixed.toml
  run 2 train fixed.toml --model ./centres.csv --quiet
  err_has "file named by [centres] file"
  cmp -s centres.csv centres.orig || fail "the centres file was changed"
  run 2 train p.toml --model out.model --report ./out.model --quiet
  err_has "are the same file"
  [ ! -e out.model ] || fail "output written"
  run 0 train p.toml --model m.model --report r.json --quiet
  cp m.model m.orig
  run 2 predict m.model train.csv --output ./m.model
  err_has "model being read"
  run 2 evaluate m.model train.csv --report link.csv
  err_has "data file"
  cmp -s m.model m.orig && cmp -s train.csv train.orig || fail "an input was changed"
  ;;
evaluate-reordered-pipe)
  # PROMISE: a labelled file with the model's columns in another order evaluates to the same
  # metrics, from a file or from a pipe (which cannot be read twice).
  run 0 train "$examples/three-class-iris.toml" --model m.model --quiet
  run 0 evaluate m.model "$examples/data/iris.csv"; mv out.txt direct.json
  /usr/bin/python3 -c "
import csv
rows = list(csv.reader(open('$examples/data/iris.csv')))
csv.writer(open('reordered.csv', 'w', newline='')).writerows([r[::-1] for r in rows])"
  [ "$(head -c 5 reordered.csv)" = "class" ] || fail "columns were not reversed"
  run 0 evaluate m.model reordered.csv; cmp -s out.txt direct.json || fail "reordered file: $(cat out.txt)"
  "$radial" evaluate m.model /dev/stdin < <(cat reordered.csv) > out.txt 2> err.txt || fail "pipe: $(cat err.txt)"
  cmp -s out.txt direct.json || fail "reordered pipe: $(cat out.txt) vs $(cat direct.json)"
  ;;
predict-quoted-names)
  # PROMISE: predict's header is valid CSV: a target named 'my "t",c' in the training file is
  # one quoted cell in the output, as Python's csv module reads it back.
  printf '"x,1",x2,"my ""t"",c"\n0,1,0\n1,0,1\n0.1,0.9,0\n0.9,0.1,1\n0.2,0.8,0\n0.8,0.3,1\n' > q.csv
  printf '[data]\ntrain = "q.csv"\ntarget = %s\n[basis]\nplugin = "thin-plate"\n[centres]\nplugin = "subset"\ncount = 2\n[output]\nplugin = "least-squares"\n' \
    "'my \"t\",c'" > q.toml
  run 0 train q.toml --model q.model --quiet
  run 0 predict q.model q.csv
  [ "$(/usr/bin/python3 -c "import csv; r = list(csv.reader(open('out.txt'))); print(r[0], len(r), {len(x) for x in r})")" = \
    "['my \"t\",c'] 7 {1}" ] || fail "predict output is not one CSV column: $(cat out.txt)"
  ;;
*) fail "unknown case" ;;
esac
echo "ok [$case_name]"
