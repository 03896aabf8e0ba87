// The results store: round trips, replacement by identity, refusal of foreign files, concurrent
// writers (threads and processes) and processes killed with SIGKILL while writing.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>

#include <catch2/catch.hpp>
#include <sqlite3.h>

#include "radial/core/errors.hpp"
#include "radial/io/output_file.hpp"
#include "radial/experiment/results_store.hpp"

namespace fs = std::filesystem;
using radial::ResultsStore;
using radial::RunRecord;

namespace {

// A fresh folder per test, removed at the end.
struct TempFolder {
  fs::path path;
  TempFolder() {
    path = fs::temp_directory_path() /
           ("radial-store-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempFolder() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

// A run whose every field is derived from (writer, i), so a stored row can be checked whole.
RunRecord make_run(int writer, int i) {
  RunRecord r;
  r.experiment = "exp";
  r.dataset = "data" + std::to_string(writer);
  r.pipeline = "pipe";
  r.overrides = "{\"kernel-prior.alpha\":" + std::to_string(i % 3) + "}";
  r.seed = static_cast<std::uint64_t>(i);
  r.key = "key-" + std::to_string(writer) + "-" + std::to_string(i);
  r.status = i % 7 == 0 ? "failed" : "ok";
  r.message = r.status == "failed" ? "failed because " + std::to_string(i) : "";
  r.seconds = 0.25 * i;
  // A report large enough that a write spans several pages.
  r.report = r.status == "ok" ? "{\"writer\":" + std::to_string(writer) + ",\"i\":" +
                                    std::to_string(i) + ",\"pad\":\"" +
                                    std::string(6000, static_cast<char>('a' + i % 26)) + "\"}"
                              : "";
  return r;
}

bool complete(const RunRecord& r) {
  // key-W-I names the run that was written; every field must be that run's.
  const auto dash = r.key.rfind('-');
  const int writer = std::stoi(r.key.substr(4, dash - 4));
  const int i = std::stoi(r.key.substr(dash + 1));
  const RunRecord e = make_run(writer, i);
  return r.experiment == e.experiment && r.dataset == e.dataset && r.pipeline == e.pipeline &&
         r.overrides == e.overrides && r.seed == e.seed && r.status == e.status &&
         r.message == e.message && r.seconds == e.seconds && r.report == e.report;
}

std::string integrity_check(const fs::path& file) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  std::string result;
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    result = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  } else {
    result = sqlite3_errmsg(db);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return result;
}

void require_input_error_naming(const fs::path& file) {
  try {
    ResultsStore store(file);
    FAIL("opened " << file);
  } catch (const radial::OutputError&) {
    FAIL("OutputError instead of InputError");
  } catch (const radial::InputError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(file.string()) != std::string::npos);
  }
}

// The database holds `count` runs, every one whole, and passes SQLite's integrity check.
void check_whole_runs(const fs::path& file, std::size_t count) {
  const auto runs = ResultsStore(file).runs();
  CHECK(runs.size() == count);
  for (const auto& r : runs) CHECK(complete(r));
  CHECK(integrity_check(file) == "ok");
}

}  // namespace

TEST_CASE("results store: runs come back as they were put, and after reopening") {
  TempFolder tmp;
  const fs::path file = tmp.path / "r.sqlite";
  RunRecord big_seed = make_run(1, 1);
  big_seed.seed = 9223372036854775807ull;  // 2^63 - 1
  big_seed.dataset = "zzz";
  {
    ResultsStore store(file);
    CHECK(store.file() == file);
    CHECK(store.runs().empty());
    CHECK(store.keys().empty());
    store.put(make_run(0, 2));
    store.put(make_run(0, 1));
    store.put(make_run(0, 7));  // failed: empty report, a message
    store.put(big_seed);
    RunRecord other = make_run(0, 3);
    other.experiment = "another";
    store.put(other);
    const auto runs = store.runs("exp");
    REQUIRE(runs.size() == 4);
    // Ordered by dataset, pipeline, overrides, seed: 1 and 7 have alpha 1, 2 has alpha 2.
    CHECK(runs[0].key == "key-0-1");
    CHECK(runs[1].key == "key-0-7");
    CHECK(runs[2].key == "key-0-2");
    CHECK(runs[3].seed == 9223372036854775807ull);
    for (const auto& r : runs) CHECK((r.key == "key-1-1" ? r.dataset == "zzz" : complete(r)));
    CHECK(runs[1].status == "failed");
    CHECK(runs[1].message == "failed because 7");
    CHECK(runs[1].report.empty());
    CHECK(store.runs().size() == 5);
    CHECK(store.runs("another").size() == 1);
    CHECK(store.runs("nothing").empty());
    CHECK(store.keys() == std::vector<std::string>{"key-0-1", "key-0-2", "key-0-3", "key-0-7",
                                                   "key-1-1"});
  }
  ResultsStore again(file);
  CHECK(again.runs().size() == 5);
  CHECK(integrity_check(file) == "ok");
}

TEST_CASE("results store: a run with the same identity and a new key replaces the old row") {
  TempFolder tmp;
  ResultsStore store(tmp.path / "r.sqlite");
  RunRecord r = make_run(0, 1);
  store.put(r);
  store.put(make_run(0, 2));
  r.key = "key-changed";
  r.report = "{\"new\":true}";
  store.put(r);
  const auto runs = store.runs();
  REQUIRE(runs.size() == 2);
  CHECK(store.keys() == std::vector<std::string>{"key-0-2", "key-changed"});
  // Same identity again with the same key (two processes racing): still one row.
  store.put(r);
  CHECK(store.runs().size() == 2);
  // Another seed or another override is another run.
  r.seed = 99;
  store.put(r);
  r.overrides = "{}";
  store.put(r);
  CHECK(store.runs().size() == 4);
}

TEST_CASE("results store: files that are not Radial results databases are refused by name") {
  TempFolder tmp;
  SECTION("a text file") {
    const fs::path file = tmp.path / "notes.sqlite";
    std::ofstream(file) << "name,value\nthis is a text file that is long enough to have a "
                           "header of one hundred bytes, which SQLite reads first.....\n";
    require_input_error_naming(file);
    // ... and left unchanged.
    CHECK(fs::file_size(file) > 100);
  }
  SECTION("another SQLite database") {
    const fs::path file = tmp.path / "other.db";
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE runs(x INTEGER); INSERT INTO runs VALUES(1);",
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    require_input_error_naming(file);
  }
  SECTION("an SQLite file with another application id") {
    const fs::path file = tmp.path / "other.db";
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "PRAGMA application_id=42;", nullptr, nullptr, nullptr) ==
            SQLITE_OK);
    sqlite3_close(db);
    require_input_error_naming(file);
  }
  SECTION("a folder, and a file in a missing folder") {
    require_input_error_naming(tmp.path);
    require_input_error_naming(tmp.path / "missing" / "r.sqlite");
    CHECK_FALSE(fs::exists(tmp.path / "missing"));
  }
  SECTION("a folder that cannot be written") {
    if (::geteuid() == 0) return;  // root writes anywhere
    const fs::path folder = tmp.path / "locked";
    fs::create_directories(folder);
    fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
    require_input_error_naming(folder / "r.sqlite");
    fs::permissions(folder, fs::perms::owner_all);
  }
}

