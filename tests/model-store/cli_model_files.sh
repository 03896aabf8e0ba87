#!/usr/bin/env bash
# cli_model_files.sh CASE RADIAL_BINARY SOURCE_DIR WORK_DIR — model files from an untrusted or
# unusual source through the real CLI. Each case states the promise it checks.
set -u
case_name=$1 radial=$2 src=$3 work=$4
examples="$src/docs/examples"
rewrite="/usr/bin/python3 $src/tests/model-store/rewrite_model.py"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

run_timeout=20
source "$src/tests/cli_harness.sh"

two_class="$examples/two-class-kmeans-thin-plate.toml"
test_csv="$examples/data/synth3_test.csv"
train_model() { run 0 train "$two_class" --model m.model --quiet "$@"; }
# The class list of the two-class model as the archive writes it: target name, count, values.
classes=' 5 label 2 0 0.00000000000000000e\+00 0 1.00000000000000000e\+00 '

case "$case_name" in
crafted-lengths)
  # A string length claiming 3e9 bytes (checksum recomputed) is refused from the bytes left,
  # before allocating: under a 1 GB address-space limit, and without bad_alloc.
  train_model
  n=0
  for spec in ' 5 label | 3000000000 label ' '10 thin-plate|3000000000 thin-plate' \
              '\d+ # Two classes|3000000000 # Two classes' ' 2 x1 | 6000000000 x1 '; do
    n=$((n + 1))
    $rewrite m.model crafted$n.model "${spec%%|*}" "${spec#*|}" || fail "rewrite $spec"
    for command in inspect predict; do
      args=(crafted$n.model); [ $command = predict ] && args+=("$test_csv")
      ( limit_memory 1000000; timeout 20 "$radial" $command "${args[@]}" >out.txt 2>err.txt )
      code=$?
      [ $code -eq 2 ] || { cat err.txt; fail "$command of a string claiming ${spec#*|} exited $code"; }
      err_has "crafted$n.model: inconsistent model: a string of"
      err_has "bytes remain"
      err_lacks "bad_alloc"
    done
  done
  ;;
class-count)
  # Item 4: the class list must match the weights, so predict never indexes past it.
  train_model
  $rewrite m.model empty.model "$classes" ' 5 label 0 ' || fail "rewrite"
  $rewrite m.model one.model "$classes" ' 5 label 1 0 0.00000000000000000e+00 ' || fail "rewrite"
  $rewrite m.model three.model "$classes" \
    ' 5 label 3 0 0.00000000000000000e+00 0 1.00000000000000000e+00 0 2.00000000000000000e+00 ' || fail "rewrite"
  $rewrite m.model unsorted.model "$classes" \
    ' 5 label 2 0 1.00000000000000000e+00 0 0.00000000000000000e+00 ' || fail "rewrite"
  for bad in empty one three unsorted; do
    run 2 inspect $bad.model
    err_has "$bad.model: inconsistent model:"
    run 2 predict $bad.model "$test_csv"
    err_has "$bad.model: inconsistent model:"
    [ -s out.txt ] && fail "predict of $bad.model printed output"
  done
  run 2 inspect empty.model; err_has "lists no class values"
  run 2 inspect one.model; err_has "2 columns for 1 classes"
  run 2 inspect unsorted.model; err_has "distinct and in increasing order"
  # A regression model must not list classes.
  run 0 train "$examples/regression-gaussian-subset.toml" --model r.model --quiet
  $rewrite r.model r-classes.model '^(.*?) 1 y 0 ' '\1 1 y 1 0 1.00000000000000000e+00 ' || fail "rewrite"
  run 2 inspect r-classes.model; err_has "a regression model lists 1 class values"
  # The untouched models still load and predict.
  run 0 predict m.model "$test_csv"
  [ "$(wc -l < out.txt)" -eq 1001 ] || fail "predict rows"
  run 0 inspect r.model
  ;;
