// libFuzzer target: `lsgl collect` (lsgl/pipeline/collect.hpp) on a fuzzed sweep table and a
// fuzzed task log, next to two graph files written at start (tasks 0 and 3). The input is the
// table, a 0xff byte, then the log of task 3. A run that succeeds must write a CSV in which
// every record, parsed by RFC 4180 here, has as many fields as the header, and one record per
// task reported; anything else must be a CollectiveError.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/pipeline/collect.hpp"
#include "lsgl/util/error.hpp"

namespace {

using namespace lsgl;

void write_outputs() {
  LocalCsr g;
  g.n = 2;
  g.indptr = {0, 1, 2};
  g.indices = {1, 0};
  g.data = {0.5, 0.5};
  for (const char* task : {"0", "3"})
    write_graph(MPI_COMM_SELF, fuzz::scratch_dir() + "/task-" + task + ".h5", g,
                {{"k_requested", std::int64_t{3}}, {"note", std::string("a, \"quoted\"\nvalue")}},
                {{"command_line", std::string("lsgl learn --k 3")}});
}

// Records of an RFC 4180 text (quoted fields may hold commas, quotes and line breaks); false
// when a quote is left open or stray.
bool parse_csv(const std::string& text, std::vector<std::vector<std::string>>& records) {
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      if (!field.empty() || was_quoted) return false;
      quoted = was_quoted = true;
    } else if (c == ',' || c == '\n') {
      record.push_back(field);
      field.clear();
      was_quoted = false;
      if (c == '\n') records.push_back(record), record.clear();
    } else if (was_quoted) {
      return false;
    } else {
      field += c;
    }
  }
  return !quoted && field.empty() && record.empty();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  fuzz::init_process(argc, argv);
  write_outputs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = input.find('\xff');
  const std::string dir = fuzz::scratch_dir();
  fuzz::write_file(dir + "/table.csv", input.substr(0, cut));
  fuzz::write_file(dir + "/task-3.log", cut == std::string::npos ? "" : input.substr(cut + 1));
  CollectOptions o;
  o.outputs = {dir + "/task-*.h5"};
  o.logs = {dir + "/task-*.log"};
  o.table = dir + "/table.csv";
  o.csv = dir + "/collected.csv";
  CollectReport report;
  try {
    report = run_collect(MPI_COMM_SELF, o);
  } catch (const CollectiveError&) {
    return 0;
  }
  std::ifstream in(o.csv, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::vector<std::string>> records;
  if (!parse_csv(text.str(), records) || records.size() != report.tasks.size() + 1) std::abort();
  for (const auto& r : records)
    if (r.size() != records[0].size()) std::abort();
  return 0;
}
