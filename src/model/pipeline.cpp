#include "model/pipeline.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace shardroof::model {
namespace {

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

// `total` spread over the chunks in proportion to their elements (the
// unchunked step's time, cut as the chunks cut the rows).
std::vector<double> shares(double total, const std::vector<double>& elements) {
  const double all = sum(elements);
  std::vector<double> out(elements.size(), 0.0);
  for (std::size_t k = 0; k < elements.size(); ++k)
    out[k] = all > 0 ? total * elements[k] / all : total / static_cast<double>(elements.size());
  return out;
}

}  // namespace

double pipeline_time(const std::vector<double>& gemm, const std::vector<double>& comm) {
  if (gemm.size() != comm.size()) throw std::invalid_argument("pipeline_time: as many GEMMs as collectives");
  double gemm_end = 0, comm_end = 0;
  for (std::size_t k = 0; k < gemm.size(); ++k) {
    gemm_end += gemm[k];
    comm_end = std::max(gemm_end, comm_end) + comm[k];
  }
  return comm_end;
}

Interference interference_from(double t_math, double t_comm, double gemm_beside, double comm_beside) {
  Interference s;
  if (!(t_math > 0 && t_comm > 0 && gemm_beside > 0 && comm_beside > 0)) return s;
  // The longer one can lose at most the whole window the shorter one ran
  // in (the other taking its core throughout): extra time beyond that is
  // not interference (waking the thread, the state of the machine).
  if (t_math <= t_comm) {
    s.gemm = gemm_beside / t_math;
    s.comm = 1 + std::min(comm_beside - t_comm, gemm_beside) / gemm_beside;
  } else {
    s.comm = comm_beside / t_comm;
    s.gemm = 1 + std::min(gemm_beside - t_math, comm_beside) / comm_beside;
  }
  s.gemm = std::max(s.gemm, 1.0);
  s.comm = std::max(s.comm, 1.0);
  return s;
}

Interference cpu_interference(const CpuShare& cpu) {
  Interference s;
  const double used = std::min(cpu.gemm_threads, cpu.cores_per_rank);
  if (!(used > 0) || !(cpu.transport_cores > 0)) return s;
  const double spare = std::max(0.0, cpu.cores_per_rank - cpu.gemm_threads);
  const double lost = std::clamp(cpu.transport_cores - spare, 0.0, used / 2);
  s.gemm = used / (used - lost);
  s.comm = s.gemm;
  return s;
}

double pipeline_time(const std::vector<double>& gemm, const std::vector<double>& comm, const Interference& s) {
  if (gemm.size() != comm.size()) throw std::invalid_argument("pipeline_time: as many GEMMs as collectives");
  std::vector<double> g = gemm, c = comm;
  for (std::size_t k = 1; k < g.size(); ++k) g[k] += (s.gemm - 1) * std::min(gemm[k], comm[k - 1]);
  for (std::size_t k = 0; k + 1 < c.size(); ++k) c[k] += (s.comm - 1) * std::min(comm[k], gemm[k + 1]);
  return pipeline_time(g, c);
}

Interference cpu_interference_beside(CpuShare cpu, double alone, double busy) {
  if (busy > alone && alone >= 0) cpu.transport_cores *= alone / busy;
  return cpu_interference(cpu);
}

double pipeline_time_beside(const std::vector<double>& gemm, const std::vector<double>& comm_alone,
                            const std::vector<double>& comm_busy, const std::vector<double>& gemm_slowdown) {
  if (gemm.size() != comm_alone.size() || gemm.size() != comm_busy.size() || gemm.size() != gemm_slowdown.size())
    throw std::invalid_argument(
        "pipeline_time_beside: as many GEMMs as collectives, alone and beside busy cores, and slowdowns");
  std::vector<double> g = gemm;
  for (std::size_t k = 1; k < g.size(); ++k)
    g[k] += (gemm_slowdown[k - 1] - 1) * std::min(gemm[k], std::max(comm_busy[k - 1], comm_alone[k - 1]));
  const double gemms_end = sum(g);
  double gemm_end = 0, comm_end = 0;
  for (std::size_t k = 0; k < g.size(); ++k) {
    gemm_end += g[k];
    const double start = std::max(gemm_end, comm_end);
    const double alone = comm_alone[k];
    const double busy = std::max(comm_busy[k], alone);
    const double window = std::max(0.0, gemms_end - start);
    comm_end = start + (busy <= window ? busy : window + (1 - window / busy) * alone);
  }
  return comm_end;
}

double busy_slowdown(const std::vector<double>& comm_alone, const std::vector<double>& comm_busy) {
  if (comm_alone.size() != comm_busy.size()) throw std::invalid_argument("busy_slowdown: one time of each per chunk");
  double alone = 0, busy = 0;
  for (std::size_t k = 0; k < comm_alone.size(); ++k) {
    alone += comm_alone[k];
    busy += std::max(comm_busy[k], comm_alone[k]);
  }
  return alone > 0 ? busy / alone : 1.0;
}

