// Balanced partition of `count` elements into `parts` contiguous blocks: the
// first count % parts blocks hold one element more. Every collective and the
// D-sharding of the matmul use this one rule, so shards always line up.
#pragma once

#include <cstddef>

namespace shardroof::coll {

class BlockPartition {
 public:
  BlockPartition(std::size_t count, int parts)
      : count_(count), parts_(parts > 0 ? static_cast<std::size_t>(parts) : 1),
        base_(count_ / parts_), extra_(count_ % parts_) {}

  std::size_t count() const { return count_; }
  int parts() const { return static_cast<int>(parts_); }
  std::size_t size(int i) const { return base_ + (static_cast<std::size_t>(i) < extra_ ? 1 : 0); }
  std::size_t offset(int i) const {
    const auto k = static_cast<std::size_t>(i);
    return k * base_ + (k < extra_ ? k : extra_);
  }
  std::size_t max_size() const { return base_ + (extra_ ? 1 : 0); }
  // The block that holds element `index` (< count()).
  int owner(std::size_t index) const {
    const std::size_t long_part = extra_ * (base_ + 1);
    if (index < long_part) return static_cast<int>(index / (base_ + 1));
    return static_cast<int>(extra_ + (index - long_part) / base_);
  }

 private:
  std::size_t count_;
  std::size_t parts_;
  std::size_t base_;
  std::size_t extra_;
};

}  // namespace shardroof::coll
