// The fixed row partition and the ordered reduction of radial/exec/parallel.hpp.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <future>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xtensor-blas/xblas.hpp>

#include "radial/core/errors.hpp"
#include "radial/exec/blas_threads.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/core/types.hpp"

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// Terms whose floating-point sum depends on the order of addition: magnitudes from 1e-8 to 1e16.
std::vector<double> ill_conditioned_terms(std::size_t n) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-8, 16);
  std::vector<double> v(n);
  for (auto& t : v) t = u(rng) * std::pow(10.0, e(rng));
  return v;
}

}  // namespace

TEST_CASE("resolve_threads: 0 means every hardware thread", "[parallel]") {
  CHECK(radial::resolve_threads(0) == int(std::max(1u, std::thread::hardware_concurrency())));
  CHECK(radial::resolve_threads(-3) == radial::resolve_threads(0));
  CHECK(radial::resolve_threads(3) == 3);
}

TEST_CASE("row blocks cover every row exactly once, whatever the thread count", "[parallel]") {
  CHECK(radial::row_block_count(0, 10) == 0);
  CHECK(radial::row_block_count(10, 10) == 1);
  CHECK(radial::row_block_count(11, 10) == 2);
  CHECK(radial::worker_count(25, 10, 8) == 3);  // never more workers than blocks
  CHECK(radial::worker_count(0, 10, 8) == 1);
  for (std::size_t rows : {std::size_t(0), std::size_t(1), std::size_t(999), std::size_t(4097)}) {
    for (int threads : {1, 2, 3, 4, 7}) {
      std::vector<std::atomic<int>> hits(rows);
      for (auto& h : hits) h = 0;
      std::vector<std::size_t> block_first;
      std::mutex m;
      radial::parallel_for_blocks(rows, 100, threads,
                                  [&](std::size_t, const radial::RowBlock& b) {
                                    for (std::size_t i = b.first; i < b.first + b.count; ++i)
                                      ++hits[i];
                                    std::lock_guard<std::mutex> lock(m);
                                    block_first.push_back(b.first);
                                    CHECK(b.first == b.index * 100);
                                    CHECK(b.count == std::min<std::size_t>(100, rows - b.first));
                                  });
      for (std::size_t i = 0; i < rows; ++i) REQUIRE(hits[i] == 1);
      CHECK(block_first.size() == radial::row_block_count(rows, 100));
    }
  }
}

TEST_CASE("the ordered reduction combines blocks in order, one at a time", "[parallel]") {
  const std::size_t rows = 10'000, block = 64;
  for (int threads : {1, 2, 3, 4}) {
    std::vector<std::size_t> order;
    std::atomic<int> inside{0};
    int most_inside = 0;
    radial::parallel_reduce_blocks(
        rows, block, threads, [](std::size_t, const radial::RowBlock&) {},
        [&](std::size_t, const radial::RowBlock& b) {
          most_inside = std::max(most_inside, ++inside);
          order.push_back(b.index);
          --inside;
        });
    REQUIRE(order.size() == radial::row_block_count(rows, block));
    for (std::size_t i = 0; i < order.size(); ++i) REQUIRE(order[i] == i);
    CHECK(most_inside == 1);
  }
}

