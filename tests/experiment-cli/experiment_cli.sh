#!/usr/bin/env bash
# experiment_cli.sh CASE RADIAL_BINARY SOURCE_DIR WORK_DIR — `radial experiment` and `radial
# results` through the real host: tables, resuming after kill -9, --jobs, changed data, two
# processes on one database, failed runs, bad experiment files.
set -u
case_name=$1 radial=$2 src=$3 work=$4
examples="$src/docs/examples"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
source "$src/tests/cli_harness.sh"
py=/usr/bin/python3

# Pipelines without [data] (the experiment names the data), and a copy of the data we may edit.
mkdir -p data pipelines
cp "$examples/data/synth3_train.csv" "$examples/data/synth3_test.csv" "$examples/data/iris.csv" \
   "$examples/data/ionosphere.csv" data/
cat > pipelines/ls.toml <<'TOML'
# k-means + thin-plate + least squares
[basis]
plugin = "thin-plate"
[centres]
plugin = "kmeans"
count = 6
[output]
plugin = "least-squares"
TOML
cat > pipelines/irls.toml <<'TOML'
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 6
[output]
plugin = "irls"
[weight-penalty]
plugin = "weight-decay"
alpha = 0.01
TOML
cat > exp.toml <<'TOML'
name = "cli test"
seeds = [1, 2, 3]

[[datasets]]
name = "synth3"
train = "data/synth3_train.csv"
test = "data/synth3_test.csv"
target = "label"

[[datasets]]
name = "iris"
file = "data/iris.csv"
split = { train_rows = 100 }

[[datasets]]
name = "ionosphere"
file = "data/ionosphere.csv"
split = { folds = 3 }

[[pipelines]]
name = "LS"
file = "pipelines/ls.toml"

[[pipelines]]
name = "IRLS"
file = "pipelines/irls.toml"
set = { "centres.count" = 8 }

[grid]
"weight-penalty.alpha" = [0.001, 0.1]

[table]
rows = "dataset"
columns = "pipeline"
value = "test.error_rate"
TOML
# 3 datasets x (LS: 1 + IRLS: 2 grid points) x 3 seeds
total=27

stored_count() { "$radial" results "$1" --format json | $py -c "import json,sys; print(len(json.load(sys.stdin)['runs']))"; }
ran_now() { sed -n 's/.* \([0-9]*\) run now.*/\1/p' err.txt; }

case "$case_name" in
tables)
  run 0 experiment exp.toml --jobs 2
  [ -f exp.results.sqlite ] || fail "no exp.results.sqlite beside the experiment file"
  [ "$(ran_now)" = "$total" ] || fail "expected $total runs now: $(cat err.txt)"
  out_has "synth3"; out_has "ionosphere"; out_has "±"
  out_has "IRLS, weight-penalty.alpha=0.001"
  # Again: nothing to run, the same table.
  cp out.txt first.txt
  run 0 experiment exp.toml --jobs 2
  [ "$(ran_now)" = "0" ] || fail "a second run re-ran runs: $(cat err.txt)"
  cmp -s out.txt first.txt || fail "the table changed without new runs"
  # The table's mean equals the mean of the stored runs' test error (iris, LS).
  run 0 experiment exp.toml --format json --quiet
  $py - <<'PY' || fail "table mean differs from the runs"
import json, statistics, subprocess
runs = json.load(open("out.txt"))["runs"]
assert len(runs) == 27, len(runs)
iris = [r["test"]["error_rate"] for r in runs if r["dataset"] == "iris" and r["pipeline"] == "LS"]
iono = [r for r in runs if r["dataset"] == "ionosphere"]
assert all(r["test"] is None and r["cv"]["folds"] == 3 for r in iono)
text = open("first.txt").read()
row = [l for l in text.splitlines() if l.startswith("iris")][0]
want = "%.3f ± %.3f" % (statistics.mean(iris), statistics.stdev(iris))
assert want in row, (want, row)
PY
  for format in markdown csv; do
    run 0 results exp.results.sqlite --format $format
    out_has "synth3"
  done
  run 0 results exp.results.sqlite --format markdown
  grep -q '^| *---' out.txt || fail "markdown table lacks its header separator"
  run 0 results exp.results.sqlite --table rows=dataset+seed,columns=pipeline,value=output.iterations
  out_has "iris"
  # Paired comparison (no grid, so each pipeline is one column): pairs are seeds (x folds for
  # ionosphere); the statistics are checked against scipy on the stored runs.
  sed -e '/^\[grid\]/,/^$/d' -e 's/^value = .*/&\ncompare = ["LS", "IRLS"]/' exp.toml > paired.toml
  run 0 experiment paired.toml --format csv --quiet
  cp out.txt paired.csv
  # radial results prints the experiment's own [table] (its compare included).
  run 0 results paired.results.sqlite
  out_has "sign test p"
  run 0 experiment paired.toml --format json --quiet
  $py - <<'PY' || fail "paired comparison differs from scipy"
