#include "measure/coll_rounds.h"

#include <algorithm>
#include <thread>

#include "measure/coll_runner.h"
#include "util/mpi_session.h"
#include "util/interrupt.h"

namespace shardroof {
namespace {

// Sleeps until `due_s` on the run's clock (`now_s` now), in short slices so
// that an interrupt is seen within one.
void idle_until(double due_s, double now_s) {
  using seconds = std::chrono::duration<double>;
  const auto until = std::chrono::steady_clock::now() + seconds(due_s - now_s);
  for (auto now = std::chrono::steady_clock::now(); !interrupt_requested() && now < until;
       now = std::chrono::steady_clock::now())
    std::this_thread::sleep_for(std::min(seconds(until - now), seconds(0.05)));
}

}  // namespace

CollRoundClock::CollRoundClock(MPI_Comm comm, int min_rounds, double min_span_s)
    : comm_(comm),
      min_rounds_(min_rounds),
      min_span_s_(min_span_s),
      pace_s_(min_span_s / std::max(kRoundsPerSpan, min_rounds)),
      origin_(std::chrono::steady_clock::now()) {}

double CollRoundClock::elapsed_s() const {
  return max_over_ranks(comm_, std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count());
}

void CollRoundClock::start() {
  start_s_ = elapsed_s();
  last_round_s_ = 0;
  done_ = 0;
}

bool CollRoundClock::begin(int round) {
  // Every rank idles as long: they agree on the clock (elapsed_s).
  if (round > 0 && pace_s_ > 0) idle_until(start_s_ + round * pace_s_, elapsed_s());
  round_start_s_ = elapsed_s();
  return round + 1 >= min_rounds_ && round_start_s_ - start_s_ + last_round_s_ >= min_span_s_;
}

void CollRoundClock::end(int round) {
  last_round_s_ = elapsed_s() - round_start_s_;
  done_ = round + 1;
}

void CollSizeRows::add(std::size_t i, std::vector<CollRecord> rows) {
  if (rows_[i].empty()) {
    rows_[i] = std::move(rows);
    return;
  }
  for (std::size_t j = 0; j < rows.size() && j < rows_[i].size(); ++j) append_coll_round(rows_[i][j], rows[j]);
}

std::vector<CollRecord> CollSizeRows::take(std::size_t i) {
  if (taken_[i] || rows_[i].empty()) return {};
  taken_[i] = true;
  std::vector<CollRecord> out = std::move(rows_[i]);
  rows_[i].clear();
  for (auto& r : out) summarize_coll_record(r, ranks_);
  return out;
}

std::vector<CollRecord> CollSizeRows::pending() const {
  std::vector<CollRecord> out;
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (!taken_[i])
      for (CollRecord r : rows_[i]) {
        summarize_coll_record(r, ranks_);
        out.push_back(std::move(r));
      }
  return out;
}

}  // namespace shardroof
