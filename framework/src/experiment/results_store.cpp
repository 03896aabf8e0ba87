// The results store: one SQLite row per run, written in its own transaction so that a kill at
// any moment leaves either the whole row or nothing. WAL lets readers and one writer work at
// once; the busy timeout makes concurrent writers (threads or processes) wait their turn.
#include "radial/experiment/results_store.hpp"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <system_error>

#include <sqlite3.h>

#include "radial/core/errors.hpp"
#include "radial/io/output_file.hpp"

namespace radial {
namespace {

namespace fs = std::filesystem;

// "RBFr" in the file header: marks the file as ours before any table is read.
constexpr int application_id = 0x52424672;
constexpr const char* format_marker = "radial-results 1";
constexpr int busy_timeout_ms = 60000;

constexpr const char* schema =
    "CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS runs("
    "  key TEXT NOT NULL, experiment TEXT NOT NULL, dataset TEXT NOT NULL,"
    "  pipeline TEXT NOT NULL, overrides TEXT NOT NULL, seed INTEGER NOT NULL,"
    "  status TEXT NOT NULL, message TEXT NOT NULL, seconds REAL, report TEXT NOT NULL,"
    "  stored_at TEXT NOT NULL,"
    "  UNIQUE(experiment, dataset, pipeline, overrides, seed));"
    "CREATE INDEX IF NOT EXISTS runs_key ON runs(key);";

std::string quoted(const fs::path& file) { return "'" + file.string() + "'"; }

[[noreturn]] void not_ours(const fs::path& file, const std::string& why) {
  throw InputError(quoted(file) + " is not a Radial results database (" + why +
                   "); give another --results file");
}

// A prepared statement, finalized on every path.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      const std::string message = sqlite3_errmsg(db);
      sqlite3_finalize(stmt_);
      stmt_ = nullptr;
      throw Error(std::string("results store: cannot prepare '") + sql + "': " + message);
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

std::string column_text(sqlite3_stmt* s, int i) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
  return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(s, i))) : std::string();
}

