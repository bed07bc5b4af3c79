#pragma once
// How long computations report, after PETSc's KSPMonitor: the library calls a Monitor where the
// command line used to print (a phase ended, part of a long phase is done, an iteration ended, a
// line of information, a summary line, a warning), and the caller decides what becomes of the
// reports. The command line prints them on rank 0 (src/cli/printing_monitor.hpp) exactly as lsgl
// always printed; a binding may forward them to a logger or a callback; null_monitor(), the
// default of every library call, drops them. Nothing below the pipelines writes to stdout or
// stderr: it reports here or throws.
//
// Every rank calls its monitor with the same reports (collective results), except progress,
// which rank 0 reports for its own share of a long phase, and `lsgl collect`, which reads its
// files on rank 0 and reports there. A monitor must not call MPI or throw.
//
// stop_requested() lets a monitor stop an iteration (e.g. on Ctrl-C in an interpreter): the log
// model's solvers poll it on every rank once per iteration, before the iteration's all-reduce,
// and fold it into that all-reduce together with the signal flag (SolverParams::interrupt,
// util/interrupt.hpp), so that every rank stops after the same iteration, with a checkpoint when
// one was asked for.
#include <cstdint>
#include <string>

namespace lsgl {

// A named phase ended, after `seconds` of wall time (the same on every rank).
struct PhaseReport {
  const char* name = "";
  double seconds = 0.0;
  std::int64_t peak_rss_max = 0;  // bytes: the largest peak resident memory of a rank so far
};

// Part of a long phase is done. done == 0 starts a count.
struct ProgressReport {
  const char* phase = "";  // e.g. "candidates"
  const char* what = "";   // what is counted, e.g. "own queries searched"
  std::int64_t done = 0;
  std::int64_t total = 0;
  double seconds = 0.0;  // since the count started
};

// An iteration of a solver ended (the same on every rank).
struct IterationReport {
  const char* solver = "";       // e.g. "fdpg"
  int iteration = 0;             // counted from the start of the solve (across a resume)
  const char* primal_name = "";  // what `primal` measures, e.g. "rel. change primal"
  double primal = 0.0;
  double dual = 0.0;               // the relative change of the dual variables
  const char* dual_name = "dual";  // "" when the solver has no dual variables
};

enum class MessageKind {
  kInfo,     // what a run found or chose: n and d, theta, each solve of a degree search, ...
  kSummary,  // the lines of a command's summary (a summary line may itself be a warning)
  kWarning,  // something the user should act on before the results are read
};

class Monitor {
 public:
  virtual ~Monitor() = default;
  virtual void phase(const PhaseReport&) {}
  virtual void progress(const ProgressReport&) {}
  virtual void iteration(const IterationReport&) {}
  // One line of text (no trailing newline; it may hold several lines).
  virtual void message(MessageKind, const std::string&) {}
  // Polled once per iteration on every rank; true on any rank stops the iteration on all.
  virtual bool stop_requested() { return false; }
};

// The monitor that drops every report and never asks to stop.
Monitor& null_monitor();

}  // namespace lsgl
