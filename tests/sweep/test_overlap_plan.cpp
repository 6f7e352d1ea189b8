// Unit tests of sweep --overlap's parts that need no MPI: the chunk plan,
// played through a model of the collectives, must leave every rank the part
// of Z the unchunked step leaves it; the CPU backend's chunked GEMM must
// equal the whole GEMM block by block; the communication thread; the
// efficiency and how the reports show an undefined one.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "collectives/blocks.h"
#include "cpu/cpu_backend.h"
#include "report/sweep_report.h"
#include "sweep/analysis.h"
#include "sweep/operands.h"
#include "sweep/overlap.h"
#include "util/error.h"

namespace shardroof::sweep {
namespace {

using coll::CollectiveKind;

// Runs the chunk plans of all `ranks` ranks through a model of the step:
// each block writes the flat index of each element of Z it computes into
// the partial-sum buffer, then each chunk's collective moves its part of the
// buffer to each rank's Z (AllReduce: the whole range; ReduceScatter: block
// r of the chunk's BlockPartition to rank r). Expects every rank's Z to hold
// exactly the elements the unchunked step leaves it, each written once.
void expect_plan_matches_unchunked_layout(std::size_t B, std::size_t F, int ranks, CollectiveKind kind, int K,
                                          double growth = 1.0) {
  const std::string what = ::testing::PrintToString(std::vector<std::size_t>{B, F, static_cast<std::size_t>(ranks),
                                                                             static_cast<std::size_t>(K)}) +
                           (kind == CollectiveKind::AllReduce ? " all_reduce" : " reduce_scatter") + " growth " +
                           std::to_string(growth);
  const std::size_t BF = B * F;
  std::vector<std::vector<Chunk>> plans;
  for (int r = 0; r < ranks; ++r) plans.push_back(plan_chunks(B, F, ranks, r, kind, K, growth));
  const std::vector<Chunk>& chunks = plans[0];
  ASSERT_EQ(chunks.size(), static_cast<std::size_t>(K)) << what;

  // The GEMM side is the same on every rank; chunks are consecutive ranges
  // of the partial-sum buffer and their blocks stay inside them.
  std::vector<long long> partial(BF, -1);
  std::size_t next = 0;
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const Chunk& c = chunks[k];
    EXPECT_GT(c.count, 0u) << what << " chunk " << k;
    EXPECT_EQ(c.send, next) << what << " chunk " << k;
    next = c.send + c.count;
    for (int r = 1; r < ranks; ++r) {
      ASSERT_EQ(plans[r][k].send, c.send) << what;
      ASSERT_EQ(plans[r][k].count, c.count) << what;
      ASSERT_EQ(plans[r][k].blocks.size(), c.blocks.size()) << what;
    }
    for (const ChunkBlock& b : c.blocks) {
      ASSERT_LE(b.row + b.rows, B) << what;
      ASSERT_LE(b.col + b.cols, F) << what;
      ASSERT_GE(b.dst, c.send) << what;
      ASSERT_LE(b.dst + b.rows * b.cols, c.send + c.count) << what;
      for (std::size_t i = 0; i < b.rows; ++i)
        for (std::size_t j = 0; j < b.cols; ++j) {
          long long& slot = partial[b.dst + i * b.cols + j];
          EXPECT_EQ(slot, -1) << what << ": a buffer element written twice";
          slot = static_cast<long long>((b.row + i) * F + b.col + j);
        }
    }
  }
  EXPECT_EQ(next, BF) << what;
  std::vector<int> computed(BF, 0);
  for (const long long v : partial) {
    ASSERT_GE(v, 0) << what << ": a buffer element no block writes";
    ++computed[static_cast<std::size_t>(v)];
  }
  for (std::size_t i = 0; i < BF; ++i) EXPECT_EQ(computed[i], 1) << what << ": element " << i << " of Z";

