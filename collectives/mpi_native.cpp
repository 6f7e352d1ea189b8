#include "collectives/mpi_native.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/blocks.h"
#include "collectives/error.h"
#include "collectives/memory.h"
#include "collectives/mpi_transport.h"

namespace shardroof::coll {
namespace {

MPI_Datatype mpi_type(DataType t) {
  switch (t) {
    case DataType::Float: return MPI_FLOAT;
    case DataType::Double: return MPI_DOUBLE;
    case DataType::Int32: return MPI_INT32_T;
    case DataType::BFloat16:
    case DataType::Half: return MPI_UINT16_T;
  }
  return MPI_DATATYPE_NULL;
}

template <DataType T, ReduceOp O>
void user_reduce(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  host_reduce(inout, in, inout, static_cast<std::size_t>(*len), T, O);
}

}  // namespace

// User-defined MPI operators for the 16-bit float types (MPI has none),
// created once per collective and freed with it.
class MpiNativeCollective::Ops {
 public:
  Ops() {
    create<DataType::BFloat16>(0);
    create<DataType::Half>(1);
  }
  ~Ops() {
    for (auto& row : ops_)
      for (auto& op : row)
        if (op != MPI_OP_NULL) MPI_Op_free(&op);
  }
  Ops(const Ops&) = delete;
  Ops& operator=(const Ops&) = delete;

  MPI_Op get(DataType t, ReduceOp op) const {
    const int row = t == DataType::BFloat16 ? 0 : 1;
    return ops_[row][index(op)];
  }

 private:
  static int index(ReduceOp op) {
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg: return 0;
      case ReduceOp::Prod: return 1;
      case ReduceOp::Max: return 2;
      case ReduceOp::Min: return 3;
    }
    return 0;
  }
  template <DataType T>
  void create(int row) {
    SHARDROOF_MPI_CHECK(MPI_Op_create(&user_reduce<T, ReduceOp::Sum>, 1, &ops_[row][0]));
    SHARDROOF_MPI_CHECK(MPI_Op_create(&user_reduce<T, ReduceOp::Prod>, 1, &ops_[row][1]));
    SHARDROOF_MPI_CHECK(MPI_Op_create(&user_reduce<T, ReduceOp::Max>, 1, &ops_[row][2]));
    SHARDROOF_MPI_CHECK(MPI_Op_create(&user_reduce<T, ReduceOp::Min>, 1, &ops_[row][3]));
  }
  MPI_Op ops_[2][4] = {{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL},
                       {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL}};
};

MpiNativeCollective::MpiNativeCollective(CollectiveKind kind, MPI_Comm comm, int root)
    : kind_(kind), comm_(comm), root_(root), ops_(std::make_unique<Ops>()) {
  SHARDROOF_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  SHARDROOF_MPI_CHECK(MPI_Comm_size(comm_, &size_));
}

MpiNativeCollective::~MpiNativeCollective() = default;