TEST_CASE("ordered sums are bit-identical for threads = 1, 2, 3, 4 and equal the serial sum",
          "[parallel]") {
  const auto terms = ill_conditioned_terms(100'003);
  const std::size_t block = 1000;
  // The reference: per-block left-to-right sums added left to right, by a plain loop.
  double serial = 0;
  for (std::size_t first = 0; first < terms.size(); first += block) {
    double s = 0;
    for (std::size_t i = first; i < std::min(terms.size(), first + block); ++i) s += terms[i];
    serial += s;
  }
  // The same terms in another grouping give another answer, so the test can tell orders apart.
  double interleaved = 0, other = 0;
  for (std::size_t i = 0; i < terms.size(); i += 2) interleaved += terms[i];
  for (std::size_t i = 1; i < terms.size(); i += 2) other += terms[i];
  REQUIRE_FALSE(same_bits(interleaved + other, serial));

  for (int threads : {1, 2, 3, 4}) {
    double total = 0;
    radial::ordered_reduce<double>(
        terms.size(), block, threads, [] { return 0.0; },
        [&](const radial::RowBlock& b, double& partial) {
          partial = 0;
          for (std::size_t i = b.first; i < b.first + b.count; ++i) partial += terms[i];
        },
        [&](const radial::RowBlock&, double& partial) { total += partial; });
    INFO("threads = " << threads);
    CHECK(same_bits(total, serial));
  }
}

TEST_CASE("a blocked Gram matrix by BLAS is bit-identical across thread counts", "[parallel]") {
  const std::size_t n = 5000, m = 37;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g;
  radial::Matrix phi = xt::empty<double>({n, m});
  for (auto& v : phi) v = g(rng);

  // Phi^T Phi accumulated block by block (dgemm into a per-worker partial, ordered sum).
  auto gram = [&](int threads) {
    radial::Matrix total = xt::zeros<double>({m, m});
    radial::ordered_reduce<radial::Matrix>(
        n, 256, threads, [&] { return radial::Matrix(xt::zeros<double>({m, m})); },
        [&](const radial::RowBlock& b, radial::Matrix& partial) {
          CHECK(radial::blas_threads() == 1);
          cxxblas::gemm<xt::blas_index_t>(
              cxxblas::RowMajor, cxxblas::Trans, cxxblas::NoTrans, xt::blas_index_t(m),
              xt::blas_index_t(m), xt::blas_index_t(b.count), 1.0, phi.data() + b.first * m,
              xt::blas_index_t(m), phi.data() + b.first * m, xt::blas_index_t(m), 0.0,
              partial.data(), xt::blas_index_t(m));
        },
        [&](const radial::RowBlock&, radial::Matrix& partial) {
          for (std::size_t i = 0; i < m * m; ++i) total.data()[i] += partial.data()[i];
        });
    return total;
  };
  const radial::Matrix one = gram(1);
  // Independent check of the values: the naive triple loop.
  for (std::size_t a = 0; a < m; a += 9)
    for (std::size_t b = 0; b < m; b += 7) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += phi(i, a) * phi(i, b);
      CHECK(one(a, b) == Approx(s).epsilon(1e-12).margin(1e-9));
    }
  for (int threads : {2, 3, 4}) {
    const radial::Matrix other = gram(threads);
    INFO("threads = " << threads);
    CHECK(std::memcmp(one.data(), other.data(), m * m * sizeof(double)) == 0);
  }
}

TEST_CASE("BLAS is single-threaded inside a region and restored after", "[parallel]") {
  radial::set_blas_threads(2);
  const int before = radial::blas_threads();
  std::atomic<int> most{0};
  radial::parallel_for_blocks(4096, 512, 2, [&](std::size_t, const radial::RowBlock&) {
    most = std::max(most.load(), radial::blas_threads());
  });
  CHECK(most == 1);
  CHECK(radial::blas_threads() == before);
  radial::set_blas_threads(1);
}

TEST_CASE("overlapping BLAS scopes in two threads restore the count once, at the last close",
          "[parallel]") {
  radial::set_blas_threads(2);
  // Scope A opens, then B in another thread; A closes first (as two fits from two host threads
  // may): B still runs on one thread, and B's close restores the count A found.
  std::promise<void> b_open, a_closed;
  std::atomic<int> inside_b_after_a{0};
  std::thread other;
  {
    const radial::SingleThreadedBlasScope a;
    other = std::thread([&] {
      const radial::SingleThreadedBlasScope b;
      b_open.set_value();
      a_closed.get_future().wait();
      inside_b_after_a = radial::blas_threads();
    });
    b_open.get_future().wait();
  }
  a_closed.set_value();
  other.join();
  CHECK(inside_b_after_a == 1);
  CHECK(radial::blas_threads() == 2);
  radial::set_blas_threads(1);
}

