#include "collectives/hierarchical.h"

#include <cstddef>
#include <string>

#include "collectives/blocks.h"
#include "collectives/error.h"
#include "collectives/ring_all_gather.h"
#include "collectives/ring_detail.h"

namespace shardroof::coll {
namespace {

// Tags of the four phases, above the base the options give.
constexpr int kIntraReduceTag = 0;
constexpr int kIntraGatherTag = 1;
constexpr int kInterReduceTag = 2;
constexpr int kInterGatherTag = 3;

NodeLayout layout_for(const Transport& transport, const CollectiveOptions& options) {
  if (options.hier.node_of_rank.size() != static_cast<std::size_t>(transport.size()))
    throw InvalidArgument("the hier algorithm needs the node of each of the " + std::to_string(transport.size()) +
                          " ranks (got " + std::to_string(options.hier.node_of_rank.size()) + ")");
  return NodeLayout(options.hier.node_of_rank);
}

CollectiveOptions with_tag(CollectiveOptions o, int offset) {
  o.tag += offset;
  return o;
}

}  // namespace

HierarchicalCollective::HierarchicalCollective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                                               const CollectiveOptions& options)
    : kind_(kind), transport_(transport), memory_(memory), options_(options),
      layout_(layout_for(transport, options)),
      intra_(transport, layout_.node_ranks(layout_.node(transport.rank()))),
      inter_(transport, layout_.peers_across_nodes(layout_.local_index(transport.rank()))),
      intra_phase_(std::make_unique<detail::RingReduceScatterPhase>(intra_, memory,
                                                                    with_tag(options, kIntraReduceTag))),
      inter_phase_(std::make_unique<detail::RingReduceScatterPhase>(inter_, memory,
                                                                    with_tag(options, kInterReduceTag))),
      packed_(std::make_unique<detail::ScratchPool>()), piece_(std::make_unique<detail::ScratchPool>()) {
  if (kind != CollectiveKind::AllReduce && kind != CollectiveKind::ReduceScatter)
    throw InvalidArgument("the hier algorithm has no " + std::string(to_string(kind)));
  if (kind == CollectiveKind::ReduceScatter && !layout_.consecutive_ranks())
    throw InvalidArgument("hier reduce_scatter needs each node's ranks consecutive (" + layout_.describe() +
                          " with rank = node * ranks per node + local index); map the ranks by slot");
}

HierarchicalCollective::~HierarchicalCollective() = default;

void HierarchicalCollective::run(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) {
  if (kind_ == CollectiveKind::AllReduce)
    all_reduce(send, recv, count, type, op);
  else
    reduce_scatter(send, recv, count, type, op);
  memory_.synchronize();
}

void HierarchicalCollective::all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                                        ReduceOp op) {
  const std::size_t es = size_of(type);
  const int l = layout_.local_index(transport_.rank());
  const ReduceOp reduce_op = op == ReduceOp::Avg ? ReduceOp::Sum : op;
  const BlockPartition pieces(count, intra_.size());
  // 1. Inside the node: piece l summed over the node lands at its place in recv.
  if (intra_.size() > 1)
    intra_phase_->run(send, recv, nullptr, count, type, reduce_op);
  else if (send != recv)
    memory_.copy(recv, send, count * es);
  // 2. Across the nodes: piece l summed over all ranks, in place.
  auto* piece = static_cast<std::byte*>(recv) + pieces.offset(l) * es;
  const std::size_t piece_count = pieces.size(l);
  if (inter_.size() > 1) {
    inter_phase_->run(piece, piece, nullptr, piece_count, type, reduce_op);
    ring_all_gather_in_place(inter_, piece, piece_count, es, options_.tag + kInterGatherTag, options_.tracer);
  }
  if (op == ReduceOp::Avg) memory_.divide(piece, piece_count, type, transport_.size());
  // 3. Inside the node: every piece to every rank.
  if (intra_.size() > 1)
    ring_all_gather_in_place(intra_, recv, count, es, options_.tag + kIntraGatherTag, options_.tracer);
}

void HierarchicalCollective::reduce_scatter(const void* send, void* recv, std::size_t count, DataType type,
                                            ReduceOp op) {
  const std::size_t es = size_of(type);
  const int rank = transport_.rank();
  const int k = intra_.size();
  const int m = inter_.size();
  const ReduceOp reduce_op = op == ReduceOp::Avg ? ReduceOp::Sum : op;
  const BlockPartition blocks(count, transport_.size());
  const BlockPartition pieces(count, k);
  const std::size_t my_count = blocks.size(rank);

  // 0. Regroup: piece l = blocks l, K + l, 2K + l, ... (node order). With one
  // node or one rank per node that is the input's own order.
  const auto* input = static_cast<const std::byte*>(send);
  if (k > 1 && m > 1) {
    auto* packed = static_cast<std::byte*>(packed_->get(memory_, count * es));
    std::size_t at = 0;
    for (int l = 0; l < k; ++l)
      for (int node = 0; node < m; ++node) {
        const int b = node * k + l;
        memory_.copy(packed + at * es, input + blocks.offset(b) * es, blocks.size(b) * es);
        at += blocks.size(b);
      }
    input = packed;
  }
  // 1. Inside the node: piece l summed over the node.
  const int l = layout_.local_index(rank);
  const std::byte* piece = input;
  if (k > 1) {
    auto* reduced = static_cast<std::byte*>(piece_->get(memory_, pieces.max_size() * es));
    intra_phase_->run(input, nullptr, reduced, count, type, reduce_op);
    piece = reduced;
  }
  // 2. Across the nodes: block node * K + l of piece l, summed over all ranks.
  if (m > 1)
    inter_phase_->run(piece, nullptr, recv, pieces.size(l), type, reduce_op);
  else if (piece != recv)
    memory_.copy(recv, piece, my_count * es);
  if (op == ReduceOp::Avg) memory_.divide(recv, my_count, type, transport_.size());
}

}  // namespace shardroof::coll