special-files)
  # Item 5 and 9: the header is checked before the body, streams are read as streams, and
  # what is not a model file is named as such.
  train_model
  mknod ./zero c 1 5 || fail "mknod (needs root)"
  if head -c 1 ./zero >/dev/null 2>&1; then
    start=$(date +%s%N)
    run 2 inspect ./zero
    [ $(( ($(date +%s%N) - start) / 1000000 )) -lt 5000 ] || fail "inspect of a zero device took > 5 s"
    err_has "./zero: not a Radial model file"
    run 2 predict ./zero "$test_csv"; err_has "not a Radial model file"
  else
    echo "skip: device nodes cannot be opened here (file system mounted nodev)"
  fi
  mkfifo fifo
  timeout 30 sh -c 'cat m.model > fifo' &  # never blocks the test if the reader dies first
  run 0 inspect fifo; out_has "classes (2): 0 1"
  wait
  timeout 30 sh -c 'cat m.model > fifo' &
  run 0 predict fifo "$test_csv"
  wait
  [ "$(wc -l < out.txt)" -eq 1001 ] || fail "predict from a FIFO: $(wc -l < out.txt) lines"
  # A stream whose header announces a gigabyte but sends a megabyte: refused, little memory.
  timeout 30 bash -c "{ printf 'RADIAL-MODEL 1 1073741824 0123456789abcdef\\n'; /usr/bin/python3 -c 'import sys; sys.stdout.buffer.write(bytes(1000000))'; } > fifo" &
  ( limit_memory 600000; timeout 20 "$radial" inspect fifo >out.txt 2>err.txt ); code=$?
  wait
  [ $code -eq 2 ] || { cat err.txt; fail "announced 1 GiB stream exited $code"; }
  err_has "announces 1073741824 payload bytes but only 1000000 follow"
  mkdir folder
  run 2 inspect folder; err_has "folder: is a directory, not a model file"
  run 2 predict folder "$test_csv"; err_has "is a directory, not a model file"
  run 2 inspect fifo-missing; err_has "fifo-missing: no such model file"
  # More than the documented limit is refused from the header alone.
  printf 'RADIAL-MODEL 1 99999999999 0123456789abcdef\nshort' > huge.model
  run 2 inspect huge.model; err_has "more than 1024.0 MB, the largest model Radial reads"
  printf 'RADIAL-MODEL 1 5000 0123456789abcdef\nshort' > long.model
  run 2 inspect long.model; err_has "announces 5000 payload bytes but only 5 follow"
  if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    cp m.model private.model && chmod 600 private.model && chmod 755 .
    setpriv --reuid=65534 --regid=65534 --clear-groups timeout 20 "$radial" inspect private.model \
      >out.txt 2>err.txt
    code=$?
    [ $code -eq 2 ] || { cat err.txt; fail "unreadable model exited $code"; }
    err_has "private.model: cannot open the model file (permission denied)"
  fi
  ;;
basis-extreme-c)
  # Item 12: c whose square under/overflows trains a model that predicts (the state keeps c);
  # multiquadric c = 1e300, whose phi^2 sums overflow in the output fit, is a parameter error.
  for spec in "multiquadric 1e-300" "inverse-multiquadric 1e300"; do
    set -- $spec
    for output in least-squares irls; do
      run 0 train "$two_class" --set basis.plugin=$1 --set basis.c=$2 --set output.plugin=$output \
        --model c.model --quiet
      run 0 predict c.model "$test_csv"
      [ "$(wc -l < out.txt)" -eq 1001 ] || fail "$spec $output: predict rows"
      grep -qi nan out.txt && fail "$spec $output: NaN predictions"
      run 0 inspect c.model; out_has "c=$2"
    done
  done
  run 2 train "$two_class" --set basis.plugin=multiquadric --set basis.c=1e300 --model c2.model --quiet
  err_has "c = 1e+300. Violated constraint: c <= 1e+100"
  [ -e c2.model ] && fail "a model was written"
  run 2 train "$two_class" --set basis.plugin=inverse-multiquadric --set basis.c=1e-300 --set output.plugin=irls --quiet
  err_has "c = 1e-300. Violated constraint: c >= 1e-100"
  ;;
parameter-advice)
  # Item 14: rcond >= 1 and a Gaussian width whose square underflows are refused with what works.
  run 2 train "$two_class" --set output.rcond=1 --quiet
  err_has "output plugin 'least-squares': rcond = 1. Violated constraint: rcond < 1"
  err_has "< 0: machine epsilon"  # what works instead: the table's doc, in the same message
  run 2 train "$two_class" --set output.rcond=1 --set output.solver=normal-equations --quiet
  err_has "rcond < 1"
  run 2 train "$examples/regression-gaussian-subset.toml" --set basis.width=1e-300 --quiet
  err_has "parameter width = 1e-300: the variance width^2 underflows to 0"
  err_has "between 1.49167e-154 and 1.34078e+154"
  err_lacks "width > 0"
  ;;
inspect-escapes)
  # Text stored in a model reaches the terminal escaped: a target name holding an escape
  # sequence (ESC [ 2 J clears the screen) is printed as \x1b[2J by inspect.
  train_model
  $rewrite m.model esc.model ' 5 label ' $' 9 lab\x1b[2Jel ' || fail "rewrite"
  run 0 inspect esc.model
  out_has "target 'lab\x1b[2Jel'"
  ! grep -q $'\x1b' out.txt || fail "an escape byte reached stdout"
  ;;
*) fail "unknown case" ;;
esac
echo "ok [$case_name]"