  const coll::BlockPartition zpart(BF, ranks);
  const bool scatter = kind == CollectiveKind::ReduceScatter;
  for (int r = 0; r < ranks; ++r) {
    const std::size_t first = scatter ? zpart.offset(r) : 0;
    const std::size_t count = scatter ? zpart.size(r) : BF;
    std::vector<long long> z(count, -1);
    for (const Chunk& c : plans[r]) {
      const coll::BlockPartition part(c.count, ranks);
      const std::size_t from = scatter ? c.send + part.offset(r) : c.send;
      const std::size_t n = scatter ? part.size(r) : c.count;
      ASSERT_LE(c.recv + n, count) << what << " rank " << r;
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(z[c.recv + i], -1) << what << " rank " << r << ": Z element received twice";
        z[c.recv + i] = partial[from + i];
      }
    }
    for (std::size_t i = 0; i < count; ++i)
      EXPECT_EQ(z[i], static_cast<long long>(first + i)) << what << " rank " << r << " Z element " << i;
  }
}

TEST(ChunkPlan, EveryRankEndsWithTheUnchunkedLayout) {
  const std::vector<std::pair<std::size_t, std::size_t>> shapes = {{1, 1},  {1, 7}, {3, 5},  {7, 3},
                                                                   {8, 8},  {13, 6}, {5, 1}, {16, 12}};
  for (const auto kind : {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter}) {
    for (int ranks = 1; ranks <= 5; ++ranks) {
      for (const auto& [B, F] : shapes) {
        const auto most = static_cast<int>(std::min<std::size_t>(max_chunks(B, F, ranks, kind), 40));
        for (int K = 1; K <= most; ++K)
          for (const double growth : {1.0, 2.0, 0.5, 3.7})
            expect_plan_matches_unchunked_layout(B, F, ranks, kind, K, growth);
      }
    }
  }
}

TEST(ChunkPlan, GradedChunksGrowByTheRatio) {
  // 1024 rows in 4 chunks growing by 2: 1024 * (1, 2, 4, 8) / 15.
  EXPECT_EQ(chunk_sizes(1024, 4, 2.0), (std::vector<std::size_t>{68, 137, 273, 546}));
  // Shrinking by 2: the mirror.
  EXPECT_EQ(chunk_sizes(1024, 4, 0.5), (std::vector<std::size_t>{546, 273, 137, 68}));
  // Balanced at 1, as BlockPartition: the first ones larger.
  EXPECT_EQ(chunk_sizes(10, 4, 1.0), (std::vector<std::size_t>{3, 3, 2, 2}));
  // A steep ratio keeps every chunk at least 1 and the sum exact.
  const auto steep = chunk_sizes(20, 8, 16.0);
  EXPECT_EQ(steep.front(), 1u);
  std::size_t sum = 0;
  for (const auto n : steep) {
    EXPECT_GE(n, 1u);
    sum += n;
  }
  EXPECT_EQ(sum, 20u);
}

TEST(ChunkPlan, OneChunkIsTheUnchunkedStep) {
  for (const auto kind : {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter}) {
    const auto chunks = plan_chunks(7, 5, 3, 1, kind, 1);
    ASSERT_EQ(chunks.size(), 1u);
    ASSERT_EQ(chunks[0].blocks.size(), 1u);
    const ChunkBlock& b = chunks[0].blocks[0];
    EXPECT_EQ(b.row, 0u);
    EXPECT_EQ(b.rows, 7u);
    EXPECT_EQ(b.col, 0u);
    EXPECT_EQ(b.cols, 5u);
    EXPECT_EQ(b.dst, 0u);
    EXPECT_EQ(chunks[0].count, 35u);
    EXPECT_EQ(chunks[0].recv, 0u);
  }
}

