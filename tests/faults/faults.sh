#!/usr/bin/env bash
# faults.sh CASE RADIAL_BINARY SOURCE_DIR WORK_DIR — one fault-injection case of the host, run
# through the real CLI. Each case prints the promises it checks ("PROMISE: ..."), in the manner of
# SQLite's "How SQLite Is Tested": a full or read-only disk, kill -9 and signals at random
# moments, concurrent writers, unwritable stdout, and outputs that are devices, FIFOs or links.
# Exit 0: kept; 1: broken; 77: skipped (needs root or mount), with the reason printed.
# Everything happens inside WORK_DIR: device nodes are made there with mknod, never used in /dev.
set -u
case_name=$1 radial=$2 src=$3 work=$4
examples="$src/docs/examples"
mounted=""
cleanup() { [ -z "$mounted" ] || umount "$mounted" 2>/dev/null; }
trap cleanup EXIT
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

source "$src/tests/cli_harness.sh"
skip() { echo "SKIP [$case_name]: $*"; exit 77; }
promise() { echo "PROMISE: $*"; }
# No hidden temporary of an atomic write is left in FOLDER.
no_temporaries() {
  local left
  left=$(find "${1:-.}" -maxdepth 1 -name '.*.tmp-*' | head -5)
  [ -z "$left" ] || fail "temporaries left: $left"
}
valid_model() { "$radial" inspect "$1" >/dev/null 2>inspect.err || { cat inspect.err; fail "$1 is not a valid model"; }; }
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root (mknod / mount); run the suite as root, as CI does"; }
# mount_tmpfs DIR OPTIONS: a small tmpfs of our own, or skip.
mount_tmpfs() {
  need_root
  mkdir -p "$1"
  mount -t tmpfs -o "$2" tmpfs "$1" 2>/dev/null || skip "mount -t tmpfs is not permitted here"
  mounted=$(cd "$1" && pwd)
}

# A small, quick pipeline (a 4 kB model) and a large one (a 0.5 MB model, about 0.5 s of CPU).
sed "s#data/#$examples/data/#" "$examples/two-class-kmeans-thin-plate.toml" > small.toml
cat > large.toml <<TOML
name = "faults: large model"
seed = 3
[data]
train = "$examples/data/waveform.csv"
target = "class"
[basis]
plugin = "gaussian"
width = 2.0
[centres]
plugin = "subset"
count = 800
[output]
plugin = "least-squares"
TOML