import csv, json
from scipy import stats
runs = json.load(open("out.txt"))["runs"]
def values(r):
    if r["test"] is not None:
        return [r["test"]["error_rate"]]
    return [f["error_rate"] for f in r["cv"]["per_fold"]]
rows = {r["dataset"]: r for r in csv.DictReader(open("paired.csv"))}
for dataset in ("synth3", "iris", "ionosphere"):
    a, b = [], []
    for seed in (1, 2, 3):
        ra = [r for r in runs if r["dataset"] == dataset and r["pipeline"] == "LS" and r["seed"] == seed][0]
        rb = [r for r in runs if r["dataset"] == dataset and r["pipeline"] == "IRLS" and r["seed"] == seed][0]
        a += values(ra); b += values(rb)
    d = [y - x for x, y in zip(a, b)]
    wins, ties, losses = sum(x < 0 for x in d), sum(x == 0 for x in d), sum(x > 0 for x in d)
    row = rows[dataset]
    assert int(row["pairs"]) == len(d), (dataset, row)
    assert (int(row["wins"]), int(row["ties"]), int(row["losses"])) == (wins, ties, losses), row
    assert abs(float(row["mean_difference"]) - sum(d) / len(d)) < 1e-12, row
    assert abs(float(row["t_p"]) - stats.ttest_rel(b, a).pvalue) < 1e-9, row
    assert abs(float(row["sign_p"]) - stats.binomtest(wins, wins + losses, 0.5).pvalue) < 1e-9, row
PY
  ;;
jobs)
  run 0 experiment exp.toml --jobs 1 --results one.sqlite --quiet
  run 0 experiment exp.toml --jobs 2 --results two.sqlite --quiet
  [ "$(results_without_timing one.sqlite)" = "$(results_without_timing two.sqlite)" ] ||
    fail "--jobs 1 and --jobs 2 stored different results"
  ;;
kill9-resume)
  # The uninterrupted reference, then 20 runs killed at random moments, each continuing the last.
  # Ten seeds (90 runs, about a second) so that most kills land while runs are being stored.
  sed -i 's/^seeds = .*/seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]/' exp.toml
  total=90
  run 0 experiment exp.toml --jobs 2 --results reference.sqlite --quiet
  reference=$(results_without_timing reference.sqlite)
  previous=0
  for attempt in $(seq 1 20); do
    "$radial" experiment exp.toml --jobs 2 --results killed.sqlite --quiet >/dev/null 2>&1 &
    pid=$!
    sleep "$(printf '0.%02d' $(( RANDOM % 80 + 1 )))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    [ -f killed.sqlite ] || continue
    count=$(stored_count killed.sqlite) || fail "after kill $attempt the database does not open"
    [ "$count" -ge "$previous" ] || fail "kill $attempt lost runs: $previous stored before, $count after"
    [ "$count" -le "$total" ] || fail "kill $attempt stored runs twice: $count rows"
    previous=$count
  done
  run 0 experiment exp.toml --jobs 2 --results killed.sqlite --quiet
  [ "$(stored_count killed.sqlite)" = "$total" ] || fail "after resuming: not $total runs"
  [ "$(results_without_timing killed.sqlite)" = "$reference" ] ||
    fail "resumed results differ from the uninterrupted run"
  $py -c "import sqlite3; c = sqlite3.connect('killed.sqlite'); assert c.execute('pragma integrity_check').fetchone()[0] == 'ok'" ||
    fail "integrity_check failed"
  ;;
