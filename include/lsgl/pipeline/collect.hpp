#pragma once
// `lsgl collect`: gathers the attributes of the graph files of a sweep (the output contract of
// `lsgl learn`: attributes of /graph and of /, the stored configuration as one column per
// option) into one CSV table, one row per task, and lists the tasks that failed or are missing.
//
// A task's number is the last group of digits in its file name ("sweep-1234-7.h5" -> 7), the
// SLURM array task id in the names written by jobs/sweep.sbatch. A task's log (--logs) tells its
// exit code through the last line "lsgl-job: exit code N" that jobs/learn.sbatch writes.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/util/monitor.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

struct CollectOptions {
  std::vector<std::string> outputs;  // graph files or glob patterns
  std::vector<std::string> logs;     // log files or glob patterns (optional)
  std::string table;                 // optional sweep table (CSV): its columns join by task
  std::string csv;                   // the CSV written (required)
  std::int64_t expect = -1;          // >= 0: tasks 0 .. expect-1 are expected
};

enum class TaskStatus { kOk, kFailed, kMissing, kUnreadable };
inline constexpr Named<TaskStatus> kTaskStatusNames[] = {{TaskStatus::kOk, "ok"},
                                                         {TaskStatus::kFailed, "failed"},
                                                         {TaskStatus::kMissing, "missing"},
                                                         {TaskStatus::kUnreadable, "unreadable"}};
constexpr const auto& names(TaskStatus) { return kTaskStatusNames; }

struct CollectTask {
  std::int64_t task = -1;  // -1: no number in the file name
  TaskStatus status = TaskStatus::kOk;
  int exit_code = -1;      // from the log; -1 when unknown
  std::string output, log, error;
};

struct CollectReport {
  std::vector<CollectTask> tasks;  // by task number, then file name
  std::int64_t ok = 0, failed = 0, missing = 0, unreadable = 0;
};

// Collective. Rank 0 reads every file (HDF5 with MPI_COMM_SELF), writes the CSV and reports the
// counts and the tasks that are not ok to `monitor` (summary lines, on rank 0 only); the other
// ranks wait. Throws CollectiveError on every rank when the CSV cannot be written, no pattern
// matches any file and nothing is expected, or the sweep table cannot be read. A task's
// unreadable output or failed run is a row of the table, not an error.
CollectReport run_collect(MPI_Comm comm, const CollectOptions& options,
                          Monitor& monitor = null_monitor());

}  // namespace lsgl
