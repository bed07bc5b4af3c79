// lsgl._lsgl: the Python module's native half (python/lsgl/__init__.py is the API). It sits at the
// command line's layer: options are parsed by the same tables (cli/choices.hpp), the pipelines are
// the ones `lsgl learn` and `lsgl theta` run, rows come from NumPy and the graph goes back as
// NumPy arrays that own the library's vectors (no copy of the result).
//
// Processes: MPI (MPI_Init_thread, unless mpi4py or the host initialised it) and PETSc are
// initialised on the first call and finalised at interpreter exit (MPI only if this module
// initialised it). Each call runs on the communicator given by its Fortran handle (mpi4py's
// comm.py2f()), or on MPI_COMM_SELF. A CollectiveError (raised on every rank alike) becomes
// ValueError; everything else reaches Python as pybind11 translates it.
#include <mpi.h>
#include <petscsys.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "lsgl/cli/choices.hpp"
#include "lsgl/cli/command_options.hpp"
#include "lsgl/graph/graph_export.hpp"
#include "lsgl/graph/graph_input.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/graph/symmetry_check.hpp"
#include "lsgl/pipeline/densest.hpp"
#include "lsgl/pipeline/eval.hpp"
#include "lsgl/pipeline/hash.hpp"
#include "lsgl/pipeline/learn.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/format.hpp"
#include "lsgl/util/json.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/petsc.hpp"

namespace py = pybind11;

namespace {

bool g_owns_mpi = false, g_owns_petsc = false;

// At interpreter exit (atexit runs before mpi4py's own finaliser when mpi4py was imported first).
void finalize_runtime() {
  if (g_owns_petsc) PetscFinalize();
  g_owns_petsc = false;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_owns_mpi && !finalized) MPI_Finalize();
  g_owns_mpi = false;
}

// MPI and PETSc on first use; PETSc's signal handlers stay off (Python owns SIGINT).
void ensure_runtime() {
  static bool done = false;
  if (done) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      throw std::runtime_error("lsgl: MPI_Init_thread failed");
    g_owns_mpi = true;
  }
  PetscBool petsc = PETSC_FALSE;
  PetscInitialized(&petsc);
  if (!petsc) {
    lsgl::restore_allocator_release();
    lsgl::petsc_check(PetscOptionsSetValue(nullptr, "-no_signal_handler", nullptr),
                      "PetscOptionsSetValue");
    lsgl::petsc_check(PetscInitializeNoArguments(), "PetscInitialize");
    g_owns_petsc = true;
  }
  py::module_::import("atexit").attr("register")(py::cpp_function(&finalize_runtime));
  done = true;
}

MPI_Comm comm_of(std::optional<int> fortran_handle) {
  ensure_runtime();
  return fortran_handle ? MPI_Comm_f2c(*fortran_handle) : MPI_COMM_SELF;
}

// Forwards reports to a Python callable report(kind, line) in the command line's words (rank 0
// only), and turns a pending Ctrl-C into a stop of the iteration. The GIL is held throughout.
class PyMonitor : public lsgl::Monitor {
 public:
  PyMonitor(MPI_Comm comm, py::object report, int progress_every)
      : report_(std::move(report)), every_(progress_every), rank0_(lsgl::comm_rank(comm) == 0) {}
  void phase(const lsgl::PhaseReport& r) override {
    emit("phase", lsgl::strprintf("[%-10s] %8.2f s   peak memory so far %8.1f MB per rank",
                                  r.name, r.seconds, static_cast<double>(r.peak_rss_max) / 1e6));
  }
  void iteration(const lsgl::IterationReport& r) override {
    if (every_ > 0 && r.iteration % every_ == 0)
      emit("iteration",
           *r.dual_name ? lsgl::strprintf("  iteration %5d   %s %.3e  %s %.3e", r.iteration,
                                          r.primal_name, r.primal, r.dual_name, r.dual)
                        : lsgl::strprintf("  iteration %5d   %s %.3e", r.iteration,
                                          r.primal_name, r.primal));
  }
  void message(lsgl::MessageKind kind, const std::string& text) override {
    emit(kind == lsgl::MessageKind::kWarning   ? "warning"
         : kind == lsgl::MessageKind::kSummary ? "summary"
                                               : "info",
         text);
    if (kind == lsgl::MessageKind::kSummary && !text.empty()) summary_.push_back(text);
  }
  bool stop_requested() override {
    if (!interrupted_ && PyErr_CheckSignals() != 0) {
      PyErr_Clear();
      interrupted_ = true;
    }
    return interrupted_;
  }
  bool interrupted() const { return interrupted_; }
  const std::vector<std::string>& summary() const { return summary_; }