TEST(ChunkPlan, AllReduceChunksAreBalancedBlocksOfRows) {
  const auto chunks = plan_chunks(7, 4, 2, 0, CollectiveKind::AllReduce, 3);  // rows 3, 2, 2
  ASSERT_EQ(chunks.size(), 3u);
  const std::size_t rows[] = {3, 2, 2}, first[] = {0, 3, 5};
  for (std::size_t k = 0; k < 3; ++k) {
    ASSERT_EQ(chunks[k].blocks.size(), 1u);
    EXPECT_EQ(chunks[k].blocks[0].row, first[k]);
    EXPECT_EQ(chunks[k].blocks[0].rows, rows[k]);
    EXPECT_EQ(chunks[k].send, first[k] * 4);
    EXPECT_EQ(chunks[k].recv, first[k] * 4);
    EXPECT_EQ(chunks[k].count, rows[k] * 4);
  }
}

TEST(ChunkPlan, LimitsOnK) {
  EXPECT_EQ(max_chunks(7, 5, 3, CollectiveKind::AllReduce), 7u);
  EXPECT_EQ(max_chunks(2, 3, 2, CollectiveKind::ReduceScatter), 3u);  // blocks of 3
  EXPECT_EQ(max_chunks(2, 3, 4, CollectiveKind::ReduceScatter), 1u);  // blocks of 2, 2, 1, 1
  EXPECT_EQ(max_chunks(1, 1, 4, CollectiveKind::ReduceScatter), 1u);  // ranks without a block
  EXPECT_NO_THROW(validate_chunks(1, 1, 4, CollectiveKind::ReduceScatter, 1));
  EXPECT_NO_THROW(validate_chunks(7, 5, 3, CollectiveKind::AllReduce, 7));
  EXPECT_THROW(validate_chunks(7, 5, 3, CollectiveKind::AllReduce, 8), UsageError);
  EXPECT_THROW(validate_chunks(7, 5, 3, CollectiveKind::AllReduce, 0), UsageError);
  EXPECT_THROW(validate_chunks(7, 5, 3, CollectiveKind::AllReduce, -2), UsageError);
  EXPECT_THROW(validate_chunks(2, 3, 2, CollectiveKind::ReduceScatter, 4), UsageError);
  try {
    validate_chunks(2, 3, 2, CollectiveKind::ReduceScatter, 4);
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--overlap 4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at most 3 chunks"), std::string::npos) << e.what();
  }
}

TEST(ChunkPlan, ThreadSupportNeedsSerialized) {
  EXPECT_NO_THROW(require_thread_support(MPI_THREAD_SERIALIZED));
  EXPECT_NO_THROW(require_thread_support(MPI_THREAD_MULTIPLE));
  EXPECT_THROW(require_thread_support(MPI_THREAD_SINGLE), UsageError);
  try {
    require_thread_support(MPI_THREAD_FUNNELED);
    ADD_FAILURE() << "MPI_THREAD_FUNNELED accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("provides MPI_THREAD_FUNNELED"), std::string::npos) << e.what();
  }
}

