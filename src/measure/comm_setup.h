// The communication stack a benchmark runs on: the transport, the memory
// operations for its buffers, and the factory that builds a collective by
// kind and implementation ("ring" = ours, "native" = the library's own).
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
#include "collectives/ring_options.h"
#include "collectives/transport.h"
#include "collectives/tuning.h"
#include "measure/comm_kinds.h"

namespace shardroof {

// The algorithm of ours an Impl other than Native names.
coll::Algorithm own_algorithm(Impl impl);

class CommSetup {
 public:
  virtual ~CommSetup() = default;
  virtual coll::Transport& transport() = 0;
  virtual coll::MemoryOps& memory() = 0;
  // Builds a collective; throws UsageError if this setup cannot provide it.
  virtual std::unique_ptr<coll::Collective> make(coll::CollectiveKind kind, Impl impl,
                                                 const coll::RingOptions& ring) = 0;
  // Human-readable name of what `impl` runs on this setup, e.g. "ring/mpi".
  virtual std::string describe(Impl impl) const = 0;

  // The tuning table `auto` chooses by. Until one is set: the built-in
  // table (measure/tuning_file.h) less the rules measured over another
  // transport or memory space.
  void set_tuning(std::shared_ptr<const coll::TuningTable> table) { tuning_ = std::move(table); }
  const coll::TuningTable& tuning();

 protected:
  // `auto` on this setup: our algorithms `own` and the library's collective
  // (`native`), chosen among by tuning().
  std::unique_ptr<coll::Collective> make_auto(coll::CollectiveKind kind, const coll::RingOptions& ring,
                                              const std::vector<coll::Algorithm>& own, coll::NativeFactory native);

 private:
  std::shared_ptr<const coll::TuningTable> tuning_;
};

// Host buffers over MPI point-to-point (ring) or MPI's own collectives (native).
std::unique_ptr<CommSetup> make_host_mpi_setup(MPI_Comm comm);

// The setup for a backend and transport; throws UsageError for combinations
// this build cannot run.
std::unique_ptr<CommSetup> make_comm_setup(Backend backend, TransportKind transport, MPI_Comm comm);

}  // namespace shardroof
