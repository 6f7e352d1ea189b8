// Open MPI: which coll/tuned rules apply to `--impl native`, read from the
// library itself (measure/native_library.h). Built only with Open MPI's
// headers (SHARDROOF_OPEN_MPI_TUNED); the version is checked again at run
// time, since the rules in model/open_mpi_tuned.h are 4.1.x's.
//
// Through MPI_T control variables (MPI 3.1; Open MPI exposes every MCA
// parameter as one, registered when MPI_Init opens the coll components):
//   coll                                the coll components selected ("^tuned" leaves it out)
//   coll_<name>_priority                 coll/tuned's and those that could take a
//                                        communicator's collectives before it
//   coll_tuned_use_dynamic_rules        forced algorithms and rules files apply only with it
//   coll_tuned_dynamic_rules_filename
//   coll_tuned_<op>_algorithm, _algorithm_segmentsize, _algorithm_tree_fanout,
//   _algorithm_chain_fanout, coll_tuned_bcast_algorithm_knomial_radix
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "measure/native_library.h"

namespace shardroof {
namespace {

using model::tuned::Operation;

// MPI_T's lifetime: initialized for the reads, finalized after them.
class ToolSession {
 public:
  ToolSession() {
    int provided = 0;
    ok_ = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
  }
  ~ToolSession() {
    if (ok_) MPI_T_finalize();
  }
  ToolSession(const ToolSession&) = delete;
  ToolSession& operator=(const ToolSession&) = delete;
  bool ok() const { return ok_; }

 private:
  bool ok_ = false;
};

// A control variable's handle, freed with it.
class CvarHandle {
 public:
  explicit CvarHandle(int index) {
    if (MPI_T_cvar_handle_alloc(index, nullptr, &handle_, &count_) != MPI_SUCCESS) handle_ = MPI_T_CVAR_HANDLE_NULL;
  }
  ~CvarHandle() {
    if (handle_ != MPI_T_CVAR_HANDLE_NULL) MPI_T_cvar_handle_free(&handle_);
  }
  CvarHandle(const CvarHandle&) = delete;
  CvarHandle& operator=(const CvarHandle&) = delete;
  bool ok() const { return handle_ != MPI_T_CVAR_HANDLE_NULL; }
  int count() const { return count_; }
  bool read(void* buf) { return MPI_T_cvar_read(handle_, buf) == MPI_SUCCESS; }