TEST_CASE("an exception in a block stops the region and reaches the caller", "[parallel]") {
  for (int threads : {1, 2, 4}) {
    std::atomic<std::size_t> combined{0};
    CHECK_THROWS_AS(
        radial::parallel_reduce_blocks(
            10'000, 100, threads,
            [](std::size_t, const radial::RowBlock& b) {
              if (b.index == 37) throw radial::InputError("block 37 is bad");
            },
            [&](std::size_t, const radial::RowBlock&) { ++combined; }),
        radial::InputError);
    CHECK(combined <= 37);  // nothing after the failed block was combined
    CHECK_THROWS_WITH(
        radial::parallel_for_blocks(1000, 10, threads,
                                    [](std::size_t, const radial::RowBlock& b) {
                                      if (b.index == 3) throw std::runtime_error("three");
                                    }),
        "three");
  }
}

// The regions' threads are parked between regions (framework/src/exec/worker_pool.hpp): the same
// threads serve region after region, and a region inside a region, or regions from several
// host threads at once, still run every block once on threads of their own.
TEST_CASE("regions reuse parked threads, and nest and overlap correctly", "[parallel]") {
  SECTION("worker 1 of successive regions is the same thread") {
    std::thread::id first;
    for (int region = 0; region < 200; ++region) {
      std::thread::id seen;
      radial::parallel_for_blocks(2, 1, 2, [&](std::size_t w, const radial::RowBlock&) {
        if (w == 1) seen = std::this_thread::get_id();
      });
      REQUIRE(seen != std::thread::id{});
      REQUIRE(seen != std::this_thread::get_id());
      if (region == 0) first = seen;
      CHECK(seen == first);
    }
  }
  SECTION("narrow regions after a wide one: the threads left out sit them out") {
    std::atomic<int> blocks{0};
    radial::parallel_for_blocks(60, 1, 6, [&](std::size_t, const radial::RowBlock&) { ++blocks; });
    CHECK(blocks == 60);
    for (int region = 0; region < 300; ++region) {
      const int threads = 2 + region % 3;  // 2, 3, 4
      std::vector<int> hits(40, 0);
      std::vector<std::size_t> worker_of(40, 99);
      radial::parallel_for_blocks(40, 1, threads, [&](std::size_t w, const radial::RowBlock& b) {
        ++hits[b.index];
        worker_of[b.index] = w;
      });
      for (std::size_t b = 0; b < 40; ++b) {
        REQUIRE(hits[b] == 1);
        REQUIRE(worker_of[b] == b % std::size_t(threads));  // round-robin, as documented
      }
    }
  }
  SECTION("a region inside a region's blocks") {
    std::vector<std::atomic<int>> hits(64 * 64);
    radial::parallel_for_blocks(64, 8, 3, [&](std::size_t, const radial::RowBlock& outer) {
      for (std::size_t r = outer.first; r < outer.first + outer.count; ++r)
        radial::parallel_for_blocks(64, 4, 2, [&](std::size_t, const radial::RowBlock& inner) {
          for (std::size_t c = inner.first; c < inner.first + inner.count; ++c)
            ++hits[r * 64 + c];
        });
    });
    for (const auto& h : hits) REQUIRE(h.load() == 1);
  }
  SECTION("ordered sums from four host threads at once are each the block-ordered sum") {
    const std::vector<double> terms = ill_conditioned_terms(20'000);
    std::vector<std::future<double>> sums;
    for (int host = 0; host < 4; ++host)
      sums.push_back(std::async(std::launch::async, [&] {
        double total = 0;
        for (int repeat = 0; repeat < 50; ++repeat) {
          total = 0;
          radial::ordered_reduce<double>(
              terms.size(), 97, 2, [] { return 0.0; },
              [&](const radial::RowBlock& b, double& part) {
                part = 0;
                for (std::size_t i = b.first; i < b.first + b.count; ++i) part += terms[i];
              },
              [&](const radial::RowBlock&, double& part) { total += part; });
        }
        return total;
      }));
    // Block partials summed in block order: the same value whatever thread ran them.
    double blocked = 0;
    for (std::size_t b = 0; b < terms.size(); b += 97) {
      double part = 0;
      for (std::size_t i = b; i < std::min(terms.size(), b + 97); ++i) part += terms[i];
      blocked += part;
    }
    for (auto& s : sums) CHECK(same_bits(s.get(), blocked));
  }
  SECTION("an exception on a parked thread reaches the caller, and the pool still works") {
    CHECK_THROWS_WITH(radial::parallel_for_blocks(2, 1, 2,
                                                  [](std::size_t w, const radial::RowBlock&) {
                                                    if (w == 1) throw std::runtime_error("one");
                                                  }),
                      "one");
    std::atomic<int> blocks{0};
    radial::parallel_for_blocks(10, 1, 2, [&](std::size_t, const radial::RowBlock&) { ++blocks; });
    CHECK(blocks == 10);
  }
}

TEST_CASE("a child of fork() runs regions on threads of its own", "[parallel]") {
  // The parent's parked threads do not exist in the child.
  radial::parallel_for_blocks(4, 1, 2, [](std::size_t, const radial::RowBlock&) {});
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::atomic<int> blocks{0};
    radial::parallel_for_blocks(100, 1, 2, [&](std::size_t, const radial::RowBlock&) { ++blocks; });
    _exit(blocks == 100 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("a thread that cannot be started is the user's error, on the pool and off it",
          "[parallel]") {
  // In a child: the pool gets its threads first; then every new thread asks for a 4 GiB stack
  // under an address-space limit 256 MiB above the space in use, so std::thread throws. A region wider than the pool
  // (the pool's own start) and regions inside a region's blocks (the pool is in use: threads of
  // their own) must both end in InputError, with every started thread joined, never abort.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RADIAL_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(RADIAL_TEST_ASAN)
  // The sanitizer's own mappings for a new thread would fail under the limit first.
  WARN("not run under AddressSanitizer: address-space limits and its mappings do not mix");
  return;
#endif
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    radial::parallel_for_blocks(3, 1, 3, [](std::size_t, const radial::RowBlock&) {});
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0 ||
        pthread_attr_setstacksize(&attr, std::size_t(4) << 30) != 0 ||
        pthread_setattr_default_np(&attr) != 0)
      _exit(3);
    std::size_t pages = 0;  // the address space in use, from /proc/self/statm
    if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%zu", &pages) != 1) pages = 0;
      std::fclose(statm);
    }
    if (pages == 0) _exit(5);
    rlimit limit{};
    getrlimit(RLIMIT_AS, &limit);
    limit.rlim_cur = pages * std::size_t(sysconf(_SC_PAGESIZE)) + (std::size_t(256) << 20);
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(4);
    auto refused = [](auto run) {
      try {
        run();
      } catch (const radial::InputError& e) {
        return std::string(e.what()).find("could not start thread") != std::string::npos;
      } catch (...) {
        return false;
      }
      return false;
    };
    const bool wider = refused([] {
      radial::parallel_for_blocks(8, 1, 5, [](std::size_t, const radial::RowBlock&) {});
    });
    const bool nested = refused([] {
      radial::parallel_for_blocks(3, 1, 3, [](std::size_t, const radial::RowBlock&) {
        radial::parallel_for_blocks(4, 1, 2, [](std::size_t, const radial::RowBlock&) {});
      });
    });
    std::atomic<int> blocks{0};
    radial::parallel_for_blocks(30, 1, 3, [&](std::size_t, const radial::RowBlock&) { ++blocks; });
    _exit(wider && nested && blocks == 30 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));  // not killed by SIGABRT
  CHECK(WEXITSTATUS(status) == 0);
}
