// The inner loop of a two-stage bootstrap of a median (measurements drawn
// again with replacement, then the samples within each drawn measurement):
// a replicate's median depends only on how often it drew each sample, so
// draws are counted by the sample's rank among all of them and the counts
// are walked to the middle: no copy of the drawn values and no selection per
// replicate. Indices come from our own generator's 64-bit output (two per
// draw, multiply and shift), so every standard library and rank gives the
// same sequence for a seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardroof::stability {

// Uniform indices below n (n < 2^32), two from each 64-bit draw of
// xoshiro256++ (Blackman and Vigna, "Scrambled linear pseudorandom number
// generators", 2021), seeded through splitmix64: a few instructions per
// draw, where std::mt19937_64 took as long as the rest of the bootstrap.
class IndexDraw {
 public:
  explicit IndexDraw(std::uint64_t seed) {
    for (std::uint64_t& word : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }
  std::size_t below(std::size_t n) {
    if (!have_) {
      word_ = next();
      have_ = true;
    } else {
      word_ >>= 32;
      have_ = false;
    }
    return static_cast<std::size_t>(((word_ & 0xffffffffULL) * static_cast<std::uint64_t>(n)) >> 32);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  std::uint64_t s_[4];
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
