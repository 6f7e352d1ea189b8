#include "collectives/cuda/nccl_native.h"

#include <string>

#include "collectives/blocks.h"
#include "collectives/error.h"

namespace shardroof::coll {
namespace {

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::Float: return ncclFloat32;
    case DataType::Double: return ncclFloat64;
    case DataType::BFloat16: return ncclBfloat16;
    case DataType::Half: return ncclFloat16;
    case DataType::Int32: return ncclInt32;
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return ncclSum;
    case ReduceOp::Prod: return ncclProd;
    case ReduceOp::Max: return ncclMax;
    case ReduceOp::Min: return ncclMin;
  }
  return ncclSum;
}

}  // namespace

NcclNativeCollective::NcclNativeCollective(CollectiveKind kind, NcclComm& comm, CudaMemoryOps& memory, int root)
    : kind_(kind), comm_(comm), memory_(memory), root_(root) {}

void NcclNativeCollective::run(const void* send, void* recv, std::size_t count, DataType type,
                               ReduceOp op) {
  const int n = comm_.size();
  const int rank = comm_.rank();
  const cudaStream_t stream = memory_.stream();
  const ncclComm_t c = comm_.get();
  const ncclDataType_t dt = nccl_type(type);
  const ncclRedOp_t rop = nccl_op(op);
  const std::size_t es = size_of(type);
  const BlockPartition part(count, n);
  const bool even = count % static_cast<std::size_t>(n) == 0;

  switch (kind_) {
    case CollectiveKind::AllReduce:
      SHARDROOF_NCCL_COMM_CHECK(comm_, ncclAllReduce(send, recv, count, dt, rop, c, stream));
      if (op == ReduceOp::Avg) memory_.divide(recv, count, type, n);
      break;
    case CollectiveKind::ReduceScatter:
      if (even) {
        SHARDROOF_NCCL_COMM_CHECK(comm_, ncclReduceScatter(send, recv, part.size(rank), dt, rop, c, stream));
      } else {
        const auto* in = static_cast<const std::byte*>(send);
        SHARDROOF_NCCL_COMM_CHECK(comm_, ncclGroupStart());
        for (int b = 0; b < n; ++b) {
          if (part.size(b) == 0) continue;  // every rank skips the same empty blocks
          SHARDROOF_NCCL_COMM_CHECK(comm_, ncclReduce(in + part.offset(b) * es, b == rank ? recv : nullptr,
                                                      part.size(b), dt, rop, b, c, stream));
        }
        SHARDROOF_NCCL_COMM_CHECK(comm_, ncclGroupEnd());
      }
      if (op == ReduceOp::Avg) memory_.divide(recv, part.size(rank), type, n);
      break;
    case CollectiveKind::AllGather:
      if (even) {
        SHARDROOF_NCCL_COMM_CHECK(comm_, ncclAllGather(send, recv, part.size(rank), dt, c, stream));
      } else {
        auto* out = static_cast<std::byte*>(recv);
        SHARDROOF_NCCL_COMM_CHECK(comm_, ncclGroupStart());
        for (int b = 0; b < n; ++b) {
          if (part.size(b) == 0) continue;
          SHARDROOF_NCCL_COMM_CHECK(comm_, ncclBroadcast(b == rank ? send : nullptr, out + part.offset(b) * es,
                                                         part.size(b), dt, b, c, stream));
        }
        SHARDROOF_NCCL_COMM_CHECK(comm_, ncclGroupEnd());
      }
      break;
    case CollectiveKind::Broadcast:
      if (root_ < 0 || root_ >= n)
        throw InvalidArgument("native NCCL broadcast: root " + std::to_string(root_) + " is not a rank");
      SHARDROOF_NCCL_COMM_CHECK(comm_, ncclBroadcast(send, recv, count, dt, root_, c, stream));
      break;
    case CollectiveKind::AllToAll: {
      const auto* in = static_cast<const std::byte*>(send);
      auto* out = static_cast<std::byte*>(recv);
      const std::size_t mine = part.size(rank);
      if (send == recv && count > 0) {
        if (!input_copy_ || input_copy_->bytes() < count * es) input_copy_ = memory_.allocate(count * es);
        memory_.copy(input_copy_->data(), send, count * es);
        in = static_cast<const std::byte*>(input_copy_->data());
      }
      SHARDROOF_NCCL_COMM_CHECK(comm_, ncclGroupStart());
      for (int p = 0; p < n; ++p) {
        const std::size_t slot = static_cast<std::size_t>(p) * mine * es;
        // Both sides skip the empty blocks alike (a block's size is its receiver's).
        if (part.size(p) > 0)
          SHARDROOF_NCCL_COMM_CHECK(comm_, ncclSend(in + part.offset(p) * es, part.size(p), dt, p, c, stream));
        if (mine > 0) SHARDROOF_NCCL_COMM_CHECK(comm_, ncclRecv(out + slot, mine, dt, p, c, stream));
      }
      SHARDROOF_NCCL_COMM_CHECK(comm_, ncclGroupEnd());
      break;
    }
  }
  memory_.synchronize();
}

}  // namespace shardroof::coll
