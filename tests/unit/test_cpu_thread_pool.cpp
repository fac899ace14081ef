// tests/unit/test_cpu_thread_pool.cpp: the parallel target's thread pool.
//
// parallel_for must cover every index exactly once with contiguous, deterministic pieces (on
// a page grain when given one), run small ranges inline, really use several threads, let a
// thread that finished its share take the pieces of one that is held up, survive concurrent
// and nested calls, and hand the first exception back to the caller.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "cpu/thread_pool.hpp"
#include "jitvec/errors.hpp"

namespace {

using jitvec::cpu::ChunkGrain;
using jitvec::cpu::ChunkPlan;
using jitvec::cpu::parallel_chunk_count;
using jitvec::cpu::plan_chunks;
using jitvec::cpu::ThreadPool;
using Chunk = std::pair<std::int64_t, std::int64_t>;

/// Runs parallel_for over [begin, begin + n), counting visits per index; returns the chunks in
/// order.
std::vector<Chunk> run_and_count(ThreadPool& pool, std::int64_t begin, std::int64_t n,
                                 std::int64_t min_chunk, std::vector<std::atomic<int>>& visits) {
  std::mutex mutex;
  std::vector<Chunk> chunks;
  pool.parallel_for(begin, begin + n, min_chunk, [&](std::int64_t chunk_begin, std::int64_t chunk_end) {
    for (std::int64_t i = chunk_begin; i < chunk_end; ++i) visits[i - begin].fetch_add(1);
    std::lock_guard<std::mutex> lock(mutex);
    chunks.emplace_back(chunk_begin, chunk_end);
  });
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}

}  // namespace

TEST_CASE("parallel_for covers every index once, in deterministic contiguous pieces",
          "[cpu][thread_pool]") {
  for (int threads : {1, 2, 3, 4, 7, 16}) {
    ThreadPool pool(threads);
    REQUIRE(pool.size() == threads);
    for (std::int64_t n : {0, 1, 2, 5, 63, 64, 1000, 4097}) {
      for (std::int64_t min_chunk : {1, 4, 100}) {
        for (std::int64_t begin : {std::int64_t{0}, std::int64_t{-37}, std::int64_t{1} << 40}) {
          CAPTURE(threads, n, min_chunk, begin);
          std::vector<std::atomic<int>> visits(static_cast<std::size_t>(n));
          const std::vector<Chunk> chunks = run_and_count(pool, begin, n, min_chunk, visits);
          CHECK(std::all_of(visits.begin(), visits.end(), [](const std::atomic<int>& v) { return v == 1; }));

          const ChunkPlan plan = plan_chunks(begin, begin + n, min_chunk, threads);
          CHECK(plan.shares == parallel_chunk_count(n, min_chunk, threads));
          CHECK(plan.shares <= threads);
          CHECK(plan.pieces <= jitvec::cpu::kMaxPiecesPerShare);
          if (n == 0) {
            CHECK(chunks.empty());
            continue;
          }
          REQUIRE(static_cast<std::int64_t>(chunks.size()) == plan.total_pieces());
          std::int64_t shortest = n, longest = 0;
          for (std::size_t i = 0; i < chunks.size(); ++i) {
            CHECK(chunks[i].first == plan.bound(static_cast<std::int64_t>(i)));
            CHECK(chunks[i].second == plan.bound(static_cast<std::int64_t>(i) + 1));
            shortest = std::min(shortest, chunks[i].second - chunks[i].first);
            longest = std::max(longest, chunks[i].second - chunks[i].first);
          }
          CHECK(chunks.front().first == begin);
          CHECK(chunks.back().second == begin + n);
          CHECK(longest - shortest <= 1);
          if (chunks.size() > 1) CHECK(shortest >= min_chunk);
          if (n < 2 * min_chunk) CHECK(chunks.size() == 1);

          std::vector<std::atomic<int>> again(static_cast<std::size_t>(n));
          CHECK(run_and_count(pool, begin, n, min_chunk, again) == chunks);
        }
      }
    }
  }
}