TEST_CASE("results store: two stores in one process write 200 runs each at once") {
  TempFolder tmp;
  const fs::path file = tmp.path / "r.sqlite";
  ResultsStore a(file), b(file);
  // One store shared by two threads as well: put is thread-safe.
  std::thread t1([&] { for (int i = 0; i < 100; ++i) a.put(make_run(0, i)); });
  std::thread t2([&] { for (int i = 100; i < 200; ++i) a.put(make_run(0, i)); });
  std::thread t3([&] { for (int i = 0; i < 200; ++i) b.put(make_run(1, i)); });
  t1.join();
  t2.join();
  t3.join();
  check_whole_runs(file, 400);
}

TEST_CASE("results store: two processes write 200 runs each into one new database") {
  TempFolder tmp;
  const fs::path file = tmp.path / "r.sqlite";
  std::vector<pid_t> children;
  for (int writer = 0; writer < 2; ++writer) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int code = 0;
      try {
        // Both create the database at the same moment.
        ResultsStore store(file);
        for (int i = 0; i < 200; ++i) store.put(make_run(writer, i));
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  check_whole_runs(file, 400);
}

TEST_CASE("results store: a writer killed with SIGKILL leaves a sound database of whole rows") {
  TempFolder tmp;
  const fs::path file = tmp.path / "r.sqlite";
  std::mt19937 rng(20261123);
  std::uniform_int_distribution<int> delay_us(0, 60000);
  std::size_t rows_before = 0;
  for (int round = 0; round < 8; ++round) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      try {
        ResultsStore store(file);
        for (int i = 0;; ++i) store.put(make_run(round, i));
      } catch (...) {
      }
      ::_exit(1);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));

    ResultsStore store(file);  // opens: the WAL is recovered
    CHECK(integrity_check(file) == "ok");
    const auto runs = store.runs();
    CHECK(runs.size() >= rows_before);  // nothing committed is lost
    for (const auto& r : runs) CHECK(complete(r));
    // Each killed writer's rows are a prefix 0..n-1 of what it wrote: no gap, no duplicate.
    std::map<int, std::set<int>> written;
    for (const auto& r : runs) {
      const auto dash = r.key.rfind('-');
      written[std::stoi(r.key.substr(4, dash - 4))].insert(std::stoi(r.key.substr(dash + 1)));
    }
    std::size_t total = 0;
    for (const auto& [writer, is] : written) {
      total += is.size();
      CHECK(*is.rbegin() + 1 == static_cast<int>(is.size()));
    }
    CHECK(total == runs.size());
    rows_before = runs.size();
  }
}

