#include "lsgl/pipeline/collect.hpp"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "lsgl/io/h5.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/format.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

// Attributes shown first, in this order (the rest follow in the order first seen).
const char* kFront[] = {"model",          "n",          "nnz",
                        "avg_degree",     "k_requested", "r",
                        "theta",          "iterations", "converged",
                        "rel_change_primal", "rel_change_dual", "recall_estimate",
                        "allowed_edges",  "ranks",      "input"};

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The last group of digits in the file name, without its extensions; -1 when there is none.
std::int64_t task_number(const std::string& path) {
  std::string name = base_name(path);
  const auto dot = name.find('.');
  if (dot != std::string::npos) name.resize(dot);
  std::size_t end = name.size();
  while (end > 0 && !std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  std::size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1]))) --begin;
  if (begin == end || end - begin > 15) return -1;
  return std::stoll(name.substr(begin, end - begin));
}

bool has_wildcard(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// A temporary file of a run still writing (or killed): PATH.partial or PATH.partial.<suffix>.
bool is_temporary(const std::string& path) {
  return base_name(path).find(".partial") != std::string::npos;
}

// Files matching the patterns, without temporary files; a name without wildcards is kept even
// when it does not exist.
std::vector<std::string> expand(const std::vector<std::string>& patterns) {
  std::set<std::string> files;
  for (const auto& p : patterns) {
    if (!has_wildcard(p)) {
      files.insert(p);
      continue;
    }
    glob_t g{};
    const int rc = glob(p.c_str(), 0, nullptr, &g);
    if (rc == 0)
      for (std::size_t i = 0; i < g.gl_pathc; ++i)
        if (!is_temporary(g.gl_pathv[i])) files.insert(g.gl_pathv[i]);
    globfree(&g);
    if (rc != 0 && rc != GLOB_NOMATCH) throw std::runtime_error("cannot expand '" + p + "'");
  }
  return {files.begin(), files.end()};
}

bool exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::fclose(f);
  return true;
}

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

// A sweep table: plain CSV (no quoting), a header line, '#' comments and blank lines ignored.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

Table read_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read sweep table '" + path + "'");
  Table t;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string s = trim(line);
    if (s.empty() || s[0] == '#') continue;
    auto cells = split_commas(s);
    if (t.columns.empty()) {
      t.columns = cells;
      continue;
    }
    if (cells.size() != t.columns.size())
      throw std::runtime_error("sweep table '" + path + "' line " + std::to_string(lineno) +
                               ": " + std::to_string(cells.size()) + " values for " +
                               std::to_string(t.columns.size()) + " columns");
    t.rows.push_back(cells);
  }
  if (t.columns.empty()) throw std::runtime_error("sweep table '" + path + "' has no header");
  return t;
}

// Shortest of %.15g / %.17g that reads back as the same double.
std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// RFC 4180 quoting.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos && trim(s) == s) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

using Row = std::map<std::string, std::string>;

// Reads the attributes of / and /graph of one graph file into `row`; `order` receives the
// column names in the order first seen. Throws on an unreadable file.
void read_graph_attributes(const std::string& path, Row& row, std::vector<std::string>& order) {
  h5::File f = h5::open_read(MPI_COMM_SELF, path);
  auto put = [&](const std::string& name, const std::string& value) {
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
    row[name] = value;
  };
  for (const std::string obj : {"/graph", "/"}) {
    if (h5::object_kind(f, obj) == h5::ObjectKind::kMissing)
      throw std::runtime_error("no group '" + obj + "' (not a graph file of lsgl learn?)");
    for (const auto& [name, cls] : h5::list_attributes(f, obj)) {
      if (obj == "/" && name == "configuration") {
        // One column per option of the effective configuration ("key = value" lines).
        std::istringstream lines(h5::get_attr_string(f, obj, name));
        std::string line;
        while (std::getline(lines, line)) {
          const auto eq = line.find('=');
          if (eq == std::string::npos) continue;
          put("config." + trim(line.substr(0, eq)), trim(line.substr(eq + 1)));
        }
        continue;
      }
      try {
        if (cls == H5T_INTEGER)
          put(name, std::to_string(h5::get_attr_int(f, obj, name)));
        else if (cls == H5T_FLOAT)
          put(name, format_double(h5::get_attr_double(f, obj, name)));
        else if (cls == H5T_STRING)
          put(name, h5::get_attr_string(f, obj, name));
      } catch (const std::exception&) {
        // Not a scalar (an array attribute): not a column.
      }
    }
  }
  f.close();
}