TEST_CASE("the plan follows the range, the minimum chunk and the pool size", "[cpu][thread_pool]") {
  CHECK(parallel_chunk_count(0, 1, 4) == 0);
  CHECK(parallel_chunk_count(-5, 1, 4) == 0);
  CHECK(parallel_chunk_count(7, 4, 4) == 1);     // fewer than 2 * min_chunk: inline
  CHECK(parallel_chunk_count(8, 4, 4) == 2);
  CHECK(parallel_chunk_count(1000, 1, 4) == 4);
  CHECK(parallel_chunk_count(1000, 0, 3) == 3);  // a min_chunk below 1 counts as 1
  CHECK(parallel_chunk_count(1000, 1, 1) == 1);
  // Each share is cut into pieces of at least min_chunk, at most kMaxPiecesPerShare of them.
  CHECK(plan_chunks(0, 8, 4, 4).pieces == 1);
  CHECK(plan_chunks(0, 24, 4, 2).pieces == 3);
  CHECK(plan_chunks(0, 1 << 26, 1 << 15, 16).pieces == jitvec::cpu::kMaxPiecesPerShare);
  CHECK(plan_chunks(0, 1 << 26, 1 << 15, 1).pieces == 1);  // inline: one piece
}

TEST_CASE("a grain puts every inner piece boundary on its multiple", "[cpu][thread_pool]") {
  for (std::int64_t n : {std::int64_t{1} << 20, (std::int64_t{1} << 20) + 12345, std::int64_t{3000017}}) {
    for (std::int64_t phase : {0, 1, 4, 1023}) {
      for (int threads : {2, 3, 16}) {
        CAPTURE(n, phase, threads);
        const ChunkGrain grain{1024, phase};
        const ChunkPlan plan = plan_chunks(5, 5 + n, 1 << 12, threads, grain);
        REQUIRE(plan.total_pieces() > 1);
        CHECK(plan.grain.multiple == 1024);
        CHECK(plan.bound(0) == 5);
        CHECK(plan.bound(plan.total_pieces()) == 5 + n);
        for (std::int64_t i = 1; i < plan.total_pieces(); ++i) {
          CHECK((plan.bound(i) + phase) % 1024 == 0);
          CHECK(plan.bound(i) - plan.bound(i - 1) >= 3 * 1024);
        }
      }
    }
  }
  // Pieces shorter than 4 grains ignore it.
  CHECK(plan_chunks(0, 4000, 100, 4, ChunkGrain{1024, 0}).grain.multiple == 1);
}

TEST_CASE("a thread that is held up costs the call one piece, not its share", "[cpu][thread_pool]") {
  // The caller's pieces take 1 ms each; the first piece another thread runs waits until the
  // caller has covered 3/4 of the range, which it can only do by taking that thread's pieces.
  const std::thread::id caller = std::this_thread::get_id();
  ThreadPool pool(2);
  const std::int64_t n = 16 * 1000;
  std::atomic<std::int64_t> by_caller{0};
  std::atomic<bool> held{false};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  pool.parallel_for(0, n, 1000, [&](std::int64_t b, std::int64_t e) {
    if (std::this_thread::get_id() == caller) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      by_caller.fetch_add(e - b);
    } else if (!held.exchange(true)) {
      while (by_caller.load() < n * 3 / 4 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
  });
  CHECK(by_caller.load() >= n * 3 / 4);
  CHECK(std::chrono::steady_clock::now() < deadline);
}

TEST_CASE("small ranges and one-thread pools run inline on the caller", "[cpu][thread_pool]") {
  const std::thread::id caller = std::this_thread::get_id();
  ThreadPool pool(4);
  int calls = 0;
  pool.parallel_for(10, 29, 10, [&](std::int64_t b, std::int64_t e) {
    ++calls;
    CHECK(std::this_thread::get_id() == caller);
    CHECK(b == 10);
    CHECK(e == 29);
  });
  CHECK(calls == 1);

  ThreadPool single(1);
  calls = 0;
  single.parallel_for(0, 1000000, 1, [&](std::int64_t b, std::int64_t e) {
    ++calls;
    CHECK(std::this_thread::get_id() == caller);
    CHECK(e - b == 1000000);
  });
  CHECK(calls == 1);
}

TEST_CASE("parallel_for runs chunks on several threads at once", "[cpu][thread_pool]") {
  ThreadPool pool(4);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> started{0};
  pool.parallel_for(0, 4, 1, [&](std::int64_t, std::int64_t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      threads.insert(std::this_thread::get_id());
    }
    // Hold this chunk until a second chunk has started, which only another thread can do.
    started.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  });
  CHECK(threads.size() >= 2);
}

