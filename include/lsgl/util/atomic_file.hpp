#pragma once
// Output files: every writer goes through write_atomically. Rank 0 creates a temporary file of a
// name no other run can hold (PATH.partial.<pid>.<random>, created with O_CREAT | O_EXCL), the
// write goes there, and the rename onto PATH is the commit point. So two runs writing one output
// never touch each other's temporary file, PATH is always one complete run's output, and a run
// only ever removes the temporary file it created itself. A path checked by check_writable at
// the start of a run is only replaced if it still holds what it held then (or what this run
// wrote there since, or nothing): of two runs writing one output, the first to finish wins and the
// other fails with a clear message, so exit code 0 means the output is this run's.
#include <mpi.h>

#include <functional>
#include <string>

namespace lsgl {

// "PATH.partial": the prefix of every temporary name used for PATH.
std::string temporary_name(const std::string& path);

// Local. Creates a new empty file PATH.partial.<pid>.<random> exclusively and returns its name;
// throws std::runtime_error when that is impossible (missing or read-only directory, ...).
std::string create_unique_temporary(const std::string& path);

// Collective. Fails with a clear CollectiveError early if `path` cannot be created (missing or
// read-only directory) or exists and is not a regular file (a device, a directory). The probe
// is a uniquely named file of this run, removed at once; nothing else is touched. Records what
// is at `path` now, for the commit of write_atomically (see above).
void check_writable(MPI_Comm comm, const std::string& path);

struct AtomicWriteOptions {
  // Before the commit, an existing PATH is kept as the hard link PATH.prev (checkpoints).
  bool keep_previous = false;
};

// Collective. Rank 0 creates the unique temporary file and broadcasts its name; write(tmp) runs
// on every rank (it may open `tmp` with truncation, collectively or on rank 0 only; an exception
// on any rank fails every rank); then rank 0 renames `tmp` to `path`, under an flock of the
// directory, unless another run replaced `path` since check_writable. On any failure the
// temporary file is removed and every rank throws CollectiveError.
void write_atomically(MPI_Comm comm, const std::string& path,
                      const std::function<void(const std::string& tmp)>& write,
                      const AtomicWriteOptions& options = {});

// Local. The same for a writer that runs on one process only (no communicator); throws
// std::runtime_error.
void write_atomically_local(const std::string& path,
                            const std::function<void(const std::string& tmp)>& write);

// Local. Writes `text` to `path` with fopen/fwrite/fclose, throwing std::runtime_error naming
// `what` (the final file) on any error.
void write_text(const std::string& path, const std::string& text, const std::string& what);

}  // namespace lsgl