 private:
  void emit(const char* kind, const std::string& line) {
    if (!rank0_ || report_.is_none() || PyErr_Occurred()) return;
    try {
      report_(kind, line);
    } catch (py::error_already_set&) {  // a monitor must not throw: the report is dropped
      PyErr_Clear();
    }
  }
  py::object report_;
  int every_;
  bool rank0_;
  bool interrupted_ = false;
  std::vector<std::string> summary_;
};

// A NumPy array that owns `v` (moved to the heap, freed with the array).
template <class T>
py::array_t<T> owning_array(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(heap->size()), heap->data(), owner);
}

py::tuple csr_tuple(lsgl::LocalCsr&& m) {
  const std::int64_t n = m.n, begin = m.begin;
  return py::make_tuple(owning_array(std::move(m.indptr)), owning_array(std::move(m.indices)),
                        owning_array(std::move(m.data)), n, begin);
}

py::dict attributes_dict(const lsgl::Attributes& attrs) {
  py::dict d;
  for (const auto& [name, value] : attrs)
    std::visit([&, &key = name](const auto& v) { d[py::str(key)] = v; }, value);
  return d;
}

// Collective. This rank's block of rows as LocalRows borrowing x's buffer (no copy; x, held by
// the caller's argument, outlives the call): the global n and this rank's first row, and a check
// (ValueError on every rank) that the blocks are those of lsgl::Partition with one d.
lsgl::LocalRows local_rows(MPI_Comm comm, const py::array_t<float, py::array::c_style>& x) {
  lsgl::LocalRows rows;
  const std::int64_t local = x.shape(0), d = x.shape(1);
  rows.n = lsgl::allreduce_sum(comm, local);
  rows.d = lsgl::allreduce_max(comm, d);
  rows.begin = lsgl::exscan_sum(comm, local);
  const int rank = lsgl::comm_rank(comm);
  const lsgl::Partition part(rows.n, lsgl::comm_size(comm));
  lsgl::collective_check(comm, d == rows.d, "every rank must pass the same number of columns");
  lsgl::collective_check(
      comm, part.begin(rank) == rows.begin && part.count(rank) == local,
      lsgl::strprintf("rank %d passed %lld rows; with comm= each rank passes its block of the "
                      "%lld rows, rows [%lld, %lld) here (lsgl.block(n, comm))",
                      rank, static_cast<long long>(local), static_cast<long long>(rows.n),
                      static_cast<long long>(part.begin(rank)),
                      static_cast<long long>(part.end(rank))));
  lsgl::collective_check(comm, rows.n > 0 && rows.d > 0,
                         "X must have at least one row and one column");
  rows.borrow(x.data(), static_cast<std::size_t>(local * d));
  return rows;
}

