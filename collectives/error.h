// Errors raised by the collectives library. Callers catch them as
// std::runtime_error; the type says which layer failed.
#pragma once

#include <stdexcept>
#include <string>

namespace shardroof::coll {

class CollectiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A transport or library call failed (MPI, NCCL, CUDA).
class TransportError : public CollectiveError {
 public:
  using CollectiveError::CollectiveError;
};

// The caller asked for something the collective cannot do.
class InvalidArgument : public CollectiveError {
 public:
  using CollectiveError::CollectiveError;
};

}  // namespace shardroof::coll
