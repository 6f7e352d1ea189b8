#include "sweep/overlap_model.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <numeric>

#include "sweep/analysis.h"
#include "sweep/overlap.h"
#include "util/error.h"

namespace shardroof::sweep {
namespace {

// A whole number of chunks, or nothing when `item` is not one.
std::optional<long long> whole_number(const std::string& item) {
  if (item.empty() || item.size() > 10) return std::nullopt;  // more digits than INT_MAX has
  long long v = 0;
  for (const char ch : item) {
    if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
    v = v * 10 + (ch - '0');
  }
  return v;
}

}  // namespace

OverlapPlan parse_overlap(const std::string& text, std::size_t B, std::size_t F, int ranks,
                          coll::CollectiveKind kind) {
  OverlapPlan plan;
  if (text == "auto") {
    plan.automatic = true;
    return plan;
  }
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::optional<long long> k = whole_number(item);
    if (!k || *k < 1 || *k > INT_MAX) {
      char* end = nullptr;
      std::strtod(item.c_str(), &end);
      if (item.empty() || end != item.c_str() + item.size())
        throw_usage("--overlap: '{}' is not a number (K chunks, a list K1,K2,... or auto)", item);
      throw_usage("--overlap: must be a whole number of chunks, at least 1 (1: no overlap), got '{}'", item);
    }
    validate_chunks(B, F, ranks, kind, *k);
    const int K = static_cast<int>(*k);
    if (K > 1 && std::find(plan.chunks.begin(), plan.chunks.end(), K) == plan.chunks.end()) plan.chunks.push_back(K);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return plan;
}

std::uint64_t auto_chunk_bound(std::size_t B, std::size_t F, int ranks, coll::CollectiveKind kind) {
  return std::min<std::uint64_t>(max_chunks(B, F, ranks, kind), static_cast<std::uint64_t>(model::kAutoMaxChunks));
}

std::vector<double> link_chunk_times(const model::Shape& shape, const std::optional<model::Ceilings>& link,
                                     double t_comm, const std::vector<double>& elements) {
  std::vector<double> out;
  const double all = std::accumulate(elements.begin(), elements.end(), 0.0);
  const bool modelled = link && link->link_bytes_per_s > 0;
  for (const double e : elements)
    out.push_back(modelled ? model::chunk_comm_time(shape, *link, e) : (all > 0 ? t_comm * e / all : 0));
  return out;
}

OverlapChoiceRecord choose_overlap(const model::Shape& shape, const std::optional<model::Ceilings>& link,
                                   double t_math, double t_comm,
                                   const std::vector<std::pair<int, double>>& gemm_at_K,
                                   const model::Interference& interference) {
  OverlapChoiceRecord out;
  const double BF = shape.B * shape.F;
  const double comm_one = link_chunk_times(shape, link, t_comm, {BF}).front();
  out.candidates.push_back({1, t_math, t_math + comm_one});
  std::vector<model::ChunkCandidate> weighed{{1, t_math + comm_one}};
  for (const auto& [K, gemm] : gemm_at_K) {
    const std::vector<double> elements(static_cast<std::size_t>(K), BF / K);
    const std::vector<double> comm = link_chunk_times(shape, link, t_comm, elements);
    const double t =
        model::pipeline_time(std::vector<double>(static_cast<std::size_t>(K), gemm), comm, interference);
    out.candidates.push_back({K, gemm, t});
    weighed.push_back({K, t});
  }
  out.chosen = model::choose_chunks(weighed);
  return out;
}

model::Interference point_interference(const PointRecord& p) {
  if (!p.concurrent) return {};
  return model::interference_from(p.t_math.median, p.t_comm.median, p.concurrent->gemm_s, p.concurrent->comm_s);
}

namespace {

model::CpuShare transport_share(const TransportCpu& cpu) {
  model::CpuShare share;
  share.cores_per_rank = cpu.node_ranks > 0 ? static_cast<double>(cpu.node_cpus) / cpu.node_ranks : 1.0;
  share.gemm_threads = std::max(1, cpu.gemm_threads);
  share.transport_cores = cpu.cores();
  return share;
}

}  // namespace

model::Interference transport_interference(const TransportCpu& cpu) {
  return model::cpu_interference(transport_share(cpu));
}

OverlapRunAnalysis analyze_overlap_run(const model::Shape& shape, const std::optional<model::Ceilings>& link,
                                       const PointRecord& p, const OverlapRun& run) {
  OverlapRunAnalysis a;
  a.chunks = run.chunks;
  model::PipelineInputs in;
  in.t_math = p.t_math.median;
  in.t_comm = p.t_comm.median;
  in.gemm = run.gemm_alone_s;
  in.elements = run.elements;
  in.comm = link_chunk_times(shape, link, in.t_comm, run.elements);
  in.latency_s = link && link->link_bytes_per_s > 0 ? model::collective_latency(shape, *link) : 0;
  if (p.concurrent) a.measured_interference = point_interference(p);
  if (run.transport_cpu) {
    in.interference = transport_interference(*run.transport_cpu);
    a.interference_source = "cpu";
  } else if (a.measured_interference) {
    in.interference = *a.measured_interference;
    a.interference_source = "measured";
  }
  a.interference = in.interference;
  a.comm_source = a.interference_source;
  const std::size_t K = run.elements.size();
  if (in.gemm.size() != K) return a;  // a record without the per-chunk times
  if (run.comm_alone_s.size() == K) in.comm_alone = run.comm_alone_s;
  if (in.comm_alone.size() == K && run.comm_busy_s.size() == K) {
    in.comm_busy = run.comm_busy_s;
    a.interference.comm = model::busy_slowdown(in.comm_alone, in.comm_busy);
    a.comm_source = "busy cores";
    if (run.transport_cpu) {
      // The GEMM loses what the transport takes beside it: its CPU alone
      // spread over each collective's time beside busy cores.
      const model::CpuShare share = transport_share(*run.transport_cpu);
      for (std::size_t k = 0; k < K; ++k)
        in.gemm_beside.push_back(model::cpu_interference_beside(share, in.comm_alone[k], in.comm_busy[k]).gemm);
      a.interference.gemm = model::cpu_interference_beside(share, 1, a.interference.comm).gemm;
    }
  }
  a.model = model::predict_pipeline(in);
  if (a.measured_interference) {
    model::PipelineInputs checked = in;
    checked.interference = *a.measured_interference;
    checked.comm_busy.clear();  // both of the measured slowdowns, as one factor each
    a.t_predicted_measured = model::predict_pipeline(checked).t_predicted;
  }
  a.hidden = hidden_share(p, run.t_overlap.median);
  a.hidden_predicted = hidden_share(p, a.model.t_predicted);
  // Which side bounds the pipeline (the chunks' collectives timed alone,
  // or their shares of T_comm with the latency paid again, against the
  // GEMMs alone), and what keeps the prediction furthest from the ideal.
  const double comm_side = in.comm_alone.size() == K
                               ? std::accumulate(in.comm_alone.begin(), in.comm_alone.end(), 0.0)
                               : in.t_comm + in.latency_s * (static_cast<double>(K) - 1);
  const double gemm_side = std::accumulate(in.gemm.begin(), in.gemm.end(), 0.0);
  a.bound = comm_side >= gemm_side ? "collective" : "gemm";
  const double per_chunk = a.model.chunk_latency + a.model.chunk_collectives;
  if (a.model.interference >= a.model.thinner_gemms && a.model.interference >= per_chunk && a.model.interference > 0)
    a.limit = "cpu";
  else if (per_chunk >= a.model.thinner_gemms && per_chunk > 0)
    a.limit = "per-chunk collectives";
  else if (a.model.thinner_gemms > 0)
    a.limit = "thinner GEMMs";
  a.efficiency = model::pipeline_efficiency(a.model, run.t_overlap.median);
  if (run.t_overlap.median > 0) {
    a.model_error = (a.model.t_model - run.t_overlap.median) / run.t_overlap.median;
    a.predicted_error = (a.model.t_predicted - run.t_overlap.median) / run.t_overlap.median;
  }
  model::PipelineMeasured m;
  m.gemm_alone = run.gemm_alone_s;
  m.comm_alone = run.comm_alone_s;
  m.in_step.gemm = run.gemm_in_step_s;
  m.in_step.comm = run.comm_in_step_s;
  m.in_step.step = run.stamped_step_s;
  m.t_overlap = run.t_overlap.median;
  a.stamped = m.comm_alone.size() == K && m.in_step.gemm.size() == K && m.in_step.comm.size() == K;
  if (a.stamped) a.gap = model::split_gap(in, a.model, m);
  return a;
}

std::vector<OverlapRunAnalysis> analyze_overlap_runs(const model::Shape& shape,
                                                     const std::optional<model::Ceilings>& link,
                                                     const PointRecord& p) {
  std::vector<OverlapRunAnalysis> out;
  for (const OverlapRun& run : p.overlap_runs) out.push_back(analyze_overlap_run(shape, link, p, run));
  return out;
}

model::ChunkChoice chunk_choice(const OverlapPlan& overlap, std::size_t B, std::size_t F, int ranks,
                                coll::CollectiveKind kind) {
  model::ChunkChoice c;
  c.automatic = overlap.automatic;
  c.chunks = overlap.chunks.empty() ? 1 : overlap.chunks.front();
  c.max_chunks = auto_chunk_bound(B, F, ranks, kind);
  return c;
}

}  // namespace shardroof::sweep
