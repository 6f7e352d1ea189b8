#include "model/native_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <vector>

namespace shardroof::model {
namespace {

using coll::CollectiveKind;
using tuned::Algorithm;
using tuned::Operation;

// One collective call's modelled time, its formula and its name (with the
// algorithms of the calls it makes, for compositions).
struct Part {
  double time_s = 0;
  std::string formula;
  std::string name;
};

struct Ctx {
  int p = 1;
  std::size_t es = 4;  // element bytes
  double a = 0, W = 0, g = 0, c = 0;
  const tuned::Settings* settings = nullptr;
};

int floor_log2(int p) {
  int L = 0;
  while ((2 << L) <= p) ++L;
  return L;
}
int ceil_log2(int p) {
  int L = 0;
  while ((1 << L) < p) ++L;
  return L;
}

// Segments of `bytes` in `es`-byte elements for a segment size: as
// COLL_BASE_COMPUTED_SEGCOUNT (a segment size below one element or at
// least the whole message is one segment).
double segments(double bytes, std::size_t es, std::uint64_t segment_bytes) {
  const double count = std::floor(bytes / static_cast<double>(es));
  if (segment_bytes < es || static_cast<double>(segment_bytes) >= bytes || count <= 0) return 1;
  double segcount = std::floor(static_cast<double>(segment_bytes) / static_cast<double>(es));
  const double residual = static_cast<double>(segment_bytes) - segcount * static_cast<double>(es);
  if (residual > static_cast<double>(es / 2)) segcount += 1;
  return std::ceil(count / segcount);
}

// The trees of ompi/mca/coll/base/coll_base_topo.c (v4.1.4), root 0: each
// rank's children.
using Tree = std::vector<std::vector<int>>;

// ompi_coll_base_topo_build_chain: `fanout` chains (at least 1, at most
// p-1) hang off the root, the first (p-1) % fanout one rank longer.
Tree chain(int p, int fanout) {
  Tree t(static_cast<std::size_t>(p));
  fanout = std::clamp(fanout, 1, std::max(p - 1, 1));
  const int len = (p - 1) / fanout, longer = (p - 1) % fanout;
  int next = 1;
  for (int ch = 0; ch < fanout && next < p; ++ch) {
    int prev = 0;
    for (int i = 0; i < len + (ch < longer ? 1 : 0) && next < p; ++i) {
      t[static_cast<std::size_t>(prev)].push_back(next);
      prev = next++;
    }
  }
  return t;
}

// ompi_coll_base_topo_build_tree(fanout): rank r of level l has children
// r + f^l * (i+1), i < f.
Tree ntree(int p, int fanout) {
  Tree t(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    int level = 0;
    for (long long num = 0, width = 1; num <= r; ++level, width *= fanout) num += width;
    --level;
    long long delta = 1;
    for (int l = 0; l < level; ++l) delta *= fanout;
    for (int i = 0; i < fanout; ++i) {
      const long long child = r + delta * (i + 1);
      if (child >= p) break;
      t[static_cast<std::size_t>(r)].push_back(static_cast<int>(child));
    }
  }
  return t;
}

// ompi_coll_base_topo_build_bmtree: r's children are r ^ mask for each
// mask from the power of two above r while below p.
Tree binomial(int p) {
  Tree t(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    int mask = 1;
    while (mask <= r) mask <<= 1;
    for (; mask < p; mask <<= 1) {
      const int child = r ^ mask;
      if (child >= p) break;
      t[static_cast<std::size_t>(r)].push_back(child);
    }
  }
  return t;
}

// ompi_coll_base_topo_build_kmtree(radix).
Tree knomial(int p, int radix) {
  Tree t(static_cast<std::size_t>(p));
  radix = std::max(radix, 2);
  for (int r = 0; r < p; ++r) {
    int mask = 1;
    while (mask < p) {
      if (r % (radix * mask)) break;
      mask *= radix;
    }
    for (mask /= radix; mask > 0; mask /= radix)
      for (int i = 1; i < radix; ++i)
        if (r + mask * i < p) t[static_cast<std::size_t>(r)].push_back(r + mask * i);
  }
  return t;
}

std::vector<int> top_down(const Tree& t) {
  std::vector<int> order{0};
  for (std::size_t i = 0; i < order.size(); ++i)
    for (const int c : t[static_cast<std::size_t>(order[i])]) order.push_back(c);
  return order;
}

// A broadcast down the tree in k segments: a node sends segment j to all
// its c children at once (their c flows share its W) once it has it and
// has sent segment j-1. Segment by segment, top down, so that what is kept
// is one time per rank: when it finished sending, and when it has the
// current segment (O(p) memory for any k).
double tree_bcast(const Tree& t, double S, double k, const Ctx& x) {
  const double m = S / k;
  const std::vector<int> order = top_down(t);
  std::vector<double> sent(t.size(), 0.0), has(t.size(), 0.0);
  double last = 0;
  for (double j = 0; j < k; ++j)
    for (const int r : order) {
      const auto v = static_cast<std::size_t>(r);
      const auto& kids = t[v];
      if (kids.empty()) {
        last = std::max(last, has[v]);
        continue;
      }
      sent[v] = std::max(sent[v], has[v]) + x.a + static_cast<double>(kids.size()) * m / x.W;
      for (const int c : kids) has[static_cast<std::size_t>(c)] = sent[v];
    }
  return last;
}

// A reduction up the tree in k segments: a node receives segment j from
// its c children at once (sharing its W in) once each has reduced it, and
// reduces the c of them. Segment by segment, bottom up: per rank when it
// last received, when it last reduced, and when its current segment is
// ready (O(p) memory for any k).
double tree_reduce(const Tree& t, double S, double k, const Ctx& x) {
  const double m = S / k;
  const std::vector<int> order = top_down(t);
  std::vector<double> in(t.size(), 0.0), reduced(t.size(), 0.0), ready(t.size(), 0.0);
  for (double j = 0; j < k; ++j)
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const auto v = static_cast<std::size_t>(*it);
      const auto& kids = t[v];
      if (kids.empty()) continue;
      const double c = static_cast<double>(kids.size());
      double arrive = 0;
      for (const int ch : kids) arrive = std::max(arrive, ready[static_cast<std::size_t>(ch)]);
      in[v] = std::max(in[v], arrive) + x.a + c * m / x.W;
      reduced[v] = std::max(reduced[v], in[v]) + c * m * x.g;
      ready[v] = reduced[v];
    }
  return ready[0];
}

// A coefficient with how it reads: its value for this call and its text in
// the notation of every formula here (N ranks, N' the largest power of two
// <= N, L = log2 N', b = S/N a block). Built by the operators below, so a
// text can only say what its value is.
struct Coef {
  double value = 1;
  std::string text;  // "" for 1
};
Coef lit(double v) { return {v, fmt::format("{:g}", v)}; }
Coef operator*(const Coef& x, const Coef& y) { return {x.value * y.value, x.text + y.text}; }
Coef operator/(const Coef& x, const Coef& y) { return {x.value / y.value, x.text + "/" + y.text}; }
Coef operator-(const Coef& x, const Coef& y) { return {x.value - y.value, "(" + x.text + " - " + y.text + ")"}; }
Coef operator+(const Coef& x, const Coef& y) { return {x.value + y.value, "(" + x.text + " + " + y.text + ")"}; }

// A cost as its terms, each a coefficient times a unit (messages, bytes
// over the link, bytes reduced, a block over the link, a block copied):
// its time and its formula come from the same list.
enum class Unit { a, S_W, S_g, b_W, b_c };
struct Term {
  Coef coef;
  Unit unit;
};
using Terms = std::vector<Term>;

std::pair<double, std::string> priced(const Terms& terms, double S, const Ctx& x) {
  static constexpr const char* kUnit[] = {"a", "S/W", "S g", "b/W", "b c"};
  const double b = S / x.p, unit[] = {x.a, S / x.W, S * x.g, b / x.W, b * x.c};
  double time = 0;
  std::string text;
  for (const auto& [coef, u] : terms) {
    time += coef.value * unit[static_cast<int>(u)];
    text += (text.empty() ? "" : " + ") + coef.text + (coef.text.empty() ? "" : " ") + kUnit[static_cast<int>(u)];
  }
  return {time, text};
}

std::optional<Part> decide(Operation op, double decision_bytes, double S, const Ctx& x);

// One choice's cost; S is the operation's whole vector (the scatter's: all
// blocks, N b).
std::optional<Part> cost_of(const tuned::Choice& ch, double S, const Ctx& x) {
  const int p = x.p;
  const int log2_pp = floor_log2(p);
  const bool folded = (1 << log2_pp) != p;  // N' < N: the ranks above N' folded in first and out last
  const std::string& n = ch.name;
  // The symbols every formula is written in.
  const Coef one, N{static_cast<double>(p), "N"}, N1{p - 1.0, "(N-1)"}, f = N1 / N, L{double(log2_pp), "L"},
      Np{static_cast<double>(1 << log2_pp), "N'"}, fp = Coef{Np.value - 1, "(N'-1)"} / Np,
      cl{double(ceil_log2(p)), "ceil(log2 N)"}, l2{std::log2(static_cast<double>(p)), "log2 N"}, half = lit(1) / lit(2);
  using enum Unit;
  const auto part = [&](const Terms& terms, std::string note = "", std::string name = "") {
    auto [time, formula] = priced(terms, S, x);
    return Part{time, formula + note, name.empty() ? n : name};
  };
  const auto ring_allreduce = [&](std::string note = "") {
    return part({{lit(2) * N1, a}, {lit(2) * f, S_W}, {f, S_g}}, std::move(note));
  };
  const auto nested = [&](Operation inner, double decision, double bytes) { return decide(inner, decision, bytes, x); };
  const auto tree = [&](const Tree& t, bool reduce, const char* shape) -> Part {
    const double k = segments(S, x.es, ch.segment_bytes);
    const double time = reduce ? tree_reduce(t, S, k, x) : tree_bcast(t, S, k, x);
    return Part{time,
                fmt::format("{} of {} ranks, k = {:.0f}: per node and segment a + c (S/k)/W{} (c its children), "
                            "pipelined along the tree",
                            shape, p, k, reduce ? " + c (S/k) g" : ""),
                n};
  };
  // bcast's and reduce's trees (reduce runs them reversed); the fixed rules
  // pass fan-out 0, which the chain takes as 1.
  if (ch.op == Operation::Bcast || ch.op == Operation::Reduce) {
    const bool reduce = ch.op == Operation::Reduce;
    const int fan = std::max(ch.fanout, 1);
    switch (ch.algorithm) {
      case Algorithm::Chain: return tree(chain(p, fan), reduce, fan == 1 ? "a chain" : "chains of fan-out f");
      case Algorithm::Pipeline: return tree(chain(p, 1), reduce, "a chain");
      case Algorithm::BinaryTree: return tree(ntree(p, 2), reduce, "a binary tree");
      case Algorithm::InOrderBinary: return tree(ntree(p, 2), reduce, "a binary tree (in order)");
      case Algorithm::Binomial: return tree(binomial(p), reduce, "a binomial tree");
      case Algorithm::Knomial:
        return tree(knomial(p, x.settings ? x.settings->knomial_radix : 4), reduce, "a k-nomial tree");
      default: break;
    }
  }
  switch (ch.op) {
    case Operation::Allreduce:
      switch (ch.algorithm) {
        case Algorithm::BasicLinear: return part({{lit(2), a}, {lit(2) * N1, S_W}, {N1, S_g}});
        case Algorithm::Nonoverlapping: {
          const auto r = nested(Operation::Reduce, S, S);
          const auto bc = nested(Operation::Bcast, S, S);
          if (!r || !bc) return std::nullopt;
          return Part{r->time_s + bc->time_s, "reduce: " + r->formula + "; bcast: " + bc->formula,
                      fmt::format("{} (reduce: {}, bcast: {})", n, r->name, bc->name)};
        }
        case Algorithm::RecursiveDoubling: {
          Terms t = {{L, a}, {L, S_W}, {L, S_g}};
          if (folded) t.insert(t.end(), {{lit(2), a}, {lit(2), S_W}, {one, S_g}});
          return part(t);
        }
        case Algorithm::Ring: return ring_allreduce();
        case Algorithm::SegmentedRing: {
          const double count = std::floor(S / static_cast<double>(x.es));
          const double k = segments(S, x.es, ch.segment_bytes);
          const double segcount = k > 1 ? std::ceil(count / k) : count;
          if (count < p * segcount) return ring_allreduce(" (the ring: S below N segments)");
          double phases = std::floor(count / (p * segcount));
          const double rest = count - phases * p * segcount;
          if (rest >= p && rest > p * segcount / 2) phases += 1;
          const Coef F{phases, "F"};
          return part({{N1 * (F + lit(1)), a}, {lit(2) * f, S_W}, {f, S_g}},
                      fmt::format(", F = {:.0f} phases", phases));
        }
        case Algorithm::Rabenseifner: {
          Terms t = {{lit(2) * L, a}, {lit(2) * fp, S_W}, {fp, S_g}};
          if (folded) t.insert(t.end(), {{lit(3), a}, {lit(2), S_W}, {half, S_g}});
          return part(t);
        }
        default: return std::nullopt;
      }
    case Operation::ReduceScatterBlock:
    case Operation::ReduceScatter:
      switch (ch.algorithm) {
        case Algorithm::BasicLinear:
        case Algorithm::Nonoverlapping: {
          // reduce_scatter_block's basic_linear: MPI_Reduce of S to rank 0,
          // then MPI_Scatter of the blocks; reduce_scatter's
          // non-overlapping: the reduce, then the basic linear scatterv.
          const auto r = nested(Operation::Reduce, S, S);
          if (!r) return std::nullopt;
          if (ch.op == Operation::ReduceScatter) {
            const Part scatterv = part({{N1, a}, {N1, b_W}});
            return Part{r->time_s + scatterv.time_s, "reduce: " + r->formula + "; scatterv: " + scatterv.formula,
                        fmt::format("{} (reduce: {}, scatterv: linear)", n, r->name)};
          }
          const auto sc = nested(Operation::Scatter, S / p, S);
          if (!sc) return std::nullopt;
          return Part{r->time_s + sc->time_s, "reduce: " + r->formula + "; scatter: " + sc->formula,
                      fmt::format("{} (reduce: {}, scatter: {})", n, r->name, sc->name)};
        }
        case Algorithm::RecursiveDoubling: return part({{cl, a}, {l2 - f, S_W}, {l2 - f, S_g}});
        case Algorithm::RecursiveHalving: {
          Terms t = {{L, a}, {fp, S_W}, {fp, S_g}};
          if (folded) t.insert(t.end(), {{lit(2), a}, {one, S_W}, {one, S_g}, {one, b_W}});
          return part(t);
        }
        case Algorithm::Ring: return part({{N1, a}, {f, S_W}, {f, S_g}});
        case Algorithm::Butterfly:
          if (!folded) return part({{L, a}, {f, S_W}, {f, S_g}});
          return part({{lit(4) + lit(2) * L, a},
                       {lit(3) - lit(2) / N, S_W},
                       {lit(2) - lit(1) / N, S_g},
                       {lit(3), b_W}});
        default: return std::nullopt;
      }
    case Operation::Allgather:
    case Operation::Allgatherv:
      switch (ch.algorithm) {
        case Algorithm::Bruck: return part({{cl, a}, {f, S_W}});
        case Algorithm::RecursiveDoubling:
          if (folded) return part({{cl, a}, {f, S_W}}, " (bruck: N not a power of two)", "recursive_doubling (bruck)");
          return part({{L, a}, {f, S_W}});
        case Algorithm::Ring: return part({{N1, a}, {f, S_W}});
        case Algorithm::Neighbor:
          if (p % 2) return part({{N1, a}, {f, S_W}}, " (the ring: N odd)", "neighbor (ring)");
          return part({{N / lit(2), a}, {f, S_W}});
        case Algorithm::TwoProcs: return part({{one, a}, {half, S_W}});
        default: return std::nullopt;
      }
    case Operation::Bcast:
      switch (ch.algorithm) {
        case Algorithm::BasicLinear: return part({{one, a}, {N1, S_W}});
        case Algorithm::ScatterAllgather: return part({{lit(2) * cl, a}, {lit(2) * f, S_W}});
        case Algorithm::ScatterAllgatherRing: return part({{cl + N1, a}, {lit(2) * f, S_W}});
        default: return std::nullopt;
      }
    case Operation::Alltoall:
    case Operation::Alltoallv:
      switch (ch.algorithm) {
        case Algorithm::BasicLinear:
        case Algorithm::Pairwise:
        case Algorithm::LinearSync: return part({{N1, a}, {f, S_W}});
        case Algorithm::TwoProcs: return part({{one, a}, {half, S_W}});
        case Algorithm::ModifiedBruck: return part({{cl, a}, {cl / lit(2), S_W}});
        default: return std::nullopt;
      }
    case Operation::Reduce:
      switch (ch.algorithm) {
        case Algorithm::BasicLinear: return part({{one, a}, {N1, S_W}, {N1, S_g}});
        case Algorithm::Rabenseifner: {
          Terms t = {{lit(2) * L, a}, {lit(2) * fp, S_W}, {fp, S_g}};
          if (folded) t.insert(t.end(), {{lit(2), a}, {one, S_W}, {half, S_g}});
          return part(t);
        }
        default: return std::nullopt;
      }
    case Operation::Scatter:
      switch (ch.algorithm) {
        case Algorithm::BasicLinear:
        case Algorithm::LinearNb: return part({{N1, a}, {N1, b_W}});
        case Algorithm::Binomial: return part({{cl, a}, {N1, b_W}});
        default: return std::nullopt;
      }
  }
  return std::nullopt;
}

std::optional<Part> decide(Operation op, double decision_bytes, double S, const Ctx& x) {
  const auto ch = tuned::choose(op, x.p, static_cast<std::uint64_t>(decision_bytes), *x.settings);
  if (!ch) return std::nullopt;
  return cost_of(*ch, S, x);
}

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

NativeModel bound(std::string reason, std::string algorithm = "") {
  NativeModel m;
  m.algorithm = std::move(algorithm);
  m.bound_reason = std::move(reason);
  return m;
}

NativeModel open_mpi(const NativeCall& call, const NativeLibrary& lib, const CollLink& link) {
  const int p = call.nranks;
  if (p <= 1) {
    NativeModel m;
    m.algorithm = "self";
    m.cost = CollCost{0, 0, "0 (one rank: coll/self)"};
    return m;
  }
  const double S = static_cast<double>(call.bytes);
  const std::size_t es = std::max<std::size_t>(call.element_bytes, 1);
  const std::uint64_t count = call.bytes / es;
  const bool even = count % static_cast<std::uint64_t>(p) == 0;
  // The native collective issues AllReduce and Broadcast in pieces of 2^30
  // elements (collectives/mpi_native.cpp), each decided on its own.
  if ((call.kind == CollectiveKind::AllReduce || call.kind == CollectiveKind::Broadcast) && count > (1ull << 30))
    return bound("issued in pieces of 2^30 elements, each decided on its own");
  Ctx x;
  x.p = p;
  x.es = es;
  x.a = link.alpha_s;
  x.W = link.W_bytes_per_s;
  x.g = link.g_s_per_byte;
  x.c = link.copy_s_per_byte;
  x.settings = &lib.tuned;
  Operation op = Operation::Allreduce;
  double decision = S;
  switch (call.kind) {
    case CollectiveKind::AllReduce: op = Operation::Allreduce; break;
    case CollectiveKind::ReduceScatter:
      op = even ? Operation::ReduceScatterBlock : Operation::ReduceScatter;
      decision = even ? S / p : S;
      break;
    case CollectiveKind::AllGather:
      op = even ? Operation::Allgather : Operation::Allgatherv;
      decision = std::floor(S / p);
      break;
    case CollectiveKind::Broadcast: op = Operation::Bcast; break;
    case CollectiveKind::AllToAll:
      op = even ? Operation::Alltoall : Operation::Alltoallv;
      decision = even ? S / p : 0;
      break;
  }
  const auto ch = tuned::choose(op, p, static_cast<std::uint64_t>(decision), lib.tuned);
  if (!ch)
    return bound(!lib.tuned.rules_file.empty()
                     ? fmt::format("coll/tuned reads its rules from {} (coll_tuned_dynamic_rules_filename)",
                                   lib.tuned.rules_file)
                     : fmt::format("coll/tuned has no {} algorithm of that number", tuned::mca_name(op)));
  const std::string name = ch->name + (ch->forced ? " (forced)" : "");
  // Every alltoall algorithm runs in place as the basic in-place exchange.
  if (call.kind == CollectiveKind::AllToAll && call.in_place) {
    const Coef N1{p - 1.0, "(N-1)"};
    const auto [time, formula] = priced({{N1, Unit::a}, {N1, Unit::b_W}, {N1, Unit::b_c}}, S, x);
    NativeModel m;
    m.algorithm = "basic_inplace";
    m.cost = CollCost{time, 0, formula};
    return m;
  }
  const auto part = cost_of(*ch, S, x);
  if (!part) return bound(fmt::format("no formula here for {} {}", tuned::mca_name(op), ch->name), name);
  NativeModel m;
  m.algorithm = ch->forced ? part->name + " (forced)" : part->name;
  m.cost = CollCost{part->time_s, 0, part->formula};
  return m;
}

NativeModel nccl(const NativeCall& call, const NativeLibrary& lib, const CollLink& link) {
  if (lib.nccl_algo.empty())
    return bound("NCCL chooses its algorithm and protocol by its own tuning model (NCCL_ALGO unset)");
  if (lower(lib.nccl_algo) != "ring") return bound(fmt::format("no formula here for NCCL_ALGO={}", lib.nccl_algo));
  const std::string proto = lower(lib.nccl_proto);
  double share = 1;
  std::string proto_name = "Simple";
  if (proto == "ll128") {
    share = 120.0 / 128.0;
    proto_name = "LL128";
  } else if (proto == "ll") {
    share = 0.5;
    proto_name = "LL";
  } else if (!proto.empty() && proto != "simple") {
    return bound(fmt::format("NCCL_PROTO={} names more than one protocol, or one without a formula here",
                             lib.nccl_proto));
  } else if (proto.empty()) {
    // Unset, NCCL takes the protocol by size; large messages go Simple.
    if (call.bytes < (std::uint64_t{1} << 20))
      return bound("NCCL_PROTO unset: below 1 MiB NCCL may take LL or LL128");
  }
  if (call.kind != CollectiveKind::AllReduce && call.kind != CollectiveKind::ReduceScatter &&
      call.kind != CollectiveKind::AllGather)
    return bound(fmt::format("no formula here for NCCL's ring {}", coll::to_string(call.kind)));
  CollLink l = link;
  l.W_bytes_per_s = link.W_bytes_per_s * share;
  const auto ring = collective_cost({call.kind, coll::Algorithm::Ring, call.nranks, call.bytes, call.in_place, 0, 1}, l);
  if (!ring) return bound("no ring formula for this collective");
  NativeModel m;
  m.algorithm = "ring/" + proto_name;
  m.cost = *ring;
  if (share != 1) m.cost->formula += fmt::format(" with W x {:.3g} ({})", share, proto_name);
  return m;
}

}  // namespace

NativeModel native_model(const NativeCall& call, const NativeLibrary& library, const CollLink& link) {
  if (!(link.W_bytes_per_s > 0)) return bound("no link");
  if (!library.unknown.empty()) return bound(library.unknown);
  NativeModel m;
  switch (library.kind) {
    case NativeLibrary::Kind::OpenMpiTuned: m = open_mpi(call, library, link); break;
    case NativeLibrary::Kind::Nccl: m = nccl(call, library, link); break;
    case NativeLibrary::Kind::Other: return bound(library.name.empty() ? "the library is not known" : library.name);
  }
  if (m.cost && m.cost->time_s > 0 && call.bytes > 0)
    m.cost->busbw_bytes_per_s = static_cast<double>(call.bytes) / m.cost->time_s * bus_factor(call.kind, call.nranks);
  return m;
}

}  // namespace shardroof::model