# An experiment of 20 quick runs (synth3, k-means + thin-plate + least squares, 20 seeds),
# for the results-database cases.
# (The experiment's dataset replaces the pipeline's [data].)
experiment_files() {
  cat > exp.toml <<TOML
name = "faults"
seeds = [$(seq -s ', ' 1 20)]
[[datasets]]
name = "synth3"
train = "$examples/data/synth3_train.csv"
test = "$examples/data/synth3_test.csv"
target = "label"
[[pipelines]]
name = "LS"
file = "$examples/two-class-kmeans-thin-plate.toml"
TOML
}
# check_database FILE: SQLite's integrity check passes and every stored run is whole (its
# report parses, its status is ok); prints the number of runs.
check_database() {
  /usr/bin/python3 - "$1" <<'PY' || fail "$1: damaged or half-written"
import json, sqlite3, sys
c = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
rows = c.execute("SELECT status, report FROM runs").fetchall()
for status, report in rows:
    assert status == "ok", status
    assert isinstance(json.loads(report)["test"]["error_rate"], float)
print(len(rows))
PY
}
case "$case_name" in
results-database)
  promise "a full disk stops an experiment with exit 1 and a database that is whole: every stored run complete, the rest run on resuming, the results those of an uninterrupted run"
  promise "on a read-only mount radial results reads the database and experiment exits 1 saying so, the file unchanged"
  promise "a database locked by another process is waited for, then written; kill -9 of radial results at 20 random moments changes nothing"
  experiment_files
  run 0 experiment exp.toml --results reference.sqlite --quiet
  reference=$(results_without_timing reference.sqlite)
  mount_tmpfs disk size=160k
  run 1 experiment exp.toml --results disk/exp.sqlite --quiet
  grep -Eq "full|No space" err.txt || { cat err.txt; fail "a full disk was not named"; }
  stored=$(check_database disk/exp.sqlite)
  echo "stored before the disk filled: $stored of 20 runs"
  [ "$stored" -ge 1 ] && [ "$stored" -lt 20 ] || fail "expected a partial database, found $stored runs"
  cp disk/exp.sqlite* . 2>/dev/null || cp disk/exp.sqlite .
  run 0 experiment exp.toml --results exp.sqlite --quiet
  [ "$(check_database exp.sqlite)" = 20 ] || fail "resuming did not complete the runs"
  [ "$(results_without_timing exp.sqlite)" = "$reference" ] || fail "resumed results differ from an uninterrupted run"
  # Read-only: the reference copied onto the mount, which is then made read-only.
  rm -f disk/exp.sqlite* && cp reference.sqlite disk/ro.sqlite
  mount -o remount,ro "$mounted" 2>/dev/null || skip "mount -o remount,ro is not permitted here"
  before=$(sha256sum disk/ro.sqlite)
  run 0 results disk/ro.sqlite
  out_has "synth3"
  run 1 experiment exp.toml --results disk/ro.sqlite --quiet
  err_has "read-only"
  [ "$(sha256sum disk/ro.sqlite)" = "$before" ] || fail "a read-only database changed"
  # Locked: another process holds an exclusive transaction for 2 s; the experiment waits.
  cp reference.sqlite locked.sqlite
  /usr/bin/python3 - <<'PY' &
import sqlite3, time
c = sqlite3.connect("locked.sqlite", isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open("locked.flag", "w").close()
time.sleep(2)
c.execute("DELETE FROM runs WHERE seed > 10")
c.execute("COMMIT")
PY
  locker=$!
  while [ ! -e locked.flag ]; do sleep 0.05; done
  run 0 experiment exp.toml --results locked.sqlite --quiet
  wait $locker
  [ "$(check_database locked.sqlite)" = 20 ] || fail "the locked database was not completed"
  # kill -9 of a reader: nothing it opens changes.
  before=$(sha256sum reference.sqlite)
  for i in $(seq 1 20); do
    "$radial" results reference.sqlite --format json > /dev/null 2>&1 &
    pid=$!
    sleep "$(printf '0.%03d' $(( RANDOM % 60 )))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
  done
  [ "$(sha256sum reference.sqlite)" = "$before" ] || fail "kill -9 of radial results changed the database"
  check_database reference.sqlite > /dev/null
  ;;
full-disk-fsize)
  promise "a write that hits the file size limit (as on a full disk) exits 1 naming the file, keeps the old model byte for byte, writes no report, and leaves no temporary"
  run 0 train small.toml --model m.model --quiet --report r0.json
  cp m.model old.model
  # bash counts ulimit -f in 1024-byte blocks: the report fits, the large model does not.
  ( ulimit -f 64; exec "$radial" train large.toml --model m.model --report r.json --quiet ) >out.txt 2>err.txt
  code=$?
  [ "$code" -eq 1 ] || { cat err.txt; fail "exit $code under a file size limit, expected 1"; }
  err_has "m.model"; err_has "File too large"
  cmp -s m.model old.model || fail "the old model changed"
  valid_model m.model
  [ ! -e r.json ] || fail "a report was written by a run that failed"
  no_temporaries
  ;;