void MpiNativeCollective::run(const void* send, void* recv, std::size_t count, DataType type,
                              ReduceOp op) {
  const MPI_Datatype dt = mpi_type(type);
  MPI_Op mop = MPI_SUM;
  if (type == DataType::BFloat16 || type == DataType::Half) {
    mop = ops_->get(type, op);
  } else {
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg: mop = MPI_SUM; break;
      case ReduceOp::Prod: mop = MPI_PROD; break;
      case ReduceOp::Max: mop = MPI_MAX; break;
      case ReduceOp::Min: mop = MPI_MIN; break;
    }
  }
  const std::size_t es = size_of(type);
  const BlockPartition part(count, size_);
  const auto as_int = [](std::size_t n, const char* what) {
    if (n > static_cast<std::size_t>(INT_MAX))
      throw InvalidArgument(std::string("native MPI ") + what + ": a block of " + std::to_string(n) +
                            " elements exceeds MPI's int count; use --impl ring");
    return static_cast<int>(n);
  };

  // Calls with int counts are issued in pieces of at most this many elements.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  switch (kind_) {
    case CollectiveKind::AllReduce: {
      const bool in_place = send == recv;
      std::size_t off = 0;
      do {
        const std::size_t n = std::min(kPiece, count - off);
        auto* r = static_cast<std::byte*>(recv) + off * es;
        const void* s = in_place ? MPI_IN_PLACE : static_cast<const std::byte*>(send) + off * es;
        SHARDROOF_MPI_CHECK(MPI_Allreduce(s, r, static_cast<int>(n), dt, mop, comm_));
        off += n;
      } while (off < count);
      if (op == ReduceOp::Avg) host_divide(recv, count, type, size_);
      return;
    }
    case CollectiveKind::ReduceScatter: {
      const std::size_t mine = part.size(rank_);
      const auto* sbase = static_cast<const std::byte*>(send);
      const bool in_place = recv == sbase + part.offset(rank_) * es;
      void* sendbuf = const_cast<void*>(send);
      void* out = recv;
      if (in_place) {
        // MPI_IN_PLACE takes the input from recvbuf and puts the result at its
        // start; it is moved to this rank's block afterwards.
        out = sendbuf;
        sendbuf = MPI_IN_PLACE;
      }
      if (count % static_cast<std::size_t>(size_) == 0) {
        SHARDROOF_MPI_CHECK(MPI_Reduce_scatter_block(sendbuf, out, as_int(mine, "reduce_scatter"), dt, mop, comm_));
      } else {
        std::vector<int> counts(static_cast<std::size_t>(size_));
        for (int i = 0; i < size_; ++i) counts[static_cast<std::size_t>(i)] = as_int(part.size(i), "reduce_scatter");
        SHARDROOF_MPI_CHECK(MPI_Reduce_scatter(sendbuf, out, counts.data(), dt, mop, comm_));
      }
      if (in_place && out != recv && mine > 0) std::memmove(recv, out, mine * es);
      if (op == ReduceOp::Avg) host_divide(recv, mine, type, size_);
      return;
    }
    case CollectiveKind::AllGather: {
      auto* rbase = static_cast<std::byte*>(recv);
      const bool in_place = send == rbase + part.offset(rank_) * es;
      const void* sendbuf = in_place ? MPI_IN_PLACE : send;
      if (count % static_cast<std::size_t>(size_) == 0) {
        const int n = as_int(part.size(0) * es, "all_gather");
        SHARDROOF_MPI_CHECK(MPI_Allgather(sendbuf, n, MPI_BYTE, recv, n, MPI_BYTE, comm_));
      } else {
        std::vector<int> counts(static_cast<std::size_t>(size_)), displs(static_cast<std::size_t>(size_));
        for (int i = 0; i < size_; ++i) {
          counts[static_cast<std::size_t>(i)] = as_int(part.size(i) * es, "all_gather");
          displs[static_cast<std::size_t>(i)] = as_int(part.offset(i) * es, "all_gather");
        }
        SHARDROOF_MPI_CHECK(MPI_Allgatherv(sendbuf, counts[static_cast<std::size_t>(rank_)], MPI_BYTE,
                                           recv, counts.data(), displs.data(), MPI_BYTE, comm_));
      }
      return;
    }
    case CollectiveKind::Broadcast: {
      if (root_ < 0 || root_ >= size_)
        throw InvalidArgument("native MPI broadcast: root " + std::to_string(root_) + " is not a rank");
      if (rank_ == root_ && send != recv) std::memcpy(recv, send, count * es);
      std::size_t off = 0;
      while (off < count) {
        const std::size_t n = std::min(kPiece, count - off);
        SHARDROOF_MPI_CHECK(MPI_Bcast(static_cast<std::byte*>(recv) + off * es, static_cast<int>(n), dt, root_, comm_));
        off += n;
      }
      return;
    }
    case CollectiveKind::AllToAll: {
      const std::size_t mine = part.size(rank_);
      if (count % static_cast<std::size_t>(size_) == 0) {
        const int n = as_int(mine, "all_to_all");
        SHARDROOF_MPI_CHECK(MPI_Alltoall(send == recv ? MPI_IN_PLACE : send, n, dt, recv, n, dt, comm_));
        return;
      }
      const void* in = send;
      if (send == recv) {
        input_copy_.resize(count * es);
        std::memcpy(input_copy_.data(), send, count * es);
        in = input_copy_.data();
      }
      const auto ranks = static_cast<std::size_t>(size_);
      std::vector<int> send_counts(ranks), send_displs(ranks), recv_counts(ranks), recv_displs(ranks);
      for (int i = 0; i < size_; ++i) {
        const auto k = static_cast<std::size_t>(i);
        send_counts[k] = as_int(part.size(i), "all_to_all");
        send_displs[k] = as_int(part.offset(i), "all_to_all");
        recv_counts[k] = as_int(mine, "all_to_all");
        recv_displs[k] = as_int(k * mine, "all_to_all");
      }
      SHARDROOF_MPI_CHECK(MPI_Alltoallv(in, send_counts.data(), send_displs.data(), dt, recv, recv_counts.data(),
                                        recv_displs.data(), dt, comm_));
      return;
    }
  }
}

}  // namespace shardroof::coll