struct LogInfo {
  int exit_code = -1;
  std::string error;
};

// The last "lsgl-job: exit code N" line and the error of a job log: lsgl's own last error line
// when there is one (the launcher's lines after it, e.g. srun's "task 0: Exited with exit code
// 1", say less), else the last error-like line.
LogInfo read_log(const std::string& path) {
  LogInfo info;
  std::ifstream in(path);
  if (!in) return info;
  std::string line, lsgl_error;
  const std::string marker = "lsgl-job: exit code ";
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(marker, 0) == 0) {
      try {
        info.exit_code = std::stoi(line.substr(marker.size()));
      } catch (const std::exception&) {
      }
    } else if (line.rfind("lsgl: error", 0) == 0) {
      lsgl_error = trim(line);
    } else if (line.find("error:") != std::string::npos ||
               line.find("CANCELLED") != std::string::npos ||
               line.find("Killed") != std::string::npos ||
               line.find("exited on signal") != std::string::npos) {
      info.error = trim(line);
    }
  }
  if (!lsgl_error.empty()) info.error = lsgl_error;
  return info;
}

// Throws when the CSV would overwrite one of the files read.
void check_csv_is_not_an_input(const std::string& csv, const std::vector<std::string>& inputs) {
  for (const auto& in : inputs)
    if (same_file(csv, in))
      throw std::runtime_error("--csv '" + csv + "' is the same file as the input '" + in +
                               "'; it would be overwritten");
}

// Throws when two outputs carry the same task number ("g-1.h5" and "g-01.h5").
void check_one_output_per_task(const std::vector<std::string>& outputs) {
  std::map<std::int64_t, std::string> first;
  for (const auto& path : outputs) {
    const std::int64_t t = task_number(path);
    if (t < 0) continue;
    const auto [it, fresh] = first.emplace(t, path);
    if (!fresh)
      throw std::runtime_error("task " + std::to_string(t) + " has two outputs: '" + it->second +
                               "' and '" + path + "'");
  }
}

// Throws when the CSV would overwrite an input or when two outputs carry the same task number.
void check_inputs(const CollectOptions& o, const std::vector<std::string>& outputs,
                  const std::vector<std::string>& logs) {
  check_csv_is_not_an_input(o.csv, outputs);
  check_csv_is_not_an_input(o.csv, logs);
  if (!o.table.empty()) check_csv_is_not_an_input(o.csv, {o.table});
  check_one_output_per_task(outputs);
}

// The existing logs by task number.
std::map<std::int64_t, std::string> logs_by_task(const std::vector<std::string>& logs) {
  std::map<std::int64_t, std::string> log_of;
  for (const auto& l : logs) {
    const std::int64_t t = task_number(l);
    if (t >= 0 && exists(l)) log_of[t] = l;  // sorted names: the last one wins
  }
  return log_of;
}

// Tasks 0..expect-1, one per sweep table row, and one per log.
std::set<std::int64_t> expected_tasks(std::int64_t expect, std::size_t table_rows,
                                      const std::map<std::int64_t, std::string>& log_of) {
  std::set<std::int64_t> expected;
  for (std::int64_t t = 0; t < expect; ++t) expected.insert(t);
  for (std::size_t t = 0; t < table_rows; ++t) expected.insert(static_cast<std::int64_t>(t));
  for (const auto& [t, l] : log_of) expected.insert(t);
  return expected;
}

// One line of the CSV: the task and the attributes of its output.
struct Item {
  CollectTask task;
  Row row;
};

