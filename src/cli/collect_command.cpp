// `lsgl collect`: options -> pipeline.
#include "commands_impl.hpp"
#include "lsgl/pipeline/collect.hpp"
#include "options.hpp"
#include "printing_monitor.hpp"

namespace lsgl::cli {

int collect_command(MPI_Comm comm, const std::vector<std::string>& args) {
  CollectOptions o;
  bool quiet = false;
  OptionGroups g(
      "usage: lsgl collect --outputs 'DIR/sweep-ID-*.h5' [--logs 'DIR/sweep-ID-*.log'] "
      "--csv OUT.csv\n                    [--expect N | --table configs/sweep.csv]\n"
      "\nGathers the attributes of the graph files of a sweep (attributes of /graph "
      "and /, and the\nstored configuration as config.<option> columns) into one CSV "
      "row per task. A task's number\nis the last group of digits in its file name (the "
      "array task id of jobs/sweep.sbatch).\nFailed tasks (a log ending in a non-zero "
      "exit code), missing ones (expected but without an\noutput) and unreadable files "
      "are rows too, listed on the terminal. Exit code 0 when every\ntask is ok, 2 when "
      "some failed or are missing (the table is written either way).\n");
  g.group("collect", "Options").add_options()
      ("outputs", po::value(&o.outputs)->multitoken(),
       "graph files of the sweep, or quoted glob patterns ('sweep-1234-*.h5'); repeatable")
      ("logs", po::value(&o.logs)->multitoken(),
       "the tasks' logs, or quoted glob patterns ('sweep-1234-*.log'): a task whose last "
       "'lsgl-job: exit code N' line has N != 0 is listed as failed")
      ("csv", po::value(&o.csv), "the CSV table written (one row per task)")
      ("expect", po::value(&o.expect)->default_value(-1),
       "tasks 0 .. N-1 are expected: those without an output are listed as missing")
      ("table", po::value(&o.table),
       "the sweep table (CSV) the tasks ran: its rows are expected tasks and its columns are "
       "joined to the rows as sweep.<column>")
      ("quiet", flag(&quiet), "print nothing but errors");
  const Parsed p = parse(comm, args, g);
  if (p.help) {
    print_help(comm, g, p);
    return 0;
  }
  const CollectReport r = run_collect(
      comm, o, *make_printing_monitor(comm, quiet ? Verbosity::kNothing : Verbosity::kAll));
  return r.failed + r.missing + r.unreadable == 0 ? 0 : 2;
}

}  // namespace lsgl::cli