// A new database is made whole under a temporary name beside `file` (schema, format marker and
// id committed, the WAL checkpointed by closing it) and then linked into place, so that a kill at
// any moment leaves no database or a complete one, never the empty file that SQLite creates
// before the schema is written (which every reader refuses). When another process linked its
// own first, that one is kept.
void create_whole(const fs::path& file) {
  const std::string temporary = file.string() + ".new-" + std::to_string(::getpid());
  const auto remove_temporary = [&] {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(temporary + suffix, ec);
  };
  sqlite3* db = nullptr;
  const auto fail = [&](const std::string& why) {
    if (db != nullptr) sqlite3_close_v2(db);
    remove_temporary();
    throw InputError("cannot create the results database " + quoted(file) + ": " + why +
                     "; is its folder writable?");
  };
  remove_temporary();  // a previous process of this id killed while creating
  if (sqlite3_open_v2(temporary.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK)
    fail(db != nullptr ? sqlite3_errmsg(db) : "out of memory");
  const std::string init = std::string("PRAGMA journal_mode=WAL;BEGIN IMMEDIATE;") + schema +
                           "INSERT INTO meta VALUES('format', '" + format_marker +
                           "');PRAGMA application_id=" + std::to_string(application_id) +
                           ";COMMIT;";
  if (sqlite3_exec(db, init.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
    fail(sqlite3_errmsg(db));
  if (sqlite3_close(db) != SQLITE_OK) fail(sqlite3_errmsg(db));
  db = nullptr;
  // link() fails when the name exists: a database another process made meanwhile is kept.
  if (::link(temporary.c_str(), file.c_str()) != 0 && errno != EEXIST) {
    const int error = errno;
    // A file system without hard links: rename, unless the name was taken meanwhile.
    std::error_code ec;
    if (fs::exists(file, ec) || std::rename(temporary.c_str(), file.c_str()) != 0)
      if (!fs::exists(file, ec)) fail(std::strerror(error));
  }
  remove_temporary();
}

}  // namespace

struct ResultsStore::Impl {
  sqlite3* db = nullptr;
  mutable std::mutex mutex;  // one connection, used by one thread at a time

  ~Impl() { sqlite3_close_v2(db); }

  // Runs `sql` (no results); returns the SQLite code.
  int exec(const char* sql) const { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr); }

  // exec, retried while another connection holds the lock. Changing the journal mode can
  // return SQLITE_BUSY at once, without calling the busy handler (two processes creating the
  // same database); everything else already waits up to the busy timeout.
  int exec_waiting(const char* sql) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
    while (true) {
      const int rc = exec(sql);
      const int primary = rc & 0xff;
      if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) ||
          std::chrono::steady_clock::now() > deadline) {
        return rc;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // The single integer `sql` returns, or the SQLite error code through `rc`.
  std::int64_t integer(const char* sql, int& rc) const {
    sqlite3_stmt* s = nullptr;
    rc = sqlite3_prepare_v2(db, sql, -1, &s, nullptr);
    std::int64_t value = 0;
    if (rc == SQLITE_OK) {
      rc = sqlite3_step(s);
      if (rc == SQLITE_ROW) {
        value = sqlite3_column_int64(s, 0);
        rc = SQLITE_OK;
      } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
      }
    }
    sqlite3_finalize(s);
    return value;
  }

  std::string error() const { return sqlite3_errmsg(db); }

  // The first column of every row `sql` returns; InputError naming `file` when reading fails.
  std::vector<std::string> texts(const char* sql, const fs::path& file) const {
    Statement s(db, sql);
    std::vector<std::string> out;
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) out.push_back(column_text(s.get(), 0));
    if (rc != SQLITE_DONE) {
      throw InputError("cannot read the results database " + quoted(file) + ": " + error());
    }
    return out;
  }

  // A WAL database whose folder a reader cannot write (no -shm can be made): opened again as
  // immutable, which needs no side files (the experiment that wrote it checkpointed on exit).
  void open_immutable(const fs::path& file) {
    sqlite3_close_v2(db);
    db = nullptr;
    std::string uri = "file:";
    for (const unsigned char c : fs::absolute(file).string()) {
      static const char* hex = "0123456789ABCDEF";
      if (std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_') {
        uri += char(c);
      } else {
        uri += '%';
        uri += hex[c >> 4];
        uri += hex[c & 15];
      }
    }
    uri += "?immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &db,
                        SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      const std::string why = db ? error() : "out of memory";
      throw InputError("cannot open the results database " + quoted(file) + ": " + why);
    }
    sqlite3_extended_result_codes(db, 1);
  }

  // The application id of the file, a new (empty) file made ours first (schema, format marker
  // and id in one transaction); `rc`: the last read's result code.
  std::int64_t make_ours(const fs::path& file, bool reader, std::int64_t id, int& rc) {
    if (id == 0) {
      // A new (empty) file is made ours; another process may be doing the same, so the check is
      // repeated inside the write transaction.
      const std::int64_t tables = integer("SELECT count(*) FROM sqlite_master", rc);
      if (rc != SQLITE_OK) not_ours(file, error());
      // Tables but no id: another process may have committed both since the id was read.
      if (tables != 0) id = integer("PRAGMA application_id", rc);
      if (tables != 0 && id != application_id) not_ours(file, "an SQLite database of something else");
    }
    if (id == 0 && reader) not_ours(file, "no Radial tables");
    if (id == 0) {
      // WAL must be chosen outside a transaction; it is persistent in the file.
      if (exec_waiting("PRAGMA journal_mode=WAL") != SQLITE_OK ||
          exec_waiting("BEGIN IMMEDIATE") != SQLITE_OK) {
        throw InputError("cannot create the results database " + quoted(file) + ": " +
                         error() + "; is its folder writable?");
      }
      id = integer("PRAGMA application_id", rc);
      const std::int64_t tables_now = integer("SELECT count(*) FROM sqlite_master", rc);
      std::string why;
      if (id == 0 && tables_now == 0) {
        const std::string init = std::string(schema) + "INSERT INTO meta VALUES('format', '" +
                                 format_marker + "');PRAGMA application_id=" +
                                 std::to_string(application_id) + ";";
        if (exec(init.c_str()) != SQLITE_OK || exec("COMMIT") != SQLITE_OK) {
          why = error();
        }
      } else {
        exec("COMMIT");
      }
      if (!why.empty()) {
        exec("ROLLBACK");
        throw InputError("cannot create the results database " + quoted(file) + ": " + why);
      }
      id = integer("PRAGMA application_id", rc);
    }
    return id;
  }

  // Ours by its header: the format marker tells which layout. The tables the store reads and
  // writes, as tables (dropped or replaced by a view, the file is damaged: named here rather
  // than failing later as an internal error).
  void check_layout(const fs::path& file) const {
    {
      sqlite3_stmt* s = nullptr;
      std::string format;
      if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE name='format'", -1, &s,
                             nullptr) == SQLITE_OK &&
          sqlite3_step(s) == SQLITE_ROW) {
        format = column_text(s, 0);
      }
      sqlite3_finalize(s);
      if (format != format_marker) {
        not_ours(file, format.empty() ? "no format marker" : "format '" + format + "'; expected '" +
                                                                 format_marker + "'");
      }
    }
    for (const char* table : {"runs", "meta"}) {
      sqlite3_stmt* s = nullptr;
      std::string type;
      if (sqlite3_prepare_v2(db, "SELECT type FROM sqlite_master WHERE name = ?1", -1, &s,
                             nullptr) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
        if (sqlite3_step(s) == SQLITE_ROW) type = column_text(s, 0);
      }
      sqlite3_finalize(s);
      if (type != "table") {
        not_ours(file, "damaged: " + std::string(type.empty() ? "no" : "a " + type + " as its") +
                           " '" + table + "' table");
      }
    }
  }
};