double collective_latency(const Shape& shape, const Ceilings& c) {
  if (shape.ranks <= 1) return 0;
  const double steps = shape.collective == Collective::AllReduce ? 2.0 * (shape.ranks - 1) : shape.ranks - 1.0;
  return steps * c.latency_s;
}

double chunk_comm_time(const Shape& shape, const Ceilings& c, double elements) {
  // t_comm reads the partial sum as B*F elements: a chunk is `elements` of them.
  Shape chunk = shape;
  chunk.B = elements;
  chunk.F = 1;
  return t_comm(chunk, c);
}

PipelinePrediction predict_pipeline(const PipelineInputs& in) {
  const std::size_t K = in.gemm.size();
  if (in.comm.size() != K || in.elements.size() != K)
    throw std::invalid_argument("predict_pipeline: one GEMM, collective and size per chunk");
  PipelinePrediction p;
  p.chunks = static_cast<int>(K);
  p.t_no_overlap = in.t_math + in.t_comm;
  p.t_perfect = std::max(in.t_math, in.t_comm);
  const std::vector<double> gemm_even = shares(in.t_math, in.elements);
  const std::vector<double> comm_even = shares(in.t_comm, in.elements);
  p.t_ideal = pipeline_time(gemm_even, comm_even);
  // One effect at a time, in this order; each part is what it adds.
  const double thinner = pipeline_time(in.gemm, comm_even);
  std::vector<double> comm_latency = comm_even;
  const double all = sum(in.elements);
  for (std::size_t k = 0; k < K; ++k)
    comm_latency[k] += in.latency_s * (1 - (all > 0 ? in.elements[k] / all : 1.0 / static_cast<double>(K)));
  const double latency = pipeline_time(in.gemm, comm_latency);
  p.t_model = pipeline_time(in.gemm, in.comm);
  p.thinner_gemms = thinner - p.t_ideal;
  p.chunk_latency = latency - thinner;
  p.link_model = p.t_model - latency;
  // The prediction: each chunk's GEMM and collective alone (or the
  // collective's share of the measured T_comm with the latency paid again),
  // each slowed for the part that runs beside the other.
  const bool timed = in.comm_alone.size() == K;
  const std::vector<double>& collectives = timed ? in.comm_alone : comm_latency;
  p.chunk_collectives = timed ? pipeline_time(in.gemm, in.comm_alone) - latency : 0;
  p.t_predicted = timed && in.comm_busy.size() == K
                      ? pipeline_time_beside(in.gemm, in.comm_alone, in.comm_busy,
                                             in.gemm_beside.size() == K ? in.gemm_beside
                                                                        : std::vector<double>(K, in.interference.gemm))
                      : pipeline_time(in.gemm, collectives, in.interference);
  p.interference = p.t_predicted - latency - p.chunk_collectives;
  return p;
}

StepDurations durations_of(const std::vector<ChunkSpans>& spans) {
  StepDurations d;
  for (const ChunkSpans& s : spans) {
    d.gemm.push_back(s.gemm_end - s.gemm_start);
    d.comm.push_back(s.comm_end - s.comm_start);
  }
  if (!spans.empty()) d.step = spans.back().comm_end - spans.front().gemm_start;
  return d;
}

GapParts split_gap(const PipelineInputs& in, const PipelinePrediction& model, const PipelineMeasured& m) {
  const std::size_t K = in.gemm.size();
  if (m.gemm_alone.size() != K || m.comm_alone.size() != K || m.in_step.gemm.size() != K ||
      m.in_step.comm.size() != K)
    throw std::invalid_argument("split_gap: one measured GEMM and collective per chunk");
  GapParts g;
  const double alone = pipeline_time(m.gemm_alone, m.comm_alone);
  const double gemm_beside = pipeline_time(m.in_step.gemm, m.comm_alone);
  const double both_beside = pipeline_time(m.in_step.gemm, m.in_step.comm);
  // The model's GEMMs are the measured ones alone (in.gemm = m.gemm_alone in
  // a sweep), so the first part is the collectives alone against the link.
  g.collectives_alone = alone - model.t_model;
  g.gemm_interference = gemm_beside - alone;
  g.comm_interference = both_beside - gemm_beside;
  g.hand_over = m.in_step.step - both_beside;
  g.other = m.t_overlap - m.in_step.step;
  // Chunk 1's GEMM and chunk K's collective run with nothing beside them.
  double in_step = 0, by_itself = 0;
  for (std::size_t k = 1; k < K; ++k) {
    in_step += m.in_step.gemm[k];
    by_itself += m.gemm_alone[k];
  }
  if (by_itself > 0) g.gemm_slowdown = in_step / by_itself;
  in_step = by_itself = 0;
  for (std::size_t k = 0; k + 1 < K; ++k) {
    in_step += m.in_step.comm[k];
    by_itself += m.comm_alone[k];
  }
  if (by_itself > 0) g.comm_slowdown = in_step / by_itself;
  return g;
}