TEST_CASE("results store: a write that fails (file size limit, as a full disk) is an OutputError") {
  TempFolder tmp;
  const fs::path file = tmp.path / "r.sqlite";
  {
    ResultsStore store(file);
    store.put(make_run(0, 0));
  }
  // In a child, so the limit does not outlive the test: writes beyond 64 KiB fail with EFBIG.
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int code = 3;
    try {
      ::signal(SIGXFSZ, SIG_IGN);
      ResultsStore store(file);
      const rlimit limit{64 * 1024, 64 * 1024};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      for (int i = 1; i < 1000; ++i) store.put(make_run(0, i));
    } catch (const radial::OutputError& e) {
      code = std::string(e.what()).find(file.string()) != std::string::npos ? 0 : 4;
    } catch (...) {
      code = 5;
    }
    ::_exit(code);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // What was committed before the failure is there, whole.
  ResultsStore store(file);
  CHECK(integrity_check(file) == "ok");
  const auto runs = store.runs();
  CHECK(runs.size() >= 1);
  for (const auto& r : runs) CHECK(complete(r));
}

TEST_CASE("results store: a new database is whole the moment its name exists",
          "[experiment][store]") {
  // Issue 46: a kill -9 just after SQLite created the file, before the schema was written, left
  // an empty file that every later run refused. A watcher looks at each new name as soon as it
  // appears: it must always be a complete Radial database (the readers open it).
  TempFolder folder;
  constexpr int databases = 30;
  std::atomic<int> empty_seen{0}, refused{0};
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    for (int k = 0; k < databases && !done; ++k) {
      const fs::path file = folder.path / ("db" + std::to_string(k) + ".sqlite");
      std::error_code ec;
      while (!done && !fs::exists(file, ec)) std::this_thread::yield();
      if (!fs::exists(file, ec)) break;
      if (fs::file_size(file, ec) == 0) ++empty_seen;
      try {
        ResultsStore reader(file, ResultsStore::Access::ReadOnly);
      } catch (const radial::Error&) {
        ++refused;
      }
    }
  });
  for (int k = 0; k < databases; ++k)
    ResultsStore store(folder.path / ("db" + std::to_string(k) + ".sqlite"));
  done = true;
  watcher.join();
  CHECK(empty_seen == 0);
  CHECK(refused == 0);
  // No temporary is left beside them.
  for (const auto& entry : fs::directory_iterator(folder.path))
    CHECK(entry.path().filename().string().find(".new-") == std::string::npos);
}