full-disk-tmpfs)
  promise "on a full file system the old model survives unchanged and valid, the run exits 1 with 'No space left on device', and no temporary remains"
  mount_tmpfs disk size=256k
  run 0 train small.toml --model disk/m.model --quiet --report r0.json
  cp disk/m.model old.model
  run 1 train large.toml --model disk/m.model --report disk/r.json --quiet
  err_has "No space left on device"; err_has "disk/m.model"
  cmp -s disk/m.model old.model || fail "the old model changed"
  valid_model disk/m.model
  [ ! -e disk/r.json ] || fail "a report was written by a run that failed"
  no_temporaries disk
  # A figure on the full disk exits 1 like every result (issue 25: plot said 2, train 1).
  if command -v gnuplot > /dev/null; then
    sed 's/^plugin = "least-squares"/plugin = "scg"/' small.toml > scg.toml
    run 0 train scg.toml --quiet --report scg.json
    dd if=/dev/zero of=disk/filler bs=4k 2>/dev/null
    run 1 plot learning-curve scg.json --output disk/c.svg
    err_has "No space left on device"
    [ ! -e disk/c.svg ] || fail "a figure was written on a full disk"
    no_temporaries disk
  fi
  ;;
read-only-folder)
  promise "a read-only folder keeps the old model, and the run says so (exit 1, 'Read-only file system')"
  mount_tmpfs ro size=1m
  run 0 train small.toml --model ro/m.model --quiet --report r0.json
  cp ro/m.model old.model
  mount -o remount,ro "$mounted" 2>/dev/null || skip "mount -o remount,ro is not permitted here"
  run 1 train small.toml --model ro/m.model --report r.json --quiet
  err_has "Read-only file system"; err_has "ro/m.model"
  cmp -s ro/m.model old.model || fail "the old model changed"
  [ ! -e r.json ] || fail "a report was written by a run whose model failed"
  no_temporaries ro
  ;;
kill9-during-training)
  promise "kill -9 at any of 20 random moments of training and writing leaves the old model intact or the new one complete, never a mixture"
  promise "the next write to the same model removes the temporaries that killed runs left"
  run 0 train large.toml --model m.model --quiet --report r0.json
  start=$(date +%s%N)
  run 0 train large.toml --model m.model --quiet --report r0.json
  duration_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "one training run takes ${duration_ms} ms"
  RANDOM=$$
  killed=0 during_write=0
  for i in $(seq 1 20); do
    "$radial" train large.toml --model m.model --quiet --report r.json >/dev/null 2>&1 &
    pid=$!
    if [ "$i" -le 14 ]; then
      # Moments spread over the whole run, a little past its end.
      delay_ms=$(( RANDOM % (duration_ms + duration_ms / 10 + 1) ))
      sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    else
      # The write itself: as soon as the run's temporary model appears.
      while kill -0 "$pid" 2>/dev/null && ! compgen -G ".m.model.tmp-$pid-*" >/dev/null; do :; done
      compgen -G ".m.model.tmp-$pid-*" >/dev/null && during_write=$((during_write + 1))
    fi
    kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
    wait "$pid" 2>/dev/null
    valid_model m.model
  done
  left=$(find . -maxdepth 1 -name '.m.model.tmp-*' | wc -l)
  echo "killed $killed of 20 runs, $during_write of them while the temporary model was being written; temporaries left: $left"
  [ "$killed" -ge 8 ] || fail "only $killed runs were still going when killed; the moments are wrong"
  # A temporary of a process that still runs is not stale: it must survive the sweep.
  sleep 30 & sleeper=$!
  echo partial > ".m.model.tmp-$sleeper-0-0000000a"
  ( exit 0 ) & dead=$!; wait "$dead"
  echo partial > ".m.model.tmp-$dead-0-0000000b"
  run 0 train small.toml --model m.model --quiet --report r.json
  valid_model m.model
  [ -e ".m.model.tmp-$sleeper-0-0000000a" ] || fail "the temporary of a running process was removed"
  kill "$sleeper"; wait "$sleeper" 2>/dev/null
  rm ".m.model.tmp-$sleeper-0-0000000a"
  no_temporaries
  ;;