// The learning options from the keyword arguments of lsgl.learn (choices parsed collectively).
lsgl::LearnOptions learn_options(MPI_Comm comm, const py::dict& kw) {
  lsgl::LearnOptions o;
  lsgl::collectively(comm, [&] {
    using lsgl::cli::parse_choice;
    o.model = parse_choice<lsgl::ModelKind>("model", kw["model"].cast<std::string>());
    o.metric = parse_choice<lsgl::Metric>("metric", kw["metric"].cast<std::string>());
    o.ann.engine = parse_choice<lsgl::AnnEngine>("ann", kw["ann"].cast<std::string>());
    o.support = parse_choice<lsgl::Support>("support", kw["support"].cast<std::string>());
    o.solver.solver = parse_choice<lsgl::SolverKind>("solver", kw["solver"].cast<std::string>());
    o.knn_mode = parse_choice<lsgl::KnnMode>("knn_mode", kw["knn_mode"].cast<std::string>());
    o.knn_weights =
        parse_choice<lsgl::KnnWeights>("knn_weights", kw["knn_weights"].cast<std::string>());
    o.k = kw["k"].cast<int>();
    o.r = kw["r"].cast<double>();
    o.theta = kw["theta"].cast<double>();
    o.sigma = kw["sigma"].cast<double>();
    o.solver.tol = kw["tol"].cast<double>();
    o.solver.max_iterations = kw["max_iter"].cast<int>();
    o.degree_tol = kw["degree_tol"].cast<double>();
    o.prune = kw["prune"].cast<double>();
    o.seed = kw["seed"].cast<std::uint64_t>();
    o.ann.threads = kw["threads"].cast<int>();
    o.recall_sample = kw["recall_sample"].cast<int>();
    o.candidates = kw["candidates"].cast<std::string>();
    o.candidates_file.indices = kw["candidates_indices"].cast<std::string>();
    o.candidates_file.distances = kw["candidates_distances"].cast<std::string>();
    o.candidates_file.distance = parse_choice<lsgl::CandidateDistance>(
        "candidates-distance", kw["candidates_distance"].cast<std::string>());
    o.checkpoint = kw["checkpoint"].cast<std::string>();
    o.checkpoint_every = kw["checkpoint_every"].cast<int>();
    o.resume = kw["resume"].cast<std::string>();
  });
  o.solver.dual_scale = 0.0;  // the default of `lsgl learn --dual-scale` (choose c)
  o.ann.seed = o.seed;
  o.command_line = "python: lsgl.learn";
  return o;
}

py::dict summary_dict(const lsgl::LearnSummary& s, const PyMonitor& monitor) {
  py::dict d;
  d["n"] = s.n;
  d["d"] = s.d;
  d["edges"] = s.edges;
  d["allowed_edges"] = s.allowed_edges;
  d["avg_degree"] = s.avg_degree;
  d["degree_deviation"] = s.degree_deviation;
  d["recall"] = s.recall;
  d["isolated_nodes"] = s.isolated_nodes;
  d["saturated_nodes"] = s.saturated_nodes;
  d["iterations"] = s.solver.iterations;
  d["converged"] = s.solver.converged;
  d["seconds_total"] = s.t_total;
  d["peak_rss_max"] = s.peak_rss_max;
  d["rows_borrowed"] = s.rows_borrowed;
  d["summary_lines"] = monitor.summary();
  return d;
}

// lsgl.learn's native call: (indptr, indices, data, n, begin, graph attributes, summary,
// distances): distances aligned with data (metric_distance of each edge), or None without
// kw["distances"].
py::tuple learn(const py::array_t<float, py::array::c_style>& x, const py::dict& kw,
                std::optional<int> comm_handle, py::object report, int progress_every) {
  MPI_Comm comm = comm_of(comm_handle);
  lsgl::LearnOptions o = learn_options(comm, kw);
  o.distances = kw["distances"].cast<bool>();
  PyMonitor monitor(comm, std::move(report), progress_every);
  lsgl::LearnedGraph graph;
  const lsgl::LearnSummary s = lsgl::learn_rows(comm, o, local_rows(comm, x), graph, monitor);
  if (monitor.interrupted() || s.interrupted) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  lsgl::LocalCsr& m = graph.rows;
  py::object distances = py::none();
  if (o.distances) distances = owning_array(std::move(graph.distances.values));
  return py::make_tuple(owning_array(std::move(m.indptr)), owning_array(std::move(m.indices)),
                        owning_array(std::move(m.data)), m.n, m.begin,
                        attributes_dict(graph.attributes), summary_dict(s, monitor), distances);
}

py::dict theta(const py::array_t<float, py::array::c_style>& x, const py::dict& kw,
               std::optional<int> comm_handle) {
  MPI_Comm comm = comm_of(comm_handle);
  const lsgl::LearnOptions o = learn_options(comm, kw);
  const lsgl::ThetaChoice t = lsgl::theta_rows(comm, o, local_rows(comm, x));
  py::dict d;
  d["theta"] = t.theta;
  d["lower_mean"] = t.lower_mean;
  d["upper_mean"] = t.upper_mean;
  d["nodes_without_lower"] = t.nodes_without_lower;
  d["nodes_without_upper"] = t.nodes_without_upper;
  return d;
}

