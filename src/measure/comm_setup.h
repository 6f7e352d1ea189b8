// The communication stack a benchmark runs on: the transport, the memory
// operations for its buffers, and the factory that builds a collective by
// kind and implementation (coll::Algorithm: ours, auto, or native, the
// library's own).
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/algorithms.h"
#include "collectives/collective.h"
#include "collectives/memory.h"
#include "collectives/collective_options.h"
#include "collectives/transport.h"
#include "collectives/tuning.h"
#include "util/comm_kinds.h"

namespace shardroof {

class CommSetup {
 public:
  virtual ~CommSetup() = default;
  virtual coll::Transport& transport() = 0;
  virtual coll::MemoryOps& memory() = 0;
  // Builds a collective: ours (throws UsageError where this setup cannot
  // run it, or it has no such collective), auto over coll::auto_candidates
  // and native, or native, the library's own.
  std::unique_ptr<coll::Collective> make(coll::CollectiveKind kind, coll::Algorithm algorithm,
                                         const coll::CollectiveOptions& ring);
  // The same, for a thread that runs beside this rank's own compute (the
  // overlapped step's communication thread): ours wait on a transport whose
  // waits sleep (coll::WaitPolicy::Sleep) where this setup has one, so the
  // GEMM keeps its core; the library's own collective waits as the library
  // does.
  std::unique_ptr<coll::Collective> make_beside_compute(coll::CollectiveKind kind, coll::Algorithm algorithm,
                                                        const coll::CollectiveOptions& ring);
  // Human-readable name of what `algorithm` runs on this setup, e.g. "ring/mpi".
  virtual std::string describe(coll::Algorithm algorithm) const = 0;

  // The tuning table `auto` chooses by. make_comm_setup
  // (commands/backends.h) sets the built-in one; until one is set, a table
  // without rules (auto runs native, else its first candidate).
  void set_tuning(std::shared_ptr<const coll::TuningTable> table) { tuning_ = std::move(table); }
  const coll::TuningTable& tuning() const;

 protected:
  // The library's own collective on this setup's communicator.
  virtual std::unique_ptr<coll::Collective> make_native(coll::CollectiveKind kind, const coll::CollectiveOptions& ring) = 0;
  // Whether the transport matches messages by tag (NCCL does not: our
  // algorithms that keep two tags in flight cannot run over it).
  virtual bool tag_matching() const { return true; }
  // The transport make_beside_compute builds on (null: transport()).
  virtual coll::Transport* beside_compute_transport() { return nullptr; }

 private:
  std::unique_ptr<coll::Collective> make_on(coll::Transport& transport, coll::CollectiveKind kind,
                                            coll::Algorithm algorithm, const coll::CollectiveOptions& ring);
  std::shared_ptr<const coll::TuningTable> tuning_;
};

// Host buffers over MPI point-to-point (ring) or MPI's own collectives
// (native). make_comm_setup (commands/backends.h) picks it or the GPU's.
std::unique_ptr<CommSetup> make_host_mpi_setup(MPI_Comm comm);

}  // namespace shardroof