// One item per output file (ok, missing or unreadable), then one per expected task without an
// output (missing). `attr_order` receives the attribute names in the order first seen.
std::vector<Item> read_outputs(const std::vector<std::string>& outputs,
                               const std::set<std::int64_t>& expected,
                               std::vector<std::string>& attr_order) {
  std::vector<Item> items;
  std::set<std::int64_t> seen;
  for (const auto& path : outputs) {
    Item it;
    it.task.task = task_number(path);
    it.task.output = path;
    if (it.task.task >= 0) seen.insert(it.task.task);
    if (!exists(path)) {
      it.task.status = TaskStatus::kMissing;
      it.task.error = "no such file";
    } else {
      try {
        read_graph_attributes(path, it.row, attr_order);
        it.task.status = TaskStatus::kOk;
      } catch (const std::exception& e) {
        it.task.status = TaskStatus::kUnreadable;
        it.task.error = e.what();
      }
    }
    items.push_back(std::move(it));
  }
  for (const std::int64_t t : expected) {
    if (seen.count(t)) continue;
    Item it;
    it.task.task = t;
    it.task.status = TaskStatus::kMissing;
    items.push_back(std::move(it));
  }
  return items;
}

// The exit code and error of task c from its log; a non-zero exit makes the task failed.
void apply_log(CollectTask& c, const std::string& log) {
  c.log = log;
  const LogInfo info = read_log(c.log);
  c.exit_code = info.exit_code;
  if (info.exit_code > 0) {
    c.status = TaskStatus::kFailed;
    c.error = info.exit_code == 75
                  ? "interrupted and checkpointed (exit code 75): resume from its checkpoint"
                  : (info.error.empty() ? "exit code " + std::to_string(info.exit_code)
                                        : info.error);
    if (!c.output.empty() && exists(c.output)) c.error += " (the output is from an earlier run)";
  } else if (c.status == TaskStatus::kMissing && c.error.empty()) {
    c.error = info.exit_code == 0
                  ? "exit code 0 but no output file"
                  : (info.error.empty() ? "no exit code in the log (running, or killed)"
                                        : info.error);
  }
}

// Logs: exit codes and errors of the tasks that have one.
void attach_logs(std::vector<Item>& items, const std::map<std::int64_t, std::string>& log_of) {
  for (auto& it : items) {
    CollectTask& c = it.task;
    const auto l = c.task >= 0 ? log_of.find(c.task) : log_of.end();
    if (l != log_of.end())
      apply_log(c, l->second);
    else if (c.status == TaskStatus::kMissing && c.error.empty())
      c.error = "no output file and no log";
  }
}

// By task number, tasks without a number last (stable).
void sort_by_task(std::vector<Item>& items) {
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    const auto ka = a.task.task < 0 ? INT64_MAX : a.task.task;
    const auto kb = b.task.task < 0 ? INT64_MAX : b.task.task;
    return ka < kb;
  });
}

// Attribute columns: the front list first, the other attributes in the order first seen, then
// the configuration (config.*, sorted).
std::vector<std::string> attribute_columns(const std::vector<std::string>& attr_order) {
  std::vector<std::string> columns;
  std::set<std::string> attr_set(attr_order.begin(), attr_order.end());
  for (const char* c : kFront)
    if (attr_set.count(c)) columns.push_back(c);
  for (const auto& c : attr_order)
    if (c.rfind("config.", 0) != 0 && std::find(columns.begin(), columns.end(), c) == columns.end())
      columns.push_back(c);
  std::vector<std::string> config_cols;
  for (const auto& c : attr_order)
    if (c.rfind("config.", 0) == 0) config_cols.push_back(c);
  std::sort(config_cols.begin(), config_cols.end());
  columns.insert(columns.end(), config_cols.begin(), config_cols.end());
  return columns;
}

// One CSV line (with its newline): task, status, exit_code, output, log, error, the task's
// sweep table row, then the attribute columns.
std::string csv_line(const Item& it, const Table& table, const std::vector<std::string>& columns) {
  const CollectTask& c = it.task;
  std::string text = (c.task >= 0 ? std::to_string(c.task) : "") + "," + to_string(c.status) +
                     "," +
                     (c.exit_code >= 0 ? std::to_string(c.exit_code) : "") + "," +
                     csv_field(c.output) + "," + csv_field(c.log) + "," + csv_field(c.error);
  for (std::size_t j = 0; j < table.columns.size(); ++j) {
    const bool has = c.task >= 0 && c.task < static_cast<std::int64_t>(table.rows.size());
    text += "," + (has ? csv_field(table.rows[c.task][j]) : std::string());
  }
  for (const auto& col : columns) {
    const auto v = it.row.find(col);
    text += "," + (v == it.row.end() ? std::string() : csv_field(v->second));
  }
  return text + "\n";
}