// The chunked GEMM's blocks against the whole GEMM: with the k/64 operands
// every product and partial sum is exact here, so both must agree exactly.
TEST(CpuChunkedGemm, BlocksEqualTheWholeProduct) {
  auto backend = make_cpu_backend(1);
  const std::size_t B = 7, F = 9;
  for (const auto type : {coll::DataType::Float, coll::DataType::Double, coll::DataType::BFloat16}) {
    const std::size_t es = coll::size_of(type);
    for (const std::size_t k : {0ul, 5ul, 33ul}) {
      std::vector<std::byte> x(B * k * es + 1), y(k * F * es + 1), whole(B * F * es + 1), packed(B * F * es + 1);
      fill_x_shard(x.data(), type, 7, B, {0, k});
      fill_y_shard(y.data(), type, 7, F, {0, k});
      backend->gemm(B, F, k, x.data(), y.data(), whole.data(), type);
      // Pieces that start and end mid-row: ReduceScatter on 3 ranks in 4 chunks.
      const auto chunks = plan_chunks(B, F, 3, 0, CollectiveKind::ReduceScatter, 4);
      std::vector<std::vector<ComputeBackend::GemmBlock>> blocks;
      for (const Chunk& c : chunks) {
        auto& mine = blocks.emplace_back();
        for (const ChunkBlock& b : c.blocks) mine.push_back({b.row, b.rows, b.col, b.cols, packed.data() + b.dst * es});
      }
      std::fill(packed.begin(), packed.end(), std::byte{0xFF});  // NaN: every element must be written
      auto gemm = backend->prepare_gemm_chunks(B, F, k, x.data(), y.data(), std::move(blocks), type);
      gemm->begin();
      for (std::size_t c = 0; c < chunks.size(); ++c) {
        gemm->run(c);
        gemm->wait_for(c);
      }
      std::size_t wrong = 0;
      for (const Chunk& c : chunks)
        for (const ChunkBlock& b : c.blocks)
          for (std::size_t i = 0; i < b.rows; ++i)
            for (std::size_t j = 0; j < b.cols; ++j)
              if (element_value(packed.data(), type, b.dst + i * b.cols + j) !=
                  element_value(whole.data(), type, (b.row + i) * F + b.col + j))
                ++wrong;
      EXPECT_EQ(wrong, 0u) << coll::to_string(type) << " k = " << k;
    }
  }
}

TEST(ChunkWorker, ReducesChunksInOrderOnItsOwnThreadStepAfterStep) {
  std::thread::id worker_id;
  std::vector<std::size_t> seen;
  ChunkWorker worker([&] { worker_id = std::this_thread::get_id(); }, [&](std::size_t k) { seen.push_back(k); });
  for (int step = 0; step < 3; ++step) {
    seen.clear();
    for (std::size_t k = 0; k < 5; ++k) worker.submit(k);
    worker.wait();
    EXPECT_EQ(seen, (std::vector<std::size_t>{0, 1, 2, 3, 4})) << "step " << step;
  }
  EXPECT_NE(worker_id, std::this_thread::get_id());
  EXPECT_THROW(worker.submit(3), std::logic_error);  // a step starts at chunk 0
}

TEST(ChunkWorker, AnErrorOfTheThreadReachesWait) {
  std::vector<std::size_t> seen;
  ChunkWorker worker({}, [&](std::size_t k) {
    if (k == 1) throw RuntimeError("chunk 1 failed");
    seen.push_back(k);
  });
  for (std::size_t k = 0; k < 3; ++k) worker.submit(k);
  EXPECT_THROW(worker.wait(), RuntimeError);
  EXPECT_EQ(seen, std::vector<std::size_t>{0});  // nothing after the failure
  worker.submit(0);
  EXPECT_THROW(worker.wait(), RuntimeError);
  EXPECT_EQ(seen, std::vector<std::size_t>{0});
}

TEST(ChunkWorker, AnErrorEnteringTheThreadReachesWait) {
  int reduced = 0;
  ChunkWorker worker([] { throw RuntimeError("no device"); }, [&](std::size_t) { ++reduced; });
  worker.submit(0);
  EXPECT_THROW(worker.wait(), RuntimeError);
  EXPECT_EQ(reduced, 0);
}

PointRecord timed_point(double math, double comm, double step, std::optional<double> overlap) {
  PointRecord p;
  p.D = 64;
  p.t_math = summarize({math});
  p.t_comm = summarize({comm});
  p.t_step = summarize({step});
  if (overlap) p.t_overlap = summarize({*overlap});
  return p;
}

