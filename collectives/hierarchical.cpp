#include "collectives/hierarchical.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/error.h"
#include "collectives/ring_all_gather.h"
#include "collectives/ring_detail.h"
#include "collectives/sub_transport.h"

namespace shardroof::coll {
namespace {

HierarchyLayout layout_for(const Transport& transport, const CollectiveOptions& options) {
  if (options.hier.node_of_rank.size() != static_cast<std::size_t>(transport.size()))
    throw InvalidArgument("the hier algorithm needs the node of each of the " + std::to_string(transport.size()) +
                          " ranks (got " + std::to_string(options.hier.node_of_rank.size()) + ")");
  return HierarchyLayout(options.hier.node_of_rank, options.hier.group_of_rank);
}

CollectiveOptions with_tag(CollectiveOptions o, int offset) {
  o.tag += offset;
  return o;
}

}  // namespace

// The ring of one level and its reduce-scatter phase (with its scratch):
// tags tag + 2l (reduce-scatter) and tag + 2l + 1 (all-gather).
struct HierarchicalCollective::Level {
  Level(Transport& parent, std::vector<int> members, MemoryOps& memory, const CollectiveOptions& options, int level)
      : ring(parent, std::move(members)), gather_tag(options.tag + 2 * level + 1),
        reduce(ring, memory, with_tag(options, 2 * level)) {}
  SubTransport ring;
  int gather_tag;
  detail::RingReduceScatterPhase reduce;
};

HierarchicalCollective::HierarchicalCollective(CollectiveKind kind, Transport& transport, MemoryOps& memory,
                                               const CollectiveOptions& options)
    : kind_(kind), transport_(transport), memory_(memory), options_(options),
      layout_(layout_for(transport, options)), packed_(std::make_unique<detail::ScratchPool>()),
      piece_(std::make_unique<detail::ScratchPool>()) {
  if (kind != CollectiveKind::AllReduce && kind != CollectiveKind::ReduceScatter)
    throw InvalidArgument("the hier algorithm has no " + std::string(to_string(kind)));
  if (kind == CollectiveKind::ReduceScatter && !layout_.consecutive_ranks())
    throw InvalidArgument("hier reduce_scatter needs each unit of each level consecutive ranks (" +
                          layout_.describe() +
                          " with rank = c_0 + g_0 (c_1 + g_1 (...)), the ranks of a node in a row, the nodes of a "
                          "group in a row, ...); map the ranks by slot");
  const int rank = transport.rank();
  for (int l = 0; l < layout_.levels(); ++l)
    levels_.push_back(std::make_unique<Level>(transport, layout_.peers(rank, l), memory, options, l));
  pieces_.resize(static_cast<std::size_t>(layout_.levels()));
  // Place p of the regrouped input: p's digits by the level sizes, c_{L-1}
  // fastest, name the block of the rank c_0 + g_0 (c_1 + ...).
  for (int p = 0; p < layout_.ranks(); ++p) {
    int rest = p;
    int block = 0;
    int stride = 1;
    std::vector<int> digit(static_cast<std::size_t>(layout_.levels()));
    for (int l = layout_.levels() - 1; l >= 0; --l) {
      digit[static_cast<std::size_t>(l)] = rest % layout_.size(l);
      rest /= layout_.size(l);
    }
    for (int l = 0; l < layout_.levels(); ++l) {
      block += digit[static_cast<std::size_t>(l)] * stride;
      stride *= layout_.size(l);
    }
    packed_order_.push_back(block);
  }
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
  const ReduceOp reduce_op = op == ReduceOp::Avg ? ReduceOp::Sum : op;
  const int top = layout_.levels() - 1;
  auto* out = static_cast<std::byte*>(recv);
  // The pieces are read from the input until a level has reduced them into
  // the output, and from the output after.
  const auto* in = static_cast<const std::byte*>(send);
  Piece piece{0, count};
  // Up: each level leaves its sub-piece, summed over its unit, in place.
  for (int l = 0; l < top; ++l) {
    pieces_[static_cast<std::size_t>(l)] = piece;
    Level& level = *levels_[static_cast<std::size_t>(l)];
    if (level.ring.size() == 1) continue;
    level.reduce.run(in + piece.offset * es, out + piece.offset * es, nullptr, piece.count, type, reduce_op);
    in = out;
    const BlockPartition parts(piece.count, level.ring.size());
    piece = {piece.offset + parts.offset(level.ring.rank()), parts.size(level.ring.rank())};
  }
  // Top: the last piece summed over all ranks.
  pieces_[static_cast<std::size_t>(top)] = piece;
  Level& outer = *levels_[static_cast<std::size_t>(top)];
  if (outer.ring.size() > 1) {
    outer.reduce.run(in + piece.offset * es, out + piece.offset * es, nullptr, piece.count, type, reduce_op);
    ring_all_gather_in_place(outer.ring, out + piece.offset * es, piece.count, es, outer.gather_tag, options_.tracer);
  } else if (in != out) {
    // One rank: nothing moved.
    memory_.copy(out, in, count * es);
  }
  if (op == ReduceOp::Avg) memory_.divide(out + piece.offset * es, piece.count, type, transport_.size());
  // Down: every sub-piece to every rank of each level's ring.
  for (int l = top - 1; l >= 0; --l) {
    Level& level = *levels_[static_cast<std::size_t>(l)];
    if (level.ring.size() == 1) continue;
    const Piece& p = pieces_[static_cast<std::size_t>(l)];
    ring_all_gather_in_place(level.ring, out + p.offset * es, p.count, es, level.gather_tag, options_.tracer);
  }
}

void HierarchicalCollective::reduce_scatter(const void* send, void* recv, std::size_t count, DataType type,
                                            ReduceOp op) {
  const std::size_t es = size_of(type);
  const ReduceOp reduce_op = op == ReduceOp::Avg ? ReduceOp::Sum : op;
  const BlockPartition blocks(count, transport_.size());
  const std::size_t my_count = blocks.size(transport_.rank());
  const int working = layout_.working_levels();

  // 0. Regroup (c_0 slowest). With one level that moves data the order is
  // the ranks' own: none.
  const auto* piece = static_cast<const std::byte*>(send);
  std::byte* packed = nullptr;
  std::byte* scratch = nullptr;
  if (working > 1) {
    packed = static_cast<std::byte*>(packed_->get(memory_, count * es));
    std::size_t at = 0;
    for (const int b : packed_order_) {
      memory_.copy(packed + at * es, piece + blocks.offset(b) * es, blocks.size(b) * es);
      at += blocks.size(b);
    }
    piece = packed;
    int first = 0;
    while (layout_.size(first) == 1) ++first;
    scratch = static_cast<std::byte*>(piece_->get(memory_, BlockPartition(count, layout_.size(first)).max_size() * es));
  }
  // Each level: sub-piece c_l of the piece, summed over the level's unit;
  // the last one that moves data writes the rank's block. The pieces go
  // to the scratch and the regrouped input in turn (each level's input is
  // the previous level's output).
  std::size_t n = count;
  int done = 0;
  for (const auto& level : levels_) {
    if (level->ring.size() == 1) continue;
    ++done;
    const BlockPartition parts(n, level->ring.size());
    std::byte* target = done == working ? static_cast<std::byte*>(recv) : piece == scratch ? packed : scratch;
    level->reduce.run(piece, nullptr, target, n, type, reduce_op);
    piece = target;
    n = parts.size(level->ring.rank());
  }
  if (working == 0 && send != recv) memory_.copy(recv, send, my_count * es);
  if (op == ReduceOp::Avg) memory_.divide(recv, my_count, type, transport_.size());
}

}  // namespace shardroof::coll
