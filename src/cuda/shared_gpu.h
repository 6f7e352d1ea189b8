// Several ranks on one GPU over NCCL (SHARDROOF_ALLOW_SHARED_GPU=1 with
// fewer GPUs than ranks on a node).
//
// NCCL refuses two ranks of a communicator on one device of one host
// ("Duplicate GPU detected": same host hash, same bus id). Its host hash is
// made from NCCL_HOSTID where that is set (read once per process, at the
// first use), else from the host name and boot id. So ranks that share a
// GPU are given distinct host ids: node-local rank r uses GPU r % G, and
// the ranks of one round r / G are one "host" (distinct GPUs: NCCL's P2P
// and shared-memory transports as usual), while ranks of different rounds
// look like separate hosts, between which NCCL moves data over its network
// transport (sockets; InfiniBand where present). The NCCL ring then runs
// with several ranks on one GPU, but its transfers pass through host
// memory and the network stack: a functional check and a lower bound, not
// what a link between distinct GPUs carries.
#pragma once

#include <string>

#include "cuda/cuda_context.h"

namespace shardroof {

// Whether ranks of this node share GPUs (more ranks than visible GPUs).
bool ranks_share_gpus(const DeviceChoice& device);

// The id for node-local rank `local_rank` of a node with `device_count`
// GPUs: "<host>:<boot id>:shared-gpu-round-<local_rank / device_count>".
std::string shared_gpu_host_id(const std::string& host, const std::string& boot_id, int local_rank,
                               int device_count);

// Before this process's first NCCL call: when ranks share GPUs and
// NCCL_HOSTID is not set, sets it to shared_gpu_host_id(...) and returns
// it; otherwise returns "" and leaves the environment alone (a user's own
// NCCL_HOSTID is kept).
std::string set_shared_gpu_host_id(const DeviceChoice& device);

}  // namespace shardroof