sigint-sigterm)
  promise "SIGINT and SIGTERM during training or writing end the run with status 130 / 143, the old model intact and no temporary"
  run 0 train large.toml --model m.model --quiet --report r0.json
  cp m.model old.model
  start=$(date +%s%N)
  run 0 train large.toml --model n.model --quiet --report r0.json
  duration_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  set -m  # jobs in their own process groups, with SIGINT not ignored
  RANDOM=$$
  interrupted=0 during_write=0 i=0
  for signal in INT TERM INT TERM INT TERM INT TERM; do
    i=$((i + 1))
    "$radial" train large.toml --model m.model --quiet --report r.json >/dev/null 2>err.txt &
    pid=$!
    if [ "$i" -le 4 ]; then
      delay_ms=$(( RANDOM % (duration_ms * 9 / 10 + 1) ))
      sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    else
      # While the temporary model is being written: the handler must remove it.
      while kill -0 "$pid" 2>/dev/null && ! compgen -G ".m.model.tmp-$pid-*" >/dev/null; do :; done
      compgen -G ".m.model.tmp-$pid-*" >/dev/null && during_write=$((during_write + 1))
    fi
    kill -s "$signal" "$pid" 2>/dev/null
    wait "$pid"
    code=$?
    if [ "$code" -eq 0 ]; then
      valid_model m.model; cp m.model old.model   # finished before the signal: the new model stands
    else
      expected=$([ "$signal" = INT ] && echo 130 || echo 143)
      [ "$code" -eq "$expected" ] || { cat err.txt; fail "SIG$signal gave exit $code, expected $expected"; }
      cmp -s m.model old.model || fail "SIG$signal changed the model"
      interrupted=$((interrupted + 1))
    fi
    no_temporaries
  done
  set +m
  [ "$interrupted" -ge 4 ] || fail "only $interrupted runs were interrupted"
  echo "interrupted $interrupted of 8 runs, $during_write of them while the temporary model was being written"
  ;;
concurrent-writers)
  promise "8 runs writing one --model at once all succeed and leave one complete, valid model and no temporary"
  pids=()
  for i in 1 2 3 4 5 6 7 8; do
    "$radial" train small.toml --seed "$i" --model m.model --quiet --report "r$i.json" >/dev/null 2>"err$i.txt" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { cat "err$((i + 1)).txt"; fail "writer $((i + 1)) failed"; }
  done
  valid_model m.model
  seed=$("$radial" inspect m.model | sed -n 's/^  seed: //p')
  [ "$seed" -ge 1 ] && [ "$seed" -le 8 ] || fail "the model's seed $seed is none of the writers'"
  no_temporaries
  ;;
unwritable-stdout)
  need_root
  mknod full c 1 7 || skip "mknod not permitted"
  head -c 1 full >/dev/null 2>&1 || skip "device nodes do not open on this file system (nodev)"
  run 0 train small.toml --model m.model --quiet --report r0.json
  for how in full closed; do
    if [ "$how" = full ]; then
      promise "results sent to a full device (our own /dev/full node) exit 1 with 'No space left on device', never 0"
      message="No space left on device"; redirect() { "$@" >full; }
    else
      promise "results sent to a closed stdout exit 1 with 'Bad file descriptor', never 0"
      message="Bad file descriptor"; redirect() { "$@" >&-; }
    fi
    for command in "plugins list" "plugins show kmeans" "inspect m.model" "validate small.toml" \
                   "predict m.model $examples/data/synth3_test.csv" \
                   "evaluate m.model $examples/data/synth3_test.csv"; do
      # shellcheck disable=SC2086
      redirect "$radial" $command 2>err.txt
      code=$?
      [ "$code" -eq 1 ] || { cat err.txt; fail "radial $command to a $how stdout exited $code, expected 1"; }
      err_has "writing the results to stdout failed ($message)"
    done
    promise "a training run whose report cannot be written ($how stdout) exits 1 and writes no model"
    redirect "$radial" train small.toml --model new.model --quiet 2>err.txt
    code=$?
    [ "$code" -eq 1 ] || { cat err.txt; fail "train to a $how stdout exited $code"; }
    [ ! -e new.model ] || fail "a model was written while the run failed"
    no_temporaries
  done
  promise "evaluate whose stdout is full writes no --report file either"
  "$radial" evaluate m.model "$examples/data/synth3_test.csv" --report e.json >full 2>err.txt
  code=$?
  [ "$code" -eq 1 ] || { cat err.txt; fail "evaluate to a full stdout exited $code"; }
  [ ! -e e.json ] || fail "evaluate wrote its report file while failing"
  promise "--output and --report naming a full device exit 1, and the device stays a device"
  run 1 predict m.model "$examples/data/synth3_test.csv" --output full
  err_has "No space left on device"
  run 1 train small.toml --report full --model new.model --quiet
  [ ! -e new.model ] || fail "a model was written while the report failed"
  [ -c full ] || fail "the device node was replaced"
  ;;