// Collective. Any graph file the commands read (HDF5, Matrix Market, edge list, .npz; the format
// from the file's first bytes), with the commands' defaults: repeats summed, one-sided edges mirrored.
py::tuple read_graph(const std::string& path, std::optional<int> comm_handle) {
  return csr_tuple(lsgl::read_graph_input(comm_of(comm_handle), path, {}, nullptr));
}

// Collective. The graph of this rank's rows [begin, begin + rows) of the n x n sparse matrix
// (int64 indptr and indices, float64 data), after the checks every graph reader makes
// (graph/symmetry_check.hpp); `report` says what was dropped.
lsgl::LocalCsr graph_rows(MPI_Comm comm, std::int64_t n, std::int64_t begin,
                          const py::array_t<std::int64_t, py::array::c_style>& indptr,
                          const py::array_t<std::int64_t, py::array::c_style>& indices,
                          const py::array_t<double, py::array::c_style>& data,
                          lsgl::GraphInputReport& report) {
  lsgl::LocalCsr m;
  m.n = n;
  m.begin = begin;
  m.indptr.assign(indptr.data(), indptr.data() + indptr.size());
  m.indices.assign(indices.data(), indices.data() + indices.size());
  m.data.assign(data.data(), data.data() + data.size());
  const lsgl::GraphCleaning cleaned = lsgl::check_and_clean_graph(comm, m, "W");
  std::int64_t weighted = 0;
  for (double w : m.data) weighted += w != 1.0;
  report.format = "scipy";
  report.n = n;
  report.entries = lsgl::allreduce_sum(comm, static_cast<std::int64_t>(indices.size()));
  report.self_loops = cleaned.self_loops;
  report.zero_weights = cleaned.zeros;
  report.edges = lsgl::allreduce_sum(comm, static_cast<std::int64_t>(m.data.size())) / 2;
  report.weighted = lsgl::allreduce_sum(comm, weighted) > 0;
  return m;
}

// Collective. Writes this rank's rows [begin, begin + rows) of the n x n graph after the checks
// every graph reader makes (graph/symmetry_check.hpp: symmetric, finite, non-negative weights).
void write_graph(const std::string& path, std::int64_t n, std::int64_t begin,
                 const py::array_t<std::int64_t, py::array::c_style>& indptr,
                 const py::array_t<std::int64_t, py::array::c_style>& indices,
                 const py::array_t<double, py::array::c_style>& data,
                 std::optional<int> comm_handle) {
  MPI_Comm comm = comm_of(comm_handle);
  lsgl::graph_output_format("path", path);  // a name it cannot honour is refused before work
  lsgl::GraphInputReport report;
  const lsgl::LocalCsr m = graph_rows(comm, n, begin, indptr, indices, data, report);
  const std::int64_t nnz = lsgl::allreduce_sum(comm, static_cast<std::int64_t>(m.data.size()));
  const lsgl::Attributes graph_attrs = {{"n", n}, {"nnz", nnz}};
  lsgl::write_graph_file(comm, path, m, graph_attrs,
                         lsgl::provenance_attributes(comm, "python: lsgl.write_graph", "", {}));
}

// An optional int64 vector of this rank's rows from Python (None: no vector).
std::optional<std::vector<std::int64_t>> int_vector(const py::object& v) {
  if (v.is_none()) return std::nullopt;
  const auto a = v.cast<py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>>();
  return std::vector<std::int64_t>(a.data(), a.data() + a.size());
}