changed-data)
  run 0 experiment exp.toml --jobs 2 --quiet
  run 0 experiment exp.toml --jobs 2
  [ "$(ran_now)" = "0" ] || fail "unchanged: runs re-ran"
  # One row less in the synth3 test file: exactly synth3's 9 runs again.
  sed -i '$d' data/synth3_test.csv
  run 0 experiment exp.toml --jobs 2
  [ "$(ran_now)" = "9" ] || fail "changed synth3 test data: expected 9 runs, $(cat err.txt)"
  [ "$(stored_count exp.results.sqlite)" = "$total" ] || fail "the old synth3 runs were not replaced"
  # A comment in a pipeline changes nothing; a value reruns that pipeline's runs (3 x 3 x 1).
  echo "# a comment" >> pipelines/ls.toml
  run 0 experiment exp.toml
  [ "$(ran_now)" = "0" ] || fail "a comment re-ran runs"
  sed -i 's/count = 6/count = 5/' pipelines/ls.toml
  run 0 experiment exp.toml
  [ "$(ran_now)" = "9" ] || fail "changed LS pipeline: expected 9 runs, $(cat err.txt)"
  ;;
concurrent)
  # Two processes create and fill one new database at once, ten times over.
  for round in $(seq 1 10); do
    db=shared-$round.sqlite
    "$radial" experiment exp.toml --jobs 1 --quiet --results $db >a.txt 2>a.err & a=$!
    "$radial" experiment exp.toml --jobs 1 --quiet --results $db >b.txt 2>b.err & b=$!
    wait $a || { cat a.err; fail "round $round: first process failed"; }
    wait $b || { cat b.err; fail "round $round: second process failed"; }
    [ "$(stored_count $db)" = "$total" ] || fail "round $round: not $total runs"
    $py -c "import sqlite3; c = sqlite3.connect('$db'); assert c.execute('pragma integrity_check').fetchone()[0] == 'ok'" ||
      fail "round $round: integrity_check failed"
    cmp -s a.txt b.txt || fail "round $round: the two processes printed different tables"
  done
  ;;
failed-run)
  # 120 centres cannot be fitted on iris's 100 training rows: those runs fail, the others go on.
  sed -i 's/set = { "centres.count" = 8 }/set = { "centres.count" = 120 }/' exp.toml
  run 0 experiment exp.toml --jobs 2
  err_has "failed"
  out_has "failed"
  run 0 results exp.results.sqlite --format json
  $py - <<'PY' || fail "failed runs not stored with their message"
import json
runs = json.load(open("out.txt"))["runs"]
failed = [r for r in runs if r["status"] == "failed"]
ok = [r for r in runs if r["status"] == "ok"]
assert len(runs) == 27 and failed and ok, (len(runs), len(failed))
assert all(r["message"] for r in failed)
assert all(r["pipeline"] == "IRLS" for r in failed)
PY
  failed=$(grep -c '"status": "failed"' out.txt)
  # Failed runs count as done, unless asked to run them again.
  run 0 experiment exp.toml --jobs 2
  [ "$(ran_now)" = "0" ] || fail "failed runs re-ran without --retry-failed"
  run 0 experiment exp.toml --jobs 2 --retry-failed
  [ "$(ran_now)" = "$failed" ] || fail "--retry-failed ran $(ran_now) runs, expected the $failed failed ones"
  ;;