broken-pipe)
  promise "a reader that leaves early (| head) ends radial quietly by SIGPIPE, with nothing on stderr and no temporary"
  promise "with SIGPIPE ignored by the parent, the run ends quietly with status 141"
  /usr/bin/python3 - "$radial" small.toml <<'PY' || fail "see above"
import os, signal, subprocess, sys
radial, pipeline = sys.argv[1], sys.argv[2]
def run(args, ignore_sigpipe):
    r, w = os.pipe()
    os.close(r)  # the reader is gone before radial writes a byte
    pre = (lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)) if ignore_sigpipe else None
    p = subprocess.run([radial] + args, stdout=w, stderr=subprocess.PIPE, preexec_fn=pre)
    os.close(w)
    return p.returncode, p.stderr.decode()
bad = 0
for args in (["plugins", "markdown"], ["train", pipeline, "--quiet", "--model", "m.model"]):
    for ignore in (False, True):
        code, err = run(args, ignore)
        want = 141 if ignore else -signal.SIGPIPE
        if code != want or err:
            print(f"radial {' '.join(args)} (SIGPIPE ignored: {ignore}): exit {code}, expected {want}; stderr {err!r}")
            bad += 1
if os.path.exists("m.model"):
    print("a model was written by a run whose report went nowhere"); bad += 1
sys.exit(1 if bad else 0)
PY
  no_temporaries
  ;;
device-and-fifo-targets)
  need_root
  mknod null c 1 3 || skip "mknod not permitted"
  printf x > null 2>/dev/null || skip "device nodes do not open on this file system (nodev)"
  promise "an output that is a character device is written in place: the node is still a device afterwards"
  run 0 train small.toml --model null --report null --quiet
  [ -c null ] || fail "the device node became a $(stat -c %F null)"
  run 0 train small.toml --model m.model --quiet --report r0.json
  run 0 predict m.model "$examples/data/synth3_test.csv"
  cp out.txt expected.csv
  run 0 predict m.model "$examples/data/synth3_test.csv" --output null
  [ -c null ] || fail "the device node was replaced by predict"
  promise "an output that is a FIFO is written through it, and stays a FIFO"
  mkfifo pipe.csv
  cat pipe.csv > got.csv &
  reader=$!
  run 0 predict m.model "$examples/data/synth3_test.csv" --output pipe.csv
  wait "$reader"
  cmp -s got.csv expected.csv || fail "the FIFO reader got other bytes"
  [ -p pipe.csv ] || fail "the FIFO was replaced"
  promise "'-' is stdout"
  run 0 predict m.model "$examples/data/synth3_test.csv" --output -
  cmp -s out.txt expected.csv || fail "--output - differs from stdout"
  ;;
