#include "sweep/check.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sweep/operands.h"

namespace shardroof::sweep {

double product_tolerance(coll::DataType type, std::size_t k, int ranks) {
  // Rounding errors of a k-term sum grow like sqrt(k) in practice (k in the
  // worst case); 4*sqrt(k) keeps a wide margin while a wrong shard or a
  // wrong reduction, which moves a row by O(its magnitude), stays visible.
  // With the k/64 operands most sums are exact anyway.
  const double steps = 4 * std::sqrt(static_cast<double>(k)) + ranks + 2;
  switch (type) {
    case coll::DataType::Double: return std::ldexp(1.0, -52) * steps;
    case coll::DataType::Float: return std::ldexp(1.0, -23) * steps;
    // Products accumulate in float; the partial sum and every reduction
    // step round to bfloat16 once.
    case coll::DataType::BFloat16: return std::ldexp(1.0, -23) * steps + std::ldexp(1.0, -7) * (ranks + 2);
    case coll::DataType::Half: return std::ldexp(1.0, -23) * steps + std::ldexp(1.0, -10) * (ranks + 2);
    case coll::DataType::Int32: return 0;
  }
  return 0;
}

LocalCheck check_gathered_weight(const void* w, coll::DataType type, std::uint64_t seed, std::size_t D,
                                 std::size_t F) {
  LocalCheck out;
  out.method = "exact";
  for (std::size_t i = 0; i < D * F; ++i) {
    const double want = operand_value(seed, Operand::Y, i / F, i % F);
    const double got = element_value(w, type, i);
    ++out.tested;
    if (got != want) {
      ++out.wrong;
      out.worst_ratio = INFINITY;
    }
  }
  return out;
}

namespace {

// (Y v)[d] and (|Y| |v|)[d] for the columns f in [f0, f1).
void probe_y(std::uint64_t seed, std::size_t D, std::size_t f0, std::size_t f1, const std::vector<double>& v,
             std::vector<double>& w, std::vector<double>& wabs) {
  w.assign(D, 0.0);
  wabs.assign(D, 0.0);
  for (std::size_t d = 0; d < D; ++d) {
    double s = 0, a = 0;
    for (std::size_t f = f0; f < f1; ++f) {
      const double y = operand_value(seed, Operand::Y, d, f);
      s += y * v[f];
      a += std::fabs(y);  // |v| = 1
    }
    w[d] = s;
    wabs[d] = a;
  }
}

}  // namespace

LocalCheck check_product_block(const void* z, coll::DataType type, std::uint64_t seed, std::size_t B,
                               std::size_t D, std::size_t F, std::size_t first, std::size_t count,
                               int ranks) {
  return check_product_block(z, type, seed, seed, B, D, F, first, count, ranks);
}

LocalCheck check_product_block(const void* z, coll::DataType type, std::uint64_t x_seed, std::uint64_t y_seed,
                               std::size_t B, std::size_t D, std::size_t F, std::size_t first, std::size_t count,
                               int ranks) {
  LocalCheck out;
  const std::size_t k = (D + static_cast<std::size_t>(ranks) - 1) / static_cast<std::size_t>(ranks);
  const double tol = product_tolerance(type, k, ranks);
  const auto note = [&](double err, double bound) {
    // A bound of zero (D = 0) leaves no room for any error.
    const double allowed = tol * bound;
    const double ratio = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0);
    out.worst_ratio = std::max(out.worst_ratio, ratio);
    ++out.tested;
    if (!(ratio < 1.0)) ++out.wrong;
  };
  if (count == 0 || F == 0) {
    out.method = "none";
    return out;
  }
  const double macs = static_cast<double>(B) * static_cast<double>(D) * static_cast<double>(F);
  if (macs <= kFullReferenceMacs) {
    out.method = "full";
    std::vector<double> y(D * F);
    for (std::size_t d = 0; d < D; ++d)
      for (std::size_t f = 0; f < F; ++f) y[d * F + f] = operand_value(y_seed, Operand::Y, d, f);
    std::vector<double> x(D);
    std::size_t cached_row = static_cast<std::size_t>(-1);
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t b = (first + i) / F, f = (first + i) % F;
      if (b != cached_row) {
        for (std::size_t d = 0; d < D; ++d) x[d] = operand_value(x_seed, Operand::X, b, d);
        cached_row = b;
      }
      double ref = 0, bound = 0;
      for (std::size_t d = 0; d < D; ++d) {
        ref += x[d] * y[d * F + f];
        bound += std::fabs(x[d] * y[d * F + f]);
      }
      note(std::fabs(element_value(z, type, i) - ref), bound);
    }
    return out;
  }

  out.method = "freivalds";
  std::vector<double> v(F);
  for (std::size_t f = 0; f < F; ++f) v[f] = operand_value(x_seed, Operand::Probe, 0, f) > 0 ? 1.0 : -1.0;
  std::vector<double> w_full, wabs_full, w_part, wabs_part;
  bool have_full = false;
  const std::size_t last = first + count;
  for (std::size_t b = first / F; b * F < last; ++b) {
    const std::size_t f0 = std::max(first, b * F) - b * F;
    const std::size_t f1 = std::min(last, (b + 1) * F) - b * F;
    const std::vector<double>* w = &w_full;
    const std::vector<double>* wabs = &wabs_full;
    if (f0 == 0 && f1 == F) {
      if (!have_full) probe_y(y_seed, D, 0, F, v, w_full, wabs_full);
      have_full = true;
    } else {
      probe_y(y_seed, D, f0, f1, v, w_part, wabs_part);
      w = &w_part;
      wabs = &wabs_part;
    }
    double lhs = 0;
    for (std::size_t f = f0; f < f1; ++f) lhs += element_value(z, type, b * F + f - first) * v[f];
    double rhs = 0, bound = 0;
    for (std::size_t d = 0; d < D; ++d) {
      const double x = operand_value(x_seed, Operand::X, b, d);
      rhs += x * (*w)[d];
      bound += std::fabs(x) * (*wabs)[d];
    }
    note(std::fabs(lhs - rhs), bound);
  }
  return out;
}

}  // namespace shardroof::sweep