TEST(OverlapEfficiency, FormulaAndWhereItIsUndefined) {
  EXPECT_DOUBLE_EQ(*overlap_efficiency(timed_point(2, 1, 3, 2.5)).value, 0.5);
  EXPECT_DOUBLE_EQ(*overlap_efficiency(timed_point(2, 1, 3, 2)).value, 1.0);
  EXPECT_DOUBLE_EQ(*overlap_efficiency(timed_point(1, 2, 3, 3.5)).value, -0.5);  // chunking cost more
  const auto none = overlap_efficiency(timed_point(2, 1, 3, std::nullopt));
  EXPECT_FALSE(none.value);
  EXPECT_FALSE(none.undefined.empty());
  // T_step at (or under) the larger part: nothing to hide.
  for (const double step : {2.0, 1.9, 2.0 * (1 + kMinHideableFraction / 2)}) {
    const auto e = overlap_efficiency(timed_point(2, 1, step, 1.5));
    EXPECT_FALSE(e.value) << step;
    EXPECT_NE(e.undefined.find("below"), std::string::npos) << e.undefined;
  }
  const auto spread = overlap_efficiency_spread(
      {timed_point(2, 1, 3, 2.5), timed_point(2, 1, 2, 2), timed_point(2, 1, 3, 2), timed_point(2, 1, 3, 3)});
  ASSERT_TRUE(spread.has_value());
  EXPECT_EQ(spread->points, 3);
  EXPECT_DOUBLE_EQ(spread->median, 0.5);
  EXPECT_DOUBLE_EQ(spread->min, 0.0);
  EXPECT_DOUBLE_EQ(spread->max, 1.0);
  EXPECT_FALSE(overlap_efficiency_spread({timed_point(2, 1, 2, 2)}).has_value());
}

TEST(OverlapReport, UndefinedEfficiencyIsNullWithAReasonAndAnEmptyCsvField) {
  SweepPlan plan;
  plan.overlap.chunks = {4};
  const model::Ceilings ceilings;
  const std::vector<PointRecord> points = {timed_point(2, 1, 3, 2.5), timed_point(2, 1, 2, 2)};
  SweepAnalysis analysis;
  for (const auto& p : points) analysis.points.push_back(derive_point(plan, analysis.shape, ceilings, p));
  const auto defined = point_json(points[0], analysis.points[0]);
  EXPECT_DOUBLE_EQ(defined.at("overlap_efficiency").get<double>(), 0.5);
  EXPECT_FALSE(defined.contains("overlap_efficiency_undefined"));
  EXPECT_DOUBLE_EQ(defined.at("t_overlap_s").at("median").get<double>(), 2.5);
  const auto undefined = point_json(points[1], analysis.points[1]);
  EXPECT_TRUE(undefined.at("overlap_efficiency").is_null());
  EXPECT_FALSE(undefined.at("overlap_efficiency_undefined").get<std::string>().empty());

  const std::string csv = sweep_csv(points, analysis, plan);
  const auto lines = [&] {
    std::vector<std::string> out;
    std::size_t at = 0;
    for (std::size_t nl; (nl = csv.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(csv.substr(at, nl - at));
    return out;
  }();
  ASSERT_EQ(lines.size(), 3u);
  const auto fields = [](const std::string& line) { return std::count(line.begin(), line.end(), ',') + 1; };
  EXPECT_EQ(fields(lines[0]), fields(lines[1]));
  EXPECT_EQ(fields(lines[0]), fields(lines[2]));
  EXPECT_NE(lines[0].find("t_overlap_median_s"), std::string::npos);
  EXPECT_NE(lines[1].find(",0.5,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find(",,"), std::string::npos) << lines[2];

  // Without --overlap the columns are absent.
  plan.overlap = {};
  const std::vector<PointRecord> plain = {timed_point(2, 1, 3, std::nullopt)};
  SweepAnalysis plain_analysis;
  plain_analysis.points = {derive_point(plan, plain_analysis.shape, ceilings, plain[0])};
  EXPECT_EQ(sweep_csv(plain, plain_analysis, plan).find("overlap"), std::string::npos);
  EXPECT_FALSE(point_json(plain[0], plain_analysis.points[0]).contains("t_overlap_s"));
}

}  // namespace
}  // namespace shardroof::sweep