namespace {

// Refuses, naming it, what cannot be a database file before SQLite would create it; true
// when the file exists.
bool check_database_path(const fs::path& file, bool reader) {
  std::error_code ec;
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (!fs::is_directory(folder, ec)) {
    throw InputError("results database " + quoted(file) + ": the folder " + quoted(folder) +
                     " does not exist; create it or give another --results file");
  }
  const fs::file_status status = fs::status(file, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    throw InputError("results database " + quoted(file) +
                     " is not a regular file (a folder?); give a file name");
  }
  if (reader && !fs::exists(status)) {
    throw InputError("results database " + quoted(file) +
                     " not found; run `radial experiment FILE` first, or name the file");
  }
  if (reader && fs::file_size(file, ec) == 0) not_ours(file, "an empty file");
  return fs::exists(status);
}

}  // namespace

ResultsStore::ResultsStore(const fs::path& file, Access access)
    : file_(file), impl_(std::make_unique<Impl>()) {
  const bool reader = access == Access::ReadOnly;
  const bool exists = check_database_path(file, reader);
  if (!reader && !exists) create_whole(file);

  const int flags = reader ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
                           : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(file.c_str(), &impl_->db, flags, nullptr) != SQLITE_OK) {
    const std::string why = impl_->db ? impl_->error() : "out of memory";
    throw InputError("cannot open the results database " + quoted(file) + ": " + why);
  }
  sqlite3_extended_result_codes(impl_->db, 1);
  sqlite3_busy_timeout(impl_->db, busy_timeout_ms);
  if (!reader && sqlite3_db_readonly(impl_->db, "main") == 1) {
    throw OutputError("cannot write the results database " + quoted(file) +
                          " (read-only); give a writable --results file",
                      EROFS);
  }

  int rc = SQLITE_OK;
  std::int64_t id = impl_->integer("PRAGMA application_id", rc);
  if (reader && ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN)) {
    impl_->open_immutable(file);
    id = impl_->integer("PRAGMA application_id", rc);
  }
  if ((rc & 0xff) == SQLITE_NOTADB) not_ours(file, "not an SQLite file");
  if (rc != SQLITE_OK) {
    throw InputError("cannot read the results database " + quoted(file) + ": " + impl_->error());
  }
  id = impl_->make_ours(file, reader, id, rc);
  if (id != application_id) not_ours(file, "its application id is " + std::to_string(id));
  impl_->check_layout(file);
  if (reader) return;
  // Per connection: WAL is durable enough at NORMAL (a power loss may drop the last commits,
  // never corrupt); a kill -9 loses nothing committed.
  impl_->exec("PRAGMA journal_mode=WAL");
  impl_->exec("PRAGMA synchronous=NORMAL");
}

ResultsStore::~ResultsStore() = default;

std::vector<std::string> ResultsStore::keys(bool completed_only) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->texts(completed_only ? "SELECT key FROM runs WHERE status = 'ok' ORDER BY key"
                                    : "SELECT key FROM runs ORDER BY key",
                     file_);
}

