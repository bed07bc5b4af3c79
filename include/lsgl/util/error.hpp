#pragma once
// Error types and the collective error check used everywhere a check may fail on only some ranks.
#include <mpi.h>

#include <new>
#include <stdexcept>
#include <string>

namespace lsgl {

// Raised identically on every rank of a communicator (through collective_check or after a
// collective decision), so the program can shut down cleanly without MPI_Abort.
class CollectiveError : public std::runtime_error {
 public:
  explicit CollectiveError(const std::string& what) : std::runtime_error(what) {}
};

// Raised on one rank only; main() turns it into MPI_Abort so that no rank is left waiting.
class LocalError : public std::runtime_error {
 public:
  explicit LocalError(const std::string& what) : std::runtime_error(what) {}
};

// Collective. Every rank passes its own verdict; if any rank has ok == false, every rank throws
// CollectiveError carrying the message of the lowest failing rank.
void collective_check(MPI_Comm comm, bool ok, const std::string& message);

// Collective. Runs fn(); if it throws on any rank, every rank throws CollectiveError with the
// message of the lowest failing rank. Use around local work (file parsing, allocation) that
// can fail on some ranks only.
template <class Fn>
void collectively(MPI_Comm comm, Fn&& fn) {
  bool ok = true;
  std::string message;
  try {
    fn();
  } catch (const std::bad_alloc&) {
    ok = false;
    message = "out of memory (an allocation failed)";
  } catch (const std::exception& e) {
    ok = false;
    message = e.what();
  }
  collective_check(comm, ok, message);
}

}  // namespace lsgl