bad-files)
  printf 'name = "x"\nseedz = [1]\n' > typo.toml
  run 2 experiment typo.toml
  err_has "typo.toml:2:1"; err_has "did you mean 'seeds'"
  sed 's#pipelines/ls.toml#pipelines/missing.toml#' exp.toml > missing.toml
  run 2 experiment missing.toml
  err_has "missing.toml:"; err_has "missing.toml"
  sed 's/"centres.count" = 8/"centres.count" = 0/' exp.toml > badset.toml
  run 2 experiment badset.toml
  err_has "badset.toml:"; err_has "count"
  [ ! -e badset.results.sqlite ] || fail "a bad experiment created its database"
  # A misspelt table value is refused before any run, at its position.
  sed 's/^value = "test.error_rate"/value = "test.eror_rate"/' exp.toml > badvalue.toml
  run 2 experiment badvalue.toml
  err_has "badvalue.toml:"; err_has "did you mean 'test.error_rate'"
  [ ! -e badvalue.results.sqlite ] || fail "a bad table value created the database"
  run 2 results nowhere.sqlite
  err_has "nowhere.sqlite"
  echo "not a database" > text.sqlite
  run 2 results text.sqlite
  err_has "text.sqlite"
  run 0 experiment exp.toml --quiet
  run 2 results exp.results.sqlite --table rowz=dataset
  err_has "did you mean 'rows'"
  run 2 results exp.results.sqlite --table value=test.eror_rate
  err_has "error_rate"
  run 2 experiment exp.toml --results data/iris.csv
  err_has "iris.csv"
  # Readers neither create nor change their input (issue 25, defect 11: an empty file got a
  # 24 KB schema), and a damaged database is named, exit 2 (defect 12: "internal error").
  : > empty.sqlite
  run 2 results empty.sqlite
  err_has "empty.sqlite"; err_has "an empty file"
  run 2 plot results empty.sqlite --value test.error_rate -o empty.svg
  [ ! -s empty.sqlite ] || fail "a reader wrote into an empty database file"
  [ ! -e empty.svg ] || fail "a plot was written for an empty database"
  $py - <<'PY'
import shutil, sqlite3
for name, sql in [("dropped", "DROP TABLE runs"),
                  ("view", "ALTER TABLE runs RENAME TO r2; CREATE VIEW runs AS SELECT * FROM r2")]:
    shutil.copy("exp.results.sqlite", name + ".sqlite")
    c = sqlite3.connect(name + ".sqlite")
    c.executescript(sql)
    c.close()
PY
  for damaged in dropped view; do
    run 2 results $damaged.sqlite
    err_has "$damaged.sqlite"; err_has "damaged"
    run 2 experiment exp.toml --results $damaged.sqlite --quiet
    err_has "damaged"
  done
  # A read-only database in a folder its reader cannot write: `results` reads it (a WAL
  # database with no -shm possible), `experiment` cannot store into it: exit 1 as documented.
  if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
    mkdir -p locked && cp exp.results.sqlite locked/ && cp -r data pipelines exp.toml locked/
    chmod 555 locked && chmod 444 locked/exp.results.sqlite
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    status=0
    (cd locked && as_nobody "$radial" results exp.results.sqlite > ../ro.out 2> ../ro.err) || status=$?
    [ "$status" = 0 ] || fail "results on a read-only database: exit $status: $(cat ro.err)"
    grep -q "synth3" ro.out || fail "results on a read-only database printed no table"
    status=0
    (cd locked && as_nobody "$radial" experiment exp.toml --quiet > /dev/null 2> ../ro.err) || status=$?
    [ "$status" = 1 ] || fail "experiment on a read-only database: exit $status, expected 1: $(cat ro.err)"
    grep -q "read-only" ro.err || fail "experiment on a read-only database: $(cat ro.err)"
    chmod 755 locked
  fi
  # Stored names with terminal escapes (issue 25, defect 15): shown as escapes at a terminal,
  # kept as stored in a pipe. Skipped where the machine has no pseudo-terminals.
  cp exp.results.sqlite evil.sqlite
  $py - "$radial" <<'PY' || fail "terminal escapes in stored names"
import os, pty, sqlite3, subprocess, sys
c = sqlite3.connect("evil.sqlite")
c.execute("UPDATE runs SET dataset = ? WHERE dataset = 'iris'", ("iris\x1b[2J\x1b]0;owned\x07\u009b",))
c.commit()
c.close()
piped = subprocess.run([sys.argv[1], "results", "evil.sqlite"], capture_output=True).stdout
assert b"\x1b[2J" in piped, "a pipe gets the names as stored"
try:
    pid, fd = pty.fork()
except OSError:
    print("no pseudo-terminal: the terminal half skipped")
    sys.exit(0)
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "results", "evil.sqlite"])
shown = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    shown += chunk
os.waitpid(pid, 0)
assert b"iris" in shown, shown[:300]
for raw in (b"\x1b", b"\x07", "\u009b".encode()):
    assert raw not in shown, (raw, shown[:300])
