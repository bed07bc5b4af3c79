#include "lsgl/pipeline/convert.hpp"

#include <cstdio>
#include <stdexcept>

#include "lsgl/graph/graph_export.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/phase.hpp"
#include "lsgl/util/version.hpp"

namespace lsgl {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void write_hdf5(MPI_Comm comm, const ConvertOptions& o, const LocalCsr& rows,
                const GraphInputReport& input) {
  const Attributes graph_attrs = {{"model", std::string("converted")},
                                  {"input_format", input.format},
                                  {"input_note", input.note()}};
  const Attributes file_attrs = {{"lsgl_version", std::string(version())},
                                 {"git_commit", std::string(git_commit())},
                                 {"command_line", o.command_line},
                                 {"configuration", o.configuration},
                                 {"ranks", static_cast<std::int64_t>(comm_size(comm))},
                                 {"utc_time", utc_now()},
                                 {"input", o.graph}};
  write_graph(comm, o.output, rows, graph_attrs, file_attrs);
}

}  // namespace

std::string convert_target(const std::string& to, const std::string& output) {
  if (!to.empty() && to != "mtx" && to != "edgelist" && to != "npz" && to != "hdf5")
    throw std::invalid_argument("unknown --to '" + to + "' (mtx, edgelist, npz or hdf5)");
  std::string named;
  try {
    named = to_string(graph_output_format("--output", output));
  } catch (const std::invalid_argument& e) {
    if (ends_with(output, ".gz")) throw;
    if (to.empty())
      throw std::invalid_argument(std::string("--to is needed (mtx, edgelist, npz or hdf5), or ") +
                                  e.what());
    return to;  // a name without a graph extension: --to decides
  }
  if (!to.empty() && to != named)
    throw std::invalid_argument("--to " + to + " but the name --output '" + output +
                                "' asks for " + named + ": change one of them");
  return named;
}

GraphInputReport run_convert(MPI_Comm comm, const ConvertOptions& o) {
  collective_check(comm, !o.graph.empty(), "--graph is required");
  collective_check(comm, !o.output.empty(), "--output is required");
  std::string to;
  collectively(comm, [&] { to = convert_target(o.to, o.output); });
  check_distinct_files(comm, {{"--graph", o.graph}}, {{"--output", o.output}});
  check_writable(comm, o.output);
  const bool talk = comm_rank(comm) == 0 && !o.quiet;
  GraphInputReport input;
  LocalCsr rows;
  timed_phase(comm, "read", talk, [&] { rows = read_graph_input(comm, o.graph, o.input, &input); });
  timed_phase(comm, "write", talk, [&] {
    if (to == "mtx")
      write_graph_mtx(comm, o.output, rows);
    else if (to == "edgelist")
      write_graph_edgelist(comm, o.output, rows);
    else if (to == "npz")
      write_graph_npz(comm, o.output, rows);
    else
      write_hdf5(comm, o, rows, input);
  });
  if (comm_rank(comm) == 0) {
    const std::string note = input.note();
    if (!note.empty() && !o.quiet) std::printf("  note: %s\n", note.c_str());
    std::printf("convert: %s (%s) -> %s (%s), n %lld, %lld edges\n", o.graph.c_str(),
                input.format.c_str(), o.output.c_str(), to.c_str(), static_cast<long long>(input.n),
                static_cast<long long>(input.edges));
    std::fflush(stdout);
  }
  return input;
}

}  // namespace lsgl
