#include "lsgl/pipeline/convert.hpp"

#include <stdexcept>

#include "lsgl/graph/graph_export.hpp"
#include "lsgl/graph/renumber.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/format.hpp"
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

ExportFormat convert_target(std::optional<ExportFormat> to, const std::string& output) {
  OutputFormat named = OutputFormat::kHdf5;
  try {
    named = graph_output_format("--output", output);
  } catch (const std::invalid_argument& e) {
    if (ends_with(output, ".gz")) throw;
    if (!to)
      throw std::invalid_argument("--output-format is needed (" + names_list<ExportFormat>() + "), or " +
                                  e.what());
    return *to;  // a name without a graph extension: --output-format decides
  }
  // The graph formats carry the same names in both tables.
  const ExportFormat f = *value_named<ExportFormat>(to_string(named));
  if (to && *to != f)
    throw std::invalid_argument("--output-format " + to_string(*to) + " but the name --output '" + output +
                                "' asks for " + to_string(f) + ": change one of them");
  return f;
}

GraphInputReport run_convert(MPI_Comm comm, const ConvertOptions& o, Monitor& monitor) {
  collective_check(comm, !o.graph.empty(), "--graph is required");
  collective_check(comm, !o.output.empty(), "--output is required");
  ExportFormat to = ExportFormat::kHdf5;
  collectively(comm, [&] { to = convert_target(o.to, o.output); });
  const std::string ids = node_ids_path(o.output);
  if (o.input.renumber) {
    check_distinct_files(comm, {{"--graph", o.graph}},
                         {{"--output", o.output}, {"--output's id map", ids}});
    check_writable(comm, ids);
  } else {
    check_distinct_files(comm, {{"--graph", o.graph}}, {{"--output", o.output}});
  }
  check_writable(comm, o.output);
  GraphInputReport input;
  LocalCsr rows;
  std::vector<std::string> names;
  timed_phase(comm, "read", monitor,
              [&] { rows = read_graph_input(comm, o.graph, o.input, &input, &names); });
  timed_phase(comm, "write", monitor, [&] {
    switch (to) {
      case ExportFormat::kMtx:
        write_graph_mtx(comm, o.output, rows);
        break;
      case ExportFormat::kEdgeList:
        write_graph_edgelist(comm, o.output, rows);
        break;
      case ExportFormat::kNpz:
        write_graph_npz(comm, o.output, rows);
        break;
      case ExportFormat::kHdf5:
        write_hdf5(comm, o, rows, input);
        break;
    }
    if (o.input.renumber) write_node_names(comm, ids, names);
  });
  const std::string note = input.note();
  if (!note.empty()) monitor.message(MessageKind::kInfo, "  note: " + note);
  monitor.message(MessageKind::kSummary,
                  strprintf("convert: %s (%s) -> %s (%s), n %lld, %lld edges", o.graph.c_str(),
                            input.format.c_str(), o.output.c_str(), name_of(to),
                            static_cast<long long>(input.n), static_cast<long long>(input.edges)));
  return input;
}

}  // namespace lsgl
