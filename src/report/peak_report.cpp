#include "report/peak_report.h"

#include <fmt/format.h>

#include "report/hardware_report.h"
#include "report/time_stats_json.h"

namespace shardroof {

nlohmann::json peak_settings_json(const std::string& datatypes, const PeakView& v, std::size_t memory_elements,
                                  std::size_t reduce_elements, int threads, const TimingPlan& timing) {
  return {{"datatypes", datatypes},
          {"size", v.size},
          {"k", v.k},
          {"memory_bytes_per_array", memory_elements * sizeof(double)},
          {"reduce_elements", reduce_elements},
          {"backend", v.backend},
          {"threads", threads},
          {"warmup", timing.warmup},
          {"iters", timing.iters}};
}

nlohmann::json peak_document_json(int ranks, const nlohmann::json& settings) {
  return {{"ranks", ranks},
          {"settings", settings},
          {"aggregation", std::string(kAggregationNote) + " (max over the ranks of one node)"}};
}

std::string peak_node_text(const PeakNode& n) {
  nlohmann::json j = {{"host", n.host}, {"ranks", n.ranks}, {"gemm", nlohmann::json::array()}};
  for (const auto& g : n.gemm) j["gemm"].push_back(peak_gemm_json(g));
  if (n.memory) {
    j["memory"] = peak_memory_json(*n.memory);
    j["reduction"] = nlohmann::json::array();
    for (const auto& r : n.reduction) j["reduction"].push_back(peak_reduction_json(r));
  }
  return j.dump();
}

void set_peak_nodes_json(nlohmann::json& doc, const std::vector<std::string>& gathered, bool complete) {
  doc["nodes"] = nlohmann::json::array();
  for (const auto& text : gathered)
    if (!text.empty()) doc["nodes"].push_back(nlohmann::json::parse(text));
  doc["complete"] = complete;
}

void set_peak_hardware_json(nlohmann::json& doc, const HardwareLimits& hardware,
                            const std::vector<coll::DataType>& types) {
  doc["hardware"] = hardware_json(hardware, types);
}

nlohmann::json peak_gemm_json(const PeakGemm& g) {
  nlohmann::json thin = nlohmann::json::array();
  for (const auto& t : g.thin)
    thin.push_back({{"k", t.k}, {"flops_per_s", t.flops_per_s}, {"time_s", time_stats_json(t.time)}});
  return {{"datatype", coll::to_string(g.type)},
          {"arithmetic", g.arithmetic},
          {"m", g.big.m},
          {"n", g.big.n},
          {"k", g.big.k},
          {"flops_per_s", g.big.flops_per_s},
          {"node_flops_per_s", g.node_flops_per_s},
          {"time_s", time_stats_json(g.big.time)},
          {"thin", thin},
          {"hardware", g.limit ? nlohmann::json{{"flops_per_s_per_rank", g.limit->flops_per_s},
                                                {"name", g.limit->name},
                                                {"formula", g.limit->formula},
                                                {"share", g.big.flops_per_s / g.limit->flops_per_s}}
                               : nlohmann::json()}};
}

nlohmann::json peak_memory_json(const PeakMemory& m) {
  return {{"space", m.space},
          {"bytes_per_array", m.rate.elements * sizeof(double)},
          {"copy_bytes_per_s", m.rate.copy_bytes_per_s},
          {"triad_bytes_per_s", m.rate.triad_bytes_per_s},
          {"node_copy_bytes_per_s", m.node_copy_bytes_per_s},
          {"node_triad_bytes_per_s", m.node_triad_bytes_per_s},
          {"min_rank_triad_bytes_per_s", m.min_rank_triad_bytes_per_s}};
}

nlohmann::json peak_reduction_json(const ReduceRate& r) {
  return {{"datatype", coll::to_string(r.type)}, {"elements", r.count}, {"s_per_element", r.s_per_elem}};
}

void print_peak(std::ostream& out, const PeakView& plan, const nlohmann::json& nodes, const HardwareLimits& hardware) {
    out << "# shardroof peak: local ceilings per node; " << plan.backend << "\n";
    out << "# every rank of a node measures at once; numbers are per rank (node = sum over its ranks)\n";
    out << "# " << kAggregationNote << " (max over the ranks of one node)\n";
    out << hardware_header_text(hardware, plan.types);
    out << fmt::format("\n# GEMM, m = n = k = {} (GFLOP/s per rank; x hw: the share of the hardware's own peak per "
                       "rank)\n",
                       plan.size);
    out << fmt::format("{:>4} {:<20} {:>5}", "node", "host", "ranks");
    for (const auto t : plan.types) out << fmt::format(" {:>10} {:>5}", coll::to_string(t), "x hw");
    out << "\n";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const auto& n = nodes[i];
      out << fmt::format("{:>4} {:<20} {:>5}", i, n["host"].get<std::string>(), n["ranks"].get<int>());
      for (const auto& g : n["gemm"]) {
        const bool known = g.contains("hardware") && g["hardware"].is_object();
        out << fmt::format(" {:>10.2f} {:>5}", g["flops_per_s"].get<double>() / 1e9,
                           known ? fmt::format("{:.2f}", g["hardware"]["share"].get<double>()) : "-");
      }
      out << "\n";
    }
    for (const auto t : plan.types) {
      const auto lim = hardware.compute_limit(t);
      out << fmt::format("# x hw, {}: {}\n", coll::to_string(t),
                         lim ? fmt::format("{} = {:.1f} GFLOP/s per rank ({})", lim->name, lim->flops_per_s / 1e9,
                                           lim->formula)
                             : std::string("the hardware's peak is not known here"));
    }
    out << fmt::format("\n# GEMM across thin inner dimensions k, m = n = {} (GFLOP/s per rank)\n", plan.size);
    out << fmt::format("{:>4} {:<9}", "node", "datatype");
    for (const auto k : plan.k) out << fmt::format(" {:>9}", fmt::format("k={}", k));
    out << "\n";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      for (const auto& g : nodes[i]["gemm"]) {
        out << fmt::format("{:>4} {:<9}", i, g["datatype"].get<std::string>());
        for (const auto& t : g["thin"]) out << fmt::format(" {:>9.2f}", t["flops_per_s"].get<double>() / 1e9);
        out << "\n";
      }
    }
    out << "\n# memory bandwidth M (GB/s) and local reduction rate g (ns per element, dst = a + b)\n";
    if (!nodes.empty()) {
      const auto& m = nodes[0]["memory"];
      out << fmt::format("# M in {}, {:.0f} MiB per array;", m["space"].get<std::string>(),
                         m["bytes_per_array"].get<double>() / (1 << 20));
      for (const auto& r : nodes[0]["reduction"])
        out << fmt::format(" g {} on {} elements;", r["datatype"].get<std::string>(), r["elements"].get<std::size_t>());
      out << " timed with the backend's clock\n";
    }
    out << fmt::format("{:>4} {:>10} {:>10} {:>12} {:>12}", "node", "copy/rank", "triad/rank", "copy/node",
                       "triad/node");
    for (const auto t : plan.types) out << fmt::format(" {:>10}", fmt::format("g {}", coll::to_string(t)));
    out << "\n";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const auto& m = nodes[i]["memory"];
      out << fmt::format("{:>4} {:>10.2f} {:>10.2f} {:>12.2f} {:>12.2f}", i, m["copy_bytes_per_s"].get<double>() / 1e9,
                         m["triad_bytes_per_s"].get<double>() / 1e9, m["node_copy_bytes_per_s"].get<double>() / 1e9,
                         m["node_triad_bytes_per_s"].get<double>() / 1e9);
      for (const auto& r : nodes[i]["reduction"]) out << fmt::format(" {:>10.3f}", r["s_per_element"].get<double>() * 1e9);
      out << "\n";
    }
    if (!nodes.empty())
      for (const auto& r : nodes[0]["reduction"]) {
        const auto type = coll::parse_datatype(r["datatype"].get<std::string>());
        if (!type) continue;
        const std::string share = reduce_share_text(r["s_per_element"].get<double>(), hardware, *type);
        if (!share.empty()) out << fmt::format("# g {} on node 0{}\n", coll::to_string(*type), share);
      }
  }


}  // namespace shardroof
