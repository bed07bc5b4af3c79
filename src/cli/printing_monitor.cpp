#include "printing_monitor.hpp"

#include <cstdio>

namespace lsgl::cli {

namespace {

constexpr double kProgressSeconds = 10.0;  // at most one progress line this often

class PrintingMonitor : public Monitor {
 public:
  PrintingMonitor(Verbosity verbosity, int progress_every)
      : verbosity_(verbosity), progress_every_(progress_every) {}

  void phase(const PhaseReport& r) override {
    if (verbosity_ != Verbosity::kAll) return;
    std::printf("[%-10s] %8.2f s   peak memory so far %8.1f MB per rank\n", r.name, r.seconds,
                static_cast<double>(r.peak_rss_max) / 1e6);
    std::fflush(stdout);
  }

  void progress(const ProgressReport& r) override {
    if (r.done == 0) last_ = 0.0;  // a new count
    if (verbosity_ != Verbosity::kAll || r.total <= 0 || r.seconds - last_ < kProgressSeconds)
      return;
    last_ = r.seconds;
    std::printf("[%s] %3.0f%% of %s (%.0f s)\n", r.phase,
                100.0 * static_cast<double>(r.done) / static_cast<double>(r.total), r.what,
                r.seconds);
    std::fflush(stdout);
  }

  void iteration(const IterationReport& r) override {
    if (verbosity_ != Verbosity::kAll || progress_every_ <= 0 || r.iteration % progress_every_)
      return;
    if (*r.dual_name)
      std::printf("  iteration %5d   %s %.3e  %s %.3e\n", r.iteration, r.primal_name, r.primal,
                  r.dual_name, r.dual);
    else
      std::printf("  iteration %5d   %s %.3e\n", r.iteration, r.primal_name, r.primal);
    std::fflush(stdout);
  }

  void message(MessageKind kind, const std::string& text) override {
    if (kind == MessageKind::kWarning) {
      std::fprintf(stderr, "lsgl: warning: %s\n", text.c_str());
      std::fflush(stderr);
      return;
    }
    const bool shown = verbosity_ == Verbosity::kAll ||
                       (verbosity_ == Verbosity::kSummary && kind == MessageKind::kSummary);
    if (!shown) return;
    std::printf("%s\n", text.c_str());
    std::fflush(stdout);
  }

 private:
  Verbosity verbosity_;
  int progress_every_;
  double last_ = 0.0;  // seconds of the last progress line of the current count
};

}  // namespace

std::unique_ptr<Monitor> make_printing_monitor(MPI_Comm comm, Verbosity verbosity,
                                               int progress_every) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return std::make_unique<Monitor>();
  return std::make_unique<PrintingMonitor>(verbosity, progress_every);
}

}  // namespace lsgl::cli