// lsgl.eval's native call: (the report as `lsgl eval --json` writes it, predictions, known,
// embedding local rows x m or None).
py::tuple eval(std::int64_t n, std::int64_t begin,
               const py::array_t<std::int64_t, py::array::c_style>& indptr,
               const py::array_t<std::int64_t, py::array::c_style>& indices,
               const py::array_t<double, py::array::c_style>& data, const py::object& labels,
               const py::object& known, bool embedding, const std::vector<std::string>& args,
               std::optional<int> comm_handle, py::object report) {
  MPI_Comm comm = comm_of(comm_handle);
  lsgl::EvalOptions o = lsgl::cli::eval_options(comm, args);
  o.command_line = "python: lsgl.eval";
  lsgl::GraphInputReport input;
  lsgl::LocalCsr m = graph_rows(comm, n, begin, indptr, indices, data, input);
  const auto label_values = int_vector(labels), known_mask = int_vector(known);
  PyMonitor monitor(comm, std::move(report), 0);
  lsgl::EvalVectors v;
  const lsgl::EvalReport r =
      lsgl::eval_rows(comm, o, std::move(m), input, label_values ? &*label_values : nullptr,
                      known_mask ? &*known_mask : nullptr, embedding, v, monitor);
  py::object vectors = py::none();
  if (embedding) {
    const auto m_vectors = static_cast<py::ssize_t>(r.eigenvalues.size());
    vectors = owning_array(std::move(v.embedding)).attr("reshape")(-1, m_vectors);
  }
  std::vector<std::int8_t> given(v.known.begin(), v.known.end());
  return py::make_tuple(lsgl::eval_report_json(r), owning_array(std::move(v.predictions)),
                        owning_array(std::move(given)), vectors);
}

// lsgl.densest's native call: a list of (this rank's members, summary dict), one per (size,
// method) pair.
py::list densest(std::int64_t n, std::int64_t begin,
                 const py::array_t<std::int64_t, py::array::c_style>& indptr,
                 const py::array_t<std::int64_t, py::array::c_style>& indices,
                 const py::array_t<double, py::array::c_style>& data,
                 const std::vector<std::string>& args, std::optional<int> comm_handle,
                 py::object report) {
  MPI_Comm comm = comm_of(comm_handle);
  lsgl::DensestOptions o = lsgl::cli::densest_options(comm, args);
  o.command_line = "python: lsgl.densest";
  lsgl::GraphInputReport input;
  lsgl::LocalCsr m = graph_rows(comm, n, begin, indptr, indices, data, input);
  PyMonitor monitor(comm, std::move(report), 0);
  py::list out;
  for (lsgl::DensestSummary& s : lsgl::densest_rows(comm, o, std::move(m), input, monitor)) {
    py::dict d;
    d["method"] = lsgl::to_string(s.method);
    d["k"] = s.stats.k;
    d["density"] = s.stats.density;
    d["edges_inside"] = s.stats.edges_inside;
    d["weight_inside"] = s.stats.weight_inside;
    d["init"] = s.init_used;
    d["iterations"] = s.iterations;
    d["converged"] = s.converged;
    d["objective"] = s.objective;
    d["seconds"] = s.seconds;
    out.append(py::make_tuple(owning_array(std::move(s.members)), d));
  }
  return out;
}

// A model of `lsgl hash train` held by Python (lsgl.hash.Model wraps it).
class HashModel {
 public:
  explicit HashModel(lsgl::HashTrained t) : t_(std::move(t)) {}
  // Collective. The packed codes of this rank's rows (rows x ceil(bits/8) uint8).
  py::object encode(const py::array_t<float, py::array::c_style>& x,
                    std::optional<int> comm_handle) const {
    MPI_Comm comm = comm_of(comm_handle);
    std::vector<std::uint8_t> codes = lsgl::encode_rows(comm, t_, local_rows(comm, x));
    const auto width = static_cast<py::ssize_t>((t_.model.bits + 7) / 8);
    return owning_array(std::move(codes)).attr("reshape")(-1, width);
  }
  void save(const std::string& path, std::optional<int> comm_handle) const {
    lsgl::write_hash_model(comm_of(comm_handle), path, t_);
  }
  int bits() const { return t_.model.bits; }
  std::string loss() const { return lsgl::to_string(t_.model.loss); }
  std::string solver() const { return lsgl::to_string(t_.model.solver); }
  std::string features() const { return lsgl::to_string(t_.model.features.kind); }
  std::string metric() const { return lsgl::to_string(t_.metric); }
  std::int64_t input_dim() const { return t_.model.features.input_dim; }
  std::vector<double> objective() const { return t_.objective; }
  py::dict attributes() const { return attributes_dict(t_.attributes); }