std::optional<double> pipeline_efficiency(const PipelinePrediction& p, double t_overlap, double min_fraction) {
  const double hideable = p.t_no_overlap - p.t_ideal;
  if (!(hideable > min_fraction * p.t_no_overlap)) return std::nullopt;
  return (p.t_no_overlap - t_overlap) / hideable;
}

std::vector<int> auto_candidates(std::uint64_t max_chunks) {
  std::vector<int> out{1};
  for (int k = 2; k <= kAutoMaxChunks && static_cast<std::uint64_t>(k) <= max_chunks; k *= 2) out.push_back(k);
  return out;
}

int choose_chunks(const std::vector<ChunkCandidate>& candidates, double margin) {
  if (candidates.empty()) return 1;
  double best = candidates.front().t_predicted;
  for (const auto& c : candidates) best = std::min(best, c.t_predicted);
  int chosen = 0;
  for (const auto& c : candidates)
    if (c.t_predicted <= best * (1 + margin) && (chosen == 0 || c.chunks < chosen)) chosen = c.chunks;
  return std::max(chosen, 1);
}

double modelled_step_time(const Shape& shape, const Ceilings& c, double D, int chunks) {
  if (chunks <= 1) return t_math(shape, c, D) + t_comm(shape, c);
  const double K = chunks;
  Shape rows = shape;
  rows.B = shape.B / K;
  const double g = t_math(rows, c, D);
  const double cc = chunk_comm_time(shape, c, shape.B * shape.F / K);
  return g + (K - 1) * std::max(g, cc) + cc;
}

double step_efficiency(const Shape& shape, const Ceilings& c, double D, int chunks) {
  const double t = modelled_step_time(shape, c, D, chunks);
  return t > 0 ? t_math_compute_only(shape, c, D) / t : 0;
}

int chunks_at(const Shape& shape, const Ceilings& c, double D, const ChunkChoice& choice) {
  if (!choice.automatic) return std::max(choice.chunks, 1);
  std::vector<ChunkCandidate> candidates;
  for (const int k : auto_candidates(choice.max_chunks)) candidates.push_back({k, modelled_step_time(shape, c, D, k)});
  return choose_chunks(candidates);
}

namespace {

// The smallest D (continuous) where efficiency(D) >= target, searched
// upward from `from` in steps of 1.25x, then refined by bisection.
template <typename Efficiency>
std::optional<double> first_reaching(const Efficiency& efficiency, double target, double from, double to) {
  double lo = from;
  if (efficiency(lo) >= target) return lo;
  for (double D = from * 1.25; D <= to; D *= 1.25) {
    if (efficiency(D) >= target) {
      double hi = D;
      for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (efficiency(mid) >= target ? hi : lo) = mid;
      }
      return hi;
    }
    lo = D;
  }
  return std::nullopt;
}

}  // namespace

OverlapOutlook overlap_outlook(const Shape& shape, const Ceilings& c, const ChunkChoice& choice, double target) {
  OverlapOutlook o;
  o.target = target;
  o.d_star = d_star(shape, c);
  if (!(o.d_star > 0) || !(c.flops_per_s > 0)) return o;
  o.efficiency_no_overlap = step_efficiency(shape, c, o.d_star, 1);
  o.chunks_at_d_star = chunks_at(shape, c, o.d_star, choice);
  o.efficiency_overlap = step_efficiency(shape, c, o.d_star, o.chunks_at_d_star);
  const double from = std::max<double>(1, o.d_star / 64), to = o.d_star * 1e6;
  o.D_target_no_overlap = first_reaching([&](double D) { return step_efficiency(shape, c, D, 1); }, target, from, to);
  o.D_target_overlap = first_reaching(
      [&](double D) { return step_efficiency(shape, c, D, chunks_at(shape, c, D, choice)); }, target, from, to);
  if (o.D_target_overlap) o.chunks_at_D_target = chunks_at(shape, c, *o.D_target_overlap, choice);
  return o;
}

double prefetch_time(const std::vector<double>& gather, const std::vector<double>& gemm) {
  if (gather.size() != gemm.size()) throw std::invalid_argument("prefetch_time: as many gathers as GEMMs");
  double gather_end = 0, gemm_end = 0, gemm_end_before = 0;  // gemm_end(l-1), gemm_end(l-2)
  for (std::size_t l = 0; l < gather.size(); ++l) {
    gather_end = std::max(gather_end, gemm_end_before) + gather[l];
    gemm_end_before = gemm_end;
    gemm_end = std::max(gemm_end, gather_end) + gemm[l];
  }
  return gemm_end;
}

PrefetchPrediction predict_prefetch(double t_math, double t_comm, const std::vector<double>& gather,
                                    const std::vector<double>& gemm) {
  PrefetchPrediction p;
  p.layers = static_cast<int>(gather.size());
  const double L = static_cast<double>(gather.size());
  p.t_no_overlap = L * (t_math + t_comm);
  p.t_ideal = L > 0 ? L * std::max(t_math, t_comm) + std::min(t_math, t_comm) : 0;
  p.t_predicted = prefetch_time(gather, gemm);
  return p;
}

}  // namespace shardroof::model