 private:
  MPI_T_cvar_handle handle_ = MPI_T_CVAR_HANDLE_NULL;
  int count_ = 0;
};

struct Cvar {
  bool found = false;
  long long number = 0;  // integers and booleans
  std::string text;      // strings
};

Cvar read_cvar(const std::string& name) {
  Cvar out;
  int index = -1;
  if (MPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS || index < 0) return out;
  char found_name[256];
  int name_len = sizeof found_name;
  int verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  char desc[8];
  int desc_len = sizeof desc;
  if (MPI_T_cvar_get_info(index, found_name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &bind,
                          &scope) != MPI_SUCCESS ||
      bind != MPI_T_BIND_NO_OBJECT)
    return out;
  CvarHandle handle(index);
  if (!handle.ok()) return out;
  if (type == MPI_CHAR) {
    // Open MPI copies the whole string (strcpy) whatever count it gave.
    std::vector<char> buf(static_cast<std::size_t>(std::max(handle.count(), 1)) + 65536, '\0');
    if (!handle.read(buf.data())) return out;
    out.text = buf.data();
  } else if (type == MPI_C_BOOL) {
    bool v = false;
    if (!handle.read(&v)) return out;
    out.number = v ? 1 : 0;
  } else if (type == MPI_INT || type == MPI_UNSIGNED || type == MPI_INT32_T || type == MPI_UINT32_T) {
    int v = 0;
    if (!handle.read(&v)) return out;
    out.number = v;
  } else {
    return out;
  }
  out.found = true;
  return out;
}

// "Open MPI v4.1.4, package: ..." -> {4, 1}; {0, 0} for another library.
std::pair<int, int> open_mpi_version(const std::string& line) {
  const std::string tag = "Open MPI v";
  const auto at = line.find(tag);
  if (at == std::string::npos) return {0, 0};
  int major = 0, minor = 0;
  if (std::sscanf(line.c_str() + at + tag.size(), "%d.%d", &major, &minor) != 2) return {0, 0};
  return {major, minor};
}

// Components that take a communicator's collectives ahead of coll/tuned
// when their priority is at least its own (coll/self takes single-rank
// communicators only; coll/basic and coll/libnbc rank below tuned by
// default and fill in what it lacks).
constexpr const char* kAboveTuned[] = {"han", "adapt", "hcoll", "ucc", "sm", "fca", "portals4", "ml", "xhc", "acoll"};

}  // namespace

model::NativeLibrary read_mpi_library() {
  model::NativeLibrary lib;
  lib.kind = model::NativeLibrary::Kind::OpenMpiTuned;
  lib.name = mpi_library_version();
  const auto [major, minor] = open_mpi_version(lib.name);
  if (major == 0) {
    lib.kind = model::NativeLibrary::Kind::Other;
    lib.unknown = fmt::format("{}: built with Open MPI's headers, running another library", lib.name);
    return lib;
  }
  if (major != 4 || minor != 1) {
    lib.unknown = fmt::format("Open MPI v{}.{}: the fixed rules known here are v4.1.x's", major, minor);
    return lib;
  }
  const ToolSession tool;
  if (!tool.ok()) {
    lib.unknown = "MPI_T could not be initialized, so coll/tuned's parameters cannot be read";
    return lib;
  }
  const Cvar selection = read_cvar("coll");
  if (selection.found && !selection.text.empty() &&
      (selection.text[0] == '^' ? selection.text.find("tuned") != std::string::npos
                                : selection.text.find("tuned") == std::string::npos)) {
    lib.unknown = fmt::format("coll components \"{}\" leave coll/tuned out", selection.text);
    return lib;
  }
  const Cvar tuned_priority = read_cvar("coll_tuned_priority");
  if (!tuned_priority.found) {
    lib.unknown = "coll/tuned is not loaded (no coll_tuned_priority)";
    return lib;
  }
  for (const char* other : kAboveTuned) {
    const Cvar p = read_cvar(fmt::format("coll_{}_priority", other));
    if (p.found && p.number >= tuned_priority.number) {
      lib.unknown = fmt::format("coll/{} has priority {} (coll/tuned {}), so it may take the collectives", other,
                                p.number, tuned_priority.number);
      return lib;
    }
  }
  model::tuned::Settings& s = lib.tuned;
  s.dynamic_rules = read_cvar("coll_tuned_use_dynamic_rules").number != 0;
  s.rules_file = read_cvar("coll_tuned_dynamic_rules_filename").text;
  if (const Cvar r = read_cvar("coll_tuned_bcast_algorithm_knomial_radix"); r.found) s.knomial_radix = static_cast<int>(r.number);
  for (const Operation op : {Operation::Allreduce, Operation::ReduceScatter, Operation::ReduceScatterBlock,
                             Operation::Allgather, Operation::Allgatherv, Operation::Bcast, Operation::Alltoall,
                             Operation::Alltoallv, Operation::Reduce, Operation::Scatter}) {
    const std::string base = fmt::format("coll_tuned_{}_algorithm", model::tuned::mca_name(op));
    model::tuned::Forced f;
    f.algorithm = static_cast<int>(read_cvar(base).number);
    if (const Cvar v = read_cvar(base + "_segmentsize"); v.found) f.segment_bytes = static_cast<int>(v.number);
    if (const Cvar v = read_cvar(base + "_tree_fanout"); v.found) f.tree_fanout = static_cast<int>(v.number);
    if (const Cvar v = read_cvar(base + "_chain_fanout"); v.found) f.chain_fanout = static_cast<int>(v.number);
    s.forced[op] = f;
  }
  return lib;
}

}  // namespace shardroof