 private:
  lsgl::HashTrained t_;
};

HashModel hash_train(const py::array_t<float, py::array::c_style>& x, const py::object& labels,
                     const std::vector<std::string>& args, std::optional<int> comm_handle,
                     py::object report) {
  MPI_Comm comm = comm_of(comm_handle);
  lsgl::HashTrainOptions o = lsgl::cli::hash_train_options(comm, args);
  o.command_line = "python: lsgl.hash.train";
  const auto label_values = int_vector(labels);
  PyMonitor monitor(comm, std::move(report), 0);
  lsgl::HashTrained t;
  lsgl::hash_train_rows(comm, o, local_rows(comm, x), label_values ? &*label_values : nullptr, t,
                        monitor);
  return HashModel(std::move(t));
}

HashModel hash_load(const std::string& path, std::optional<int> comm_handle) {
  return HashModel(lsgl::read_hash_model(comm_of(comm_handle), path));
}

// Collective. `lsgl hash eval` on codes in memory: queries this rank's block, the database whole
// on every rank (packed rows of equal width, bits <= 8 x width).
py::dict hash_evaluate(const py::array_t<std::uint8_t, py::array::c_style>& queries,
                       const py::array_t<std::int64_t, py::array::c_style>& query_labels,
                       const py::array_t<std::uint8_t, py::array::c_style>& database,
                       const py::array_t<std::int64_t, py::array::c_style>& database_labels,
                       int bits, std::int64_t top, std::optional<int> comm_handle) {
  MPI_Comm comm = comm_of(comm_handle);
  lsgl::hash::CodeBlock q, db;
  q.bits = db.bits = bits;
  q.has_labels = db.has_labels = true;
  q.codes.assign(queries.data(), queries.data() + queries.size());
  q.labels.assign(query_labels.data(), query_labels.data() + query_labels.size());
  q.n = lsgl::allreduce_sum(comm, static_cast<std::int64_t>(q.labels.size()));
  q.begin = lsgl::exscan_sum(comm, static_cast<std::int64_t>(q.labels.size()));
  db.codes.assign(database.data(), database.data() + database.size());
  db.labels.assign(database_labels.data(), database_labels.data() + database_labels.size());
  db.n = static_cast<std::int64_t>(db.labels.size());
  const lsgl::HashEvalSummary s = lsgl::evaluate_codes(comm, q, db, top);
  py::dict d;
  d["queries"] = s.score.queries;
  d["database"] = s.database;
  d["bits"] = s.bits;
  d["map"] = s.score.map;
  d[py::str("precision_at_" + std::to_string(top))] = s.score.precision_at_k;
  d["no_relevant"] = s.score.no_relevant;
  return d;
}

}  // namespace

PYBIND11_MODULE(_lsgl, m) {
  m.doc() = "lsgl's native module; use the functions of the lsgl package";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const lsgl::CollectiveError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("learn", &learn);
  m.def("theta", &theta);
  m.def("read_graph", &read_graph);
  m.def("write_graph", &write_graph);
  m.def("eval", &eval);
  m.def("densest", &densest);
  py::class_<HashModel>(m, "HashModel")
      .def("encode", &HashModel::encode)
      .def("save", &HashModel::save)
      .def_property_readonly("bits", &HashModel::bits)
      .def_property_readonly("loss", &HashModel::loss)
      .def_property_readonly("solver", &HashModel::solver)
      .def_property_readonly("features", &HashModel::features)
      .def_property_readonly("metric", &HashModel::metric)
      .def_property_readonly("input_dim", &HashModel::input_dim)
      .def_property_readonly("objective", &HashModel::objective)
      .def_property_readonly("attributes", &HashModel::attributes);
  m.def("hash_train", &hash_train);
  m.def("hash_load", &hash_load);
  m.def("hash_evaluate", &hash_evaluate);
}