// Adds task c to the report and to its status count.
void count(CollectReport& report, const CollectTask& c) {
  switch (c.status) {
    case TaskStatus::kOk: ++report.ok; break;
    case TaskStatus::kFailed: ++report.failed; break;
    case TaskStatus::kMissing: ++report.missing; break;
    case TaskStatus::kUnreadable: ++report.unreadable; break;
  }
  report.tasks.push_back(c);
}

CollectReport collect_on_root(const CollectOptions& o) {
  const std::vector<std::string> outputs = expand(o.outputs);
  const std::vector<std::string> logs = expand(o.logs);
  check_inputs(o, outputs, logs);
  Table table;
  if (!o.table.empty()) table = read_table(o.table);
  if (outputs.empty() && logs.empty() && o.expect < 0 && o.table.empty())
    throw std::runtime_error("no file matches --outputs and nothing is expected (--expect)");

  const std::map<std::int64_t, std::string> log_of = logs_by_task(logs);
  std::vector<std::string> attr_order;
  std::vector<Item> items =
      read_outputs(outputs, expected_tasks(o.expect, table.rows.size(), log_of), attr_order);
  attach_logs(items, log_of);
  sort_by_task(items);

  // Columns: task, status, exit_code, output, log, error, the sweep table's columns (sweep.*),
  // the attributes (front list first), then the configuration (config.*).
  const std::vector<std::string> columns = attribute_columns(attr_order);
  std::string text = "task,status,exit_code,output,log,error";
  for (const auto& c : table.columns) text += "," + csv_field("sweep." + c);
  for (const auto& c : columns) text += "," + csv_field(c);
  text += "\n";
  CollectReport report;
  for (const auto& it : items) {
    text += csv_line(it, table, columns);
    count(report, it.task);
  }

  // Written through a unique temporary file renamed on success: a failed write leaves no
  // half-written table, and only a regular file (or nothing) is replaced.
  write_atomically_local(o.csv, [&](const std::string& tmp) { write_text(tmp, text, o.csv); });
  return report;
}

}  // namespace

CollectReport run_collect(MPI_Comm comm, const CollectOptions& o, Monitor& monitor) {
  collective_check(comm, !o.csv.empty(), "--csv is required");
  collective_check(comm, !o.outputs.empty() || o.expect >= 0 || !o.table.empty(),
                   "--outputs is required");
  CollectReport report;
  const bool root = comm_rank(comm) == 0;
  collectively(comm, [&] {
    if (root) report = collect_on_root(o);
  });
  std::int64_t counts[4] = {report.ok, report.failed, report.missing, report.unreadable};
  MPI_Bcast(counts, 4, MPI_INT64_T, 0, comm);
  report.ok = counts[0];
  report.failed = counts[1];
  report.missing = counts[2];
  report.unreadable = counts[3];
  if (root) {
    const auto total = static_cast<long long>(report.tasks.size());
    monitor.message(
        MessageKind::kSummary,
        strprintf("collect: %lld task%s: %lld ok, %lld failed, %lld missing, %lld "
                  "unreadable -> %s",
                  total, total == 1 ? "" : "s", (long long)report.ok, (long long)report.failed,
                  (long long)report.missing, (long long)report.unreadable, o.csv.c_str()));
    for (const auto& t : report.tasks) {
      if (t.status == TaskStatus::kOk) continue;
      monitor.message(
          MessageKind::kSummary,
          strprintf(
              "  task %s: %s%s%s%s", t.task >= 0 ? std::to_string(t.task).c_str() : "?",
              name_of(t.status),
              t.exit_code >= 0 ? (" (exit code " + std::to_string(t.exit_code) + ")").c_str() : "",
              t.error.empty() ? "" : ": ", t.error.c_str()));
    }
  }
  return report;
}

}  // namespace lsgl
