// The inner loop of a two-stage bootstrap of a median (measurements drawn
// again with replacement, then the samples within each drawn measurement):
// a replicate's median depends only on how often it drew each sample, so
// draws are counted by the sample's rank among all of them and the counts
// are walked to the middle: no copy of the drawn values and no selection per
// replicate. Indices come from the generator's raw 64-bit output (two per
// draw, multiply and shift), so every standard library and rank gives the
// same sequence for a seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace shardroof::stability {

// Uniform indices below n (n < 2^32), two from each draw of the generator.
class IndexDraw {
 public:
  explicit IndexDraw(std::uint64_t seed) : gen_(seed) {}
  std::size_t below(std::size_t n) {
    if (!have_) {
      word_ = gen_();
      have_ = true;
    } else {
      word_ >>= 32;
      have_ = false;
    }
    return static_cast<std::size_t>(((word_ & 0xffffffffULL) * static_cast<std::uint64_t>(n)) >> 32);
  }

 private:
  std::mt19937_64 gen_;
  std::uint64_t word_ = 0;
  bool have_ = false;
};

// Measurements: each a run of consecutive values of one vector.
struct SampleWindow {
  const std::vector<double>* values = nullptr;
  std::size_t first = 0, size = 0;
};

class MedianResampler {
 public:
  // Empty windows are left out; no window at all gives median 0.
  explicit MedianResampler(const std::vector<SampleWindow>& windows);
  // One replicate: as many measurements as there are, drawn with
  // replacement, each with its own number of samples drawn again; their
  // median (the mean of the middle two for an even count).
  double draw(IndexDraw& pick);
  bool empty() const { return sorted_.empty(); }

 private:
  std::vector<std::pair<std::size_t, std::size_t>> windows_;  // [first, size) in rank_
  std::vector<std::uint32_t> rank_;                           // each sample's rank, by window
  std::vector<double> sorted_;                                // the values by rank
  std::vector<std::uint32_t> drawn_;                          // draws of each rank in a replicate
};

}  // namespace shardroof::stability