TEST_CASE("workers still join after calls spaced around their spin time", "[cpu][thread_pool]") {
  // Gaps from 0 to 150 us straddle the 50 us a worker spins before it sleeps: every call must
  // still get a second thread (a lost wake-up would leave the caller alone until the deadline).
  ThreadPool pool(3);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int lonely = 0;
  for (int call = 0; call < 200; ++call) {
    std::this_thread::sleep_for(std::chrono::microseconds((call % 11) * 15));
    std::atomic<int> started{0};
    pool.parallel_for(0, 3, 1, [&](std::int64_t, std::int64_t) {
      started.fetch_add(1);
      while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    });
    if (started.load() < 2) ++lonely;
  }
  CHECK(lonely == 0);
  CHECK(std::chrono::steady_clock::now() < deadline);
}

TEST_CASE("parallel_for rethrows the first exception and stays usable", "[cpu][thread_pool]") {
  ThreadPool pool(3);
  CHECK_THROWS_WITH(pool.parallel_for(0, 3000, 1,
                                      [](std::int64_t b, std::int64_t e) {
                                        if (b <= 1500 && 1500 < e) throw std::runtime_error("bad 1500");
                                      }),
                    "bad 1500");
  // Every chunk throws: exactly one exception comes back.
  CHECK_THROWS_AS(pool.parallel_for(0, 3000, 1,
                                    [](std::int64_t, std::int64_t) { throw std::out_of_range("all"); }),
                  std::out_of_range);
  // Inline ranges throw directly.
  CHECK_THROWS_WITH(pool.parallel_for(0, 1, 1, [](std::int64_t, std::int64_t) {
    throw std::runtime_error("inline");
  }),
                    "inline");

  std::vector<std::atomic<int>> visits(3000);
  run_and_count(pool, 0, 3000, 1, visits);
  CHECK(std::all_of(visits.begin(), visits.end(), [](const std::atomic<int>& v) { return v == 1; }));
}

TEST_CASE("parallel_for is safe from several user threads and from inside a chunk",
          "[cpu][thread_pool]") {
  ThreadPool pool(3);
  SECTION("concurrent callers") {
    std::atomic<int> failures{0};
    std::vector<std::thread> callers;
    for (int caller = 0; caller < 4; ++caller) {
      callers.emplace_back([&, caller] {
        for (int round = 0; round < 50; ++round) {
          const std::int64_t n = 500 + 37 * caller + round;
          std::vector<std::atomic<int>> visits(static_cast<std::size_t>(n));
          run_and_count(pool, 0, n, 8, visits);
          for (const auto& v : visits) {
            if (v != 1) failures.fetch_add(1);
          }
        }
      });
    }
    for (std::thread& caller : callers) caller.join();
    CHECK(failures == 0);
  }
  SECTION("nested on the same pool") {
    std::vector<std::atomic<int>> visits(100 * 50);
    pool.parallel_for(0, 100, 1, [&](std::int64_t rows_begin, std::int64_t rows_end) {
      for (std::int64_t row = rows_begin; row < rows_end; ++row) {
        pool.parallel_for(0, 50, 1, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t column = b; column < e; ++column) visits[row * 50 + column].fetch_add(1);
        });
      }
    });
    CHECK(std::all_of(visits.begin(), visits.end(), [](const std::atomic<int>& v) { return v == 1; }));
  }
}

TEST_CASE("thread pool sizes", "[cpu][thread_pool]") {
  const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  CHECK(ThreadPool(0).size() == hardware);
  CHECK(ThreadPool(5).size() == 5);
  CHECK_THROWS_AS(ThreadPool(-1), jitvec::ArgumentError);
  CHECK(&jitvec::cpu::default_thread_pool(2) == &jitvec::cpu::default_thread_pool(2));
  CHECK(jitvec::cpu::default_thread_pool(2).size() == 2);
  CHECK(&jitvec::cpu::default_thread_pool(0) == &jitvec::cpu::default_thread_pool(hardware));
}