symlink-targets)
  run 0 train small.toml --model m.model --quiet --report r0.json
  run 0 predict m.model "$examples/data/synth3_test.csv"
  cp out.txt expected.csv
  promise "an output that is a symbolic link replaces the file it points to (atomically) and the link survives"
  echo old > real.csv
  ln -s real.csv link.csv
  ln -s link.csv link2.csv
  run 0 predict m.model "$examples/data/synth3_test.csv" --output link2.csv
  [ -L link.csv ] && [ -L link2.csv ] || fail "a link was replaced"
  cmp -s real.csv expected.csv || fail "the link's target lacks the predictions"
  promise "a dangling link creates its target"
  ln -s created.model dangling.model
  run 0 train small.toml --model dangling.model --quiet --report r.json
  [ -L dangling.model ] || fail "the dangling link was replaced"
  valid_model created.model
  promise "a link to /proc/self/fd/1 writes through to the pipe on stdout, and the link stays"
  ln -s /proc/self/fd/1 stdout.link
  "$radial" predict m.model "$examples/data/synth3_test.csv" --output stdout.link 2>err.txt | cat > piped.csv
  [ "${PIPESTATUS[0]}" -eq 0 ] || { cat err.txt; fail "predict through /proc/self/fd/1 failed"; }
  cmp -s piped.csv expected.csv || fail "the pipe got other bytes"
  [ -L stdout.link ] || fail "the /proc/self/fd/1 link was replaced"
  no_temporaries
  ;;
special-targets-refused)
  promise "a folder, socket or block device named as an output is refused with exit 2 before training, and left as it was"
  mkdir folder
  run 2 train small.toml --model folder --quiet
  err_has "it is a folder"; err_has "model file"
  [ -d folder ] || fail "the folder was replaced"
  /usr/bin/python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.bind('sock')"
  run 2 train small.toml --report sock --quiet
  err_has "it is a socket"
  [ -S sock ] || fail "the socket was replaced"
  if [ "$(id -u)" -eq 0 ] && mknod blk b 7 0 2>/dev/null; then
    run 0 train small.toml --model m.model --quiet --report r.json
    run 2 predict m.model "$examples/data/synth3_test.csv" --output blk
    err_has "it is a block device"
    [ -b blk ] || fail "the block device was replaced"
  else
    echo "(block device part skipped: mknod needs root)"
  fi
  promise "an output in a folder that does not exist is refused with exit 2 before training"
  run 2 train small.toml --model no/such/m.model --quiet
  err_has "does not exist"
  no_temporaries
  ;;
crafted-models)
  # Crafted as an attacker would: the payload edited and the header's length and checksum
  # recomputed (tests/model-store/rewrite_model.py), so only the reader's own checks remain.
  rewrite="/usr/bin/python3 $src/tests/model-store/rewrite_model.py"
  test_csv="$examples/data/synth3_test.csv"
  run 0 train small.toml --model m.model --quiet --report r0.json
  classes=' 5 label 2 0 0.00000000000000000e\+00 0 1.00000000000000000e\+00 '
  promise "a model whose class list is empty is refused (exit 2) by inspect, predict and evaluate, never a crash"
  $rewrite m.model empty.model "$classes" ' 5 label 0 ' || fail "rewrite"
  for command in "inspect empty.model" "predict empty.model $test_csv" "evaluate empty.model $test_csv"; do
    # shellcheck disable=SC2086
    run 2 $command
    err_has "empty.model"
  done
  promise "a string claiming 3e9 bytes is refused (exit 2) before it is allocated, under a 1 GB address-space limit"
  $rewrite m.model long.model ' 5 label ' ' 3000000000 label ' || fail "rewrite"
  ( limit_memory 1000000; exec "$radial" predict long.model "$test_csv" ) >out.txt 2>err.txt
  code=$?
  [ "$code" -eq 2 ] || { cat err.txt; fail "predict of a 3e9-byte string exited $code, expected 2"; }
  err_has "long.model"
  ;;
*) fail "unknown case" ;;
esac
echo "ok [$case_name]"