void ResultsStore::put(const RunRecord& run) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto fail = [&](const std::string& step) {
    const std::string why = impl_->error();
    const int error_number = sqlite3_system_errno(impl_->db);
    if (sqlite3_get_autocommit(impl_->db) == 0) impl_->exec("ROLLBACK");
    throw OutputError("cannot store a run in the results database " + quoted(file_) + ": " +
                          step + " failed (" + why + ")",
                      error_number != 0 ? error_number : EIO);
  };
  if (impl_->exec("BEGIN IMMEDIATE") != SQLITE_OK) fail("BEGIN");
  {
    // OR REPLACE: the UNIQUE identity makes a rerun (new key) or a racing twin replace the row.
    Statement s(impl_->db,
                "INSERT OR REPLACE INTO runs(key, experiment, dataset, pipeline, overrides, seed,"
                " status, message, seconds, report, stored_at) VALUES(?,?,?,?,?,?,?,?,?,?,"
                " strftime('%Y-%m-%dT%H:%M:%fZ','now'))");
    sqlite3_stmt* st = s.get();
    int i = 0;
    for (const std::string* text : {&run.key, &run.experiment, &run.dataset, &run.pipeline,
                                    &run.overrides}) {
      sqlite3_bind_text(st, ++i, text->data(), static_cast<int>(text->size()), SQLITE_TRANSIENT);
    }
    // Seeds are stored as their 64 bits, so every std::uint64_t comes back unchanged.
    sqlite3_bind_int64(st, ++i, static_cast<sqlite3_int64>(run.seed));
    sqlite3_bind_text(st, ++i, run.status.data(), static_cast<int>(run.status.size()),
                      SQLITE_TRANSIENT);
    sqlite3_bind_text(st, ++i, run.message.data(), static_cast<int>(run.message.size()),
                      SQLITE_TRANSIENT);
    if (std::isfinite(run.seconds)) sqlite3_bind_double(st, ++i, run.seconds);
    else sqlite3_bind_null(st, ++i);
    sqlite3_bind_text(st, ++i, run.report.data(), static_cast<int>(run.report.size()),
                      SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) fail("INSERT");
  }
  if (impl_->exec("COMMIT") != SQLITE_OK) fail("COMMIT");
}

std::vector<RunRecord> ResultsStore::runs(const std::string& experiment) const {
  std::vector<RunRecord> runs;
  for_each_run([&](RunRecord&& r) { runs.push_back(std::move(r)); }, experiment);
  return runs;
}

std::vector<std::string> ResultsStore::experiments() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->texts("SELECT DISTINCT experiment FROM runs ORDER BY experiment", file_);
}

void ResultsStore::for_each_run(const std::function<void(RunRecord&&)>& visit,
                                const std::string& experiment) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Statement s(impl_->db,
              "SELECT key, experiment, dataset, pipeline, overrides, seed, status, message,"
              " seconds, report FROM runs WHERE ?1 = '' OR experiment = ?1"
              " ORDER BY experiment, dataset, pipeline, overrides, seed");
  sqlite3_bind_text(s.get(), 1, experiment.data(), static_cast<int>(experiment.size()),
                    SQLITE_TRANSIENT);
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    sqlite3_stmt* st = s.get();
    RunRecord r;
    r.key = column_text(st, 0);
    r.experiment = column_text(st, 1);
    r.dataset = column_text(st, 2);
    r.pipeline = column_text(st, 3);
    r.overrides = column_text(st, 4);
    r.seed = static_cast<std::uint64_t>(sqlite3_column_int64(st, 5));
    r.status = column_text(st, 6);
    r.message = column_text(st, 7);
    r.seconds = sqlite3_column_type(st, 8) == SQLITE_NULL
                    ? std::numeric_limits<double>::quiet_NaN()
                    : sqlite3_column_double(st, 8);
    r.report = column_text(st, 9);
    visit(std::move(r));
  }
  if (rc != SQLITE_DONE) {
    throw InputError("cannot read the results database " + quoted(file_) + ": " + impl_->error());
  }
}

// Tables are kept in meta as "table:<experiment>": no new table, so the format stays 1.
void ResultsStore::set_table(const std::string& experiment, const std::string& spec_json) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Statement s(impl_->db, "INSERT OR REPLACE INTO meta(name, value) VALUES(?1, ?2)");
  const std::string name = "table:" + experiment;
  sqlite3_bind_text(s.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(s.get(), 2, spec_json.data(), static_cast<int>(spec_json.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(s.get()) != SQLITE_DONE) {
    throw OutputError("cannot store the table of experiment '" + experiment +
                          "' in the results database " + quoted(file_) + ": " + impl_->error(),
                      sqlite3_system_errno(impl_->db) != 0 ? sqlite3_system_errno(impl_->db) : EIO);
  }
}

std::string ResultsStore::table(const std::string& experiment) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Statement s(impl_->db, "SELECT value FROM meta WHERE name = ?1");
  const std::string name = "table:" + experiment;
  sqlite3_bind_text(s.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  return sqlite3_step(s.get()) == SQLITE_ROW ? column_text(s.get(), 0) : std::string();
}

}  // namespace radial