assert b"\\x1b[2J" in shown and b"\\u009b" in shown, shown[:300]
PY
  # A grid of 400 x 400 points (issue 25, defect 3: 10^6 runs took 3.8 GB and ended in
  # bad_alloc): refused at once, before a pipeline is read per point.
  $py - <<'PY'
values = ", ".join(str(0.001 * (i + 1)) for i in range(400))
counts = ", ".join(str(i + 2) for i in range(400))
text = open("exp.toml").read().replace('"weight-penalty.alpha" = [0.001, 0.1]',
    '"weight-penalty.alpha" = [%s]\n"centres.count" = [%s]' % (values, counts))
open("huge.toml", "w").write(text)
PY
  run_timeout=20 run 2 experiment huge.toml
  err_has "more than 100000 runs"
  [ ! -e huge.results.sqlite ] || fail "the refused experiment created its database"
  # Data from a character device or a FIFO (issue 25, defects 7 and 8: hashed forever, or
  # waiting for a writer): refused at once, naming the file.
  mknod zero c 1 5 2>/dev/null && {
    sed 's#data/iris.csv#zero#' exp.toml > device.toml
    run_timeout=20 run 2 experiment device.toml
    err_has "zero: is not a regular file"
  }
  mkfifo fifo.csv
  sed 's#data/iris.csv#fifo.csv#' exp.toml > fifo.toml
  run_timeout=20 run 2 experiment fifo.toml
  err_has "fifo.csv: is not a regular file"
  # Data named like one of the database's SQLite side files is refused and left intact
  # (issue 25, defect 2: it was overwritten and deleted, exit 0).
  for side in wal shm journal; do
    cp data/iris.csv "side.results.sqlite-$side"
    sed "s#data/iris.csv#side.results.sqlite-$side#" exp.toml > side.toml
    run 2 experiment side.toml
    err_has "side file"; err_has "side.results.sqlite-$side"
    cmp -s "side.results.sqlite-$side" data/iris.csv || fail "the -$side input was changed"
    [ ! -e side.results.sqlite ] || fail "the refused experiment created its database"
    rm -f "side.results.sqlite-$side"
  done
  ;;
big-database)
  # A table over many stored runs is built from the runs read one at a time (issue 25, defect
  # 5: 200,000 runs, an 800 MB database, peaked at 2.6 GB). Here 20,000 runs with 20 KB reports
  # (a 400 MB database): the peak stays far below the database's size.
  run 0 experiment exp.toml --quiet
  # Under AddressSanitizer memory is the sanitizer's (shadow, quarantine): only the table is
  # checked there.
  sanitized=0
  host_has_asan && sanitized=1
  $py - "$radial" "$sanitized" <<'PY' || fail "table over a large database"
import json, resource, sqlite3, subprocess, sys
c = sqlite3.connect("exp.results.sqlite")
cols = [r[1] for r in c.execute("PRAGMA table_info(runs)")]
row = list(c.execute("SELECT * FROM runs WHERE status = 'ok' LIMIT 1").fetchone())
report = json.loads(row[cols.index("report")])
report["output"]["padding"] = [i / 7 for i in range(1000)]
text = json.dumps(report)
c.execute("BEGIN")
for i in range(20000):
    row[cols.index("key")] = "big%d" % i
    row[cols.index("seed")] = 1000 + i
    row[cols.index("report")] = text
    c.execute("INSERT INTO runs VALUES (%s)" % ",".join("?" * len(row)), row)
c.execute("COMMIT")
c.close()
done = subprocess.run([sys.argv[1], "results", "exp.results.sqlite", "--table", "rows=seed"],
                      capture_output=True, text=True)
assert done.returncode == 0, done.stderr
assert "1999" in done.stdout  # a seed row of the added runs
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
size_mb = len(text) * 20000 / 1e6
print("database reports %.0f MB, peak RSS of radial results %.0f MB" % (size_mb, peak_mb))
assert sys.argv[2] == "1" or peak_mb < size_mb / 2, (peak_mb, size_mb)
PY
  ;;
*) fail "unknown case" ;;
esac
echo "ok [$case_name]"
