// `lsgl hash train | encode | eval` (see hash.hpp).
#include "lsgl/pipeline/hash.hpp"

#include <algorithm>
#include <optional>

#include "lsgl/eval/labels.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/hash/chunked.hpp"
#include "lsgl/hash/model_io.hpp"
#include "lsgl/io/attributes.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/io/metric.hpp"
#include "lsgl/io/output_format.hpp"
#include "lsgl/util/blas.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/format.hpp"
#include "lsgl/util/json.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/phase.hpp"
#include "lsgl/util/select.hpp"
#include "lsgl/util/splitmix.hpp"

namespace lsgl {

namespace {

constexpr int kMaxClasses = 100000;

void check_output(MPI_Comm comm, const std::string& output, const std::vector<FileArg>& inputs) {
  collective_check(comm, !output.empty(), "--output is required");
  check_distinct_files(comm, inputs, {{"--output", output}});
  collectively(comm, [&] { output_format("--output", output, {OutputFormat::kHdf5}); });
  check_writable(comm, output);
}

// Labels of this rank's rows; the file must hold exactly n labels.
std::vector<std::int64_t> read_row_labels(MPI_Comm comm, const std::string& path,
                                          const std::string& dataset, const LocalRows& rows) {
  const std::int64_t len = labels_length(comm, path, dataset);
  collective_check(comm, len == rows.n,
                   "--labels '" + path + "' holds " + std::to_string(len) + " labels for " +
                       std::to_string(rows.n) + " rows");
  return read_labels(comm, path, dataset, rows.begin, rows.local_rows());
}

// Collective. The attributes hash train writes with the model: the training options, the
// timings of s.report and the provenance.
Attributes model_attributes(MPI_Comm comm, const HashTrainOptions& o,
                            const HashTrainSummary& s) {
  const hash::TrainReport& r = s.report;
  const dpcd::Options& d = o.train.dpcd;
  Attributes attrs = {
      {"n", s.n},
      {"input_columns", s.d},
      {"classes", static_cast<std::int64_t>(s.classes)},
      {"anchors", o.train.features == hash::FeatureKind::kRbf ? o.train.anchors : 0},
      {"beta", o.train.beta},
      {"lambda", o.train.lambda},
      {"nu", o.train.nu},
      {"alternations", static_cast<std::int64_t>(o.train.loss == hash::Loss::kItq
                                                    ? o.train.itq_iterations
                                                    : o.train.alternations)},
      {"dcc_sweeps", static_cast<std::int64_t>(o.train.dcc_sweeps)},
      {"sgm_max_iter", static_cast<std::int64_t>(o.train.sgm_iterations)},
      {"lp_max_iter", static_cast<std::int64_t>(o.train.lp.max_iterations)},
      {"lp_tol", o.train.lp.tol},
      {"l2box_rho", o.train.l2box.rho},
      {"l2box_max_iter", static_cast<std::int64_t>(o.train.l2box.max_iterations)},
      {"mpec_rho", o.train.mpec.rho},
      {"mpec_max_iter", static_cast<std::int64_t>(o.train.mpec.max_iterations)},
      {"mpec_inner_iter", static_cast<std::int64_t>(o.train.mpec.inner_iterations)},
      {"dpcd_max_iter", static_cast<std::int64_t>(d.max_iterations)},
      {"dpcd_thresholds", to_string(d.thresholds)},
      {"dpcd_alpha1", d.alpha1},
      {"dpcd_alpha2", d.alpha2},
      {"dpcd_ns_every", static_cast<std::int64_t>(d.ns_every)},
      {"dpcd_ns_m", static_cast<std::int64_t>(d.ns_m)},
      {"seed", static_cast<std::int64_t>(o.train.seed)},
      {"chunk", o.train.chunk},
      {"train_seconds", r.t_total},
      {"bstep_seconds", r.t_bstep},
      {"wstep_seconds", r.t_wstep},
      {"pstep_seconds", r.t_pstep},
      {"features_seconds", r.t_features},
      {"bstep_iterations", r.bstep_iterations},
      {"bstep_flips", r.flips}};
  for (auto& a : provenance_attributes(
           comm, o.command_line, o.configuration,
           {{"input", o.input}, {"metric", to_string(o.metric)}, {"labels", o.labels}}))
    attrs.push_back(std::move(a));
  return attrs;
}

// Collective. The summary lines of hash train to `monitor`.
void report_train(MPI_Comm comm, const HashTrainOptions& o, const HashTrainSummary& s,
                  const hash::Model& m, Monitor& monitor) {
  const int size = comm_size(comm);
  const hash::TrainReport& r = s.report;
  const std::int64_t peak = allreduce_max(comm, peak_rss_bytes());
  const auto summary = [&](const std::string& line) {
    monitor.message(MessageKind::kSummary, line);
  };
  summary(
      strprintf("lsgl hash train: %lld samples x %lld columns, %s features (dim %lld), %d "
                "bits, loss %s, B-solver %s",
                static_cast<long long>(s.n), static_cast<long long>(s.d), name_of(o.train.features),
                static_cast<long long>(s.dim), m.bits, name_of(m.loss), name_of(m.solver)));
  std::string losses = "  loss after each alternation:";
  const std::size_t na = r.objective.size();
  for (std::size_t i = 0; i < na; ++i) {
    if (na > 8 && i == 3) losses += " ...";
    if (na <= 8 || i < 3 || i + 2 >= na) losses += strprintf(" %.6g", r.objective[i]);
  }
  summary(losses + strprintf(" (%zu)", na));
  summary(
      strprintf("  train %.2f s (B-step %.3f s, %lld %s, %lld bits flipped; W-step %.3f s; "
                "P/PCA %.3f s; features %.2f s)",
                r.t_total, r.t_bstep, static_cast<long long>(r.bstep_iterations),
                m.solver == hash::BSolver::kDcc    ? "sweeps"
                : m.solver == hash::BSolver::kDpcd ? "updates"
                                                   : "iterations",
                static_cast<long long>(r.flips), r.t_wstep, r.t_pstep, r.t_features));
  const std::string wrote =
      o.output.empty() ? std::string("model + ") + std::to_string(s.n) + " database codes in memory"
                       : strprintf("wrote %s (model + %lld database codes) in %.2f s",
                                   o.output.c_str(), static_cast<long long>(s.n), s.t_write);
  summary(strprintf("  %s; total %.2f s on %d ranks; peak memory %.0f MB per rank",
                    wrote.c_str(), s.t_total, size, static_cast<double>(peak) / 1e6));
}

}  // namespace

namespace {

// Collective. Training on rows in the Partition blocks (after --metric) with their raw labels
// (has_labels), into out; the phases train and encode go to `monitor`.
void train_model(MPI_Comm comm, const HashTrainOptions& o, LocalRows& rows,
                 std::vector<std::int64_t> raw, bool has_labels, const std::string& labels_name,
                 HashTrainSummary& s, HashTrained& out, Monitor& monitor) {
  s.n = rows.n;
  s.d = rows.d;
  const hash::SampleBlocks blocks{rows.n, o.train.chunk, comm_size(comm)};
  const std::int64_t old_begin = rows.begin;
  rows = hash::to_sample_blocks(comm, rows, blocks);
  NodeLabels lab;
  if (has_labels) {
    raw = hash::to_sample_blocks(comm, raw.data(), raw.size(), old_begin, 1, blocks);
    lab = make_node_labels(comm, raw, kMaxClasses);
    collective_check(comm, lab.unlabelled == 0,
                     labels_name + " marks " + std::to_string(lab.unlabelled) +
                         " rows unlabelled (negative labels); hash train needs every row's label");
  }
  s.classes = lab.num_classes();
  hash::Model& m = out.model;
  timed_phase(comm, "train", monitor, [&] {
    m = hash::train(comm, blocks, rows, lab.index, s.classes, o.train, &s.report);
  });
  s.dim = m.features.dim();
  hash::CodeBlock& db = out.database;
  s.t_encode = timed_phase(comm, "encode", monitor, [&] {
    db.n = rows.n;
    db.begin = rows.begin;
    db.bits = m.bits;
    db.codes = hash::pack_codes(hash::encode(comm, m, rows.data(), rows.local_rows()), m.bits);
    db.has_labels = has_labels;
    db.labels = raw;
  });
  out.objective = s.report.objective;
}

void check_train_options(MPI_Comm comm, const HashTrainOptions& o, bool has_labels,
                         const char* labels_name) {
  collective_check(comm, o.train.loss == hash::Loss::kItq || has_labels,
                   "--loss " + to_string(o.train.loss) + " is supervised: give " + labels_name);
  collective_check(comm, o.train.chunk >= 1, "--chunk must be >= 1");
}

}  // namespace

HashTrainSummary run_hash_train(MPI_Comm comm, const HashTrainOptions& o, Monitor& monitor) {
  const double t_start = MPI_Wtime();
  HashTrainSummary s;
  if (!blas_kernel_advice().empty()) monitor.message(MessageKind::kInfo, blas_kernel_advice());
  check_output(comm, o.output, {{"--input", o.input}, {"--labels", o.labels}});
  check_train_options(comm, o, !o.labels.empty(), "--labels");
  LocalRows rows;
  std::vector<std::int64_t> raw;
  s.t_read = timed_phase(comm, "read", monitor, [&] {
    rows = read_dataset(comm, o.input, o.dataset, o.input_format);
    apply_metric(comm, rows, o.metric);
    if (!o.labels.empty()) raw = read_row_labels(comm, o.labels, o.labels_dataset, rows);
  });
  HashTrained t;
  train_model(comm, o, rows, std::move(raw), !o.labels.empty(), "--labels '" + o.labels + "'",
              s, t, monitor);
  s.t_write = timed_phase(comm, "write", monitor, [&] {
    hash::write_model(comm, o.output, t.model, t.database, t.objective,
                      model_attributes(comm, o, s));
  });
  s.t_total = MPI_Wtime() - t_start;
  report_train(comm, o, s, t.model, monitor);
  return s;
}

HashTrainSummary hash_train_rows(MPI_Comm comm, const HashTrainOptions& o, LocalRows rows,
                                 const std::vector<std::int64_t>* labels, HashTrained& out,
                                 Monitor& monitor) {
  const double t_start = MPI_Wtime();
  HashTrainSummary s;
  if (!blas_kernel_advice().empty()) monitor.message(MessageKind::kInfo, blas_kernel_advice());
  check_train_options(comm, o, labels != nullptr, "labels");
  collective_check(comm, !labels || labels->size() == static_cast<std::size_t>(rows.local_rows()),
                   "labels must hold one entry per row of X");
  check_finite_rows(comm, rows, "the data");
  apply_metric(comm, rows, o.metric);
  train_model(comm, o, rows, labels ? *labels : std::vector<std::int64_t>{}, labels != nullptr,
              "labels", s, out, monitor);
  out.metric = o.metric;
  s.t_total = MPI_Wtime() - t_start;
  out.attributes = model_attributes(comm, o, s);
  report_train(comm, o, s, out.model, monitor);
  return s;
}

namespace {

// Collective. The --metric a model was trained with (models written before it: euclidean).
Metric model_metric(MPI_Comm comm, const std::string& path) {
  const h5::File f = h5::open_read(comm, path);
  if (!h5::has_attr(f, "/hash", "metric")) return Metric::kEuclidean;
  const std::string name = h5::get_attr_string(f, "/hash", "metric");
  const std::optional<Metric> metric = value_named<Metric>(name);
  collective_check(comm, metric.has_value(),
                   "'" + path + "': unknown /hash metric '" + name + "' (expected " +
                       names_list<Metric>() + ")");
  return *metric;
}

}  // namespace

void write_hash_model(MPI_Comm comm, const std::string& path, const HashTrained& t) {
  check_output(comm, path, {});
  hash::write_model(comm, path, t.model, t.database, t.objective, t.attributes);
}

HashTrained read_hash_model(MPI_Comm comm, const std::string& path) {
  HashTrained t;
  t.model = hash::read_model(comm, path);
  t.metric = model_metric(comm, path);
  t.database = hash::read_codes(comm, path, false);
  t.attributes = t.database.attributes;
  const h5::File f = h5::open_read(comm, path);
  const std::int64_t len = h5::dataset_info(f, "/hash/objective").dims.at(0);
  t.objective = h5::read_1d<double>(f, "/hash/objective", 0, len);
  return t;
}

std::vector<std::uint8_t> encode_rows(MPI_Comm comm, const HashTrained& t, LocalRows rows) {
  collective_check(comm, rows.d == t.model.features.input_dim,
                   "X has " + std::to_string(rows.d) + " columns, the model expects " +
                       std::to_string(t.model.features.input_dim));
  check_finite_rows(comm, rows, "the data");
  apply_metric(comm, rows, t.metric);
  return hash::pack_codes(hash::encode(comm, t.model, rows.data(), rows.local_rows()),
                          t.model.bits);
}

HashEncodeSummary run_hash_encode(MPI_Comm comm, const HashEncodeOptions& o, Monitor& monitor) {
  const double t_start = MPI_Wtime();
  HashEncodeSummary s;
  check_output(comm, o.output,
               {{"--input", o.input}, {"--labels", o.labels}, {"--model", o.model}});
  collective_check(comm, o.per_class == 0 || !o.labels.empty(), "--per-class needs --labels");
  collective_check(comm, o.per_class >= 0, "--per-class must be >= 0");
  const hash::Model m = hash::read_model(comm, o.model);
  const Metric metric = model_metric(comm, o.model);
  LocalRows rows;
  std::vector<std::int64_t> raw;
  timed_phase(comm, "read", monitor, [&] {
    rows = read_dataset(comm, o.input, o.dataset, o.input_format);
    apply_metric(comm, rows, metric);
    collective_check(comm, rows.d == m.features.input_dim,
                     "--input has " + std::to_string(rows.d) + " columns, the model expects " +
                         std::to_string(m.features.input_dim));
    if (!o.labels.empty()) raw = read_row_labels(comm, o.labels, o.labels_dataset, rows);
  });
  const std::int64_t local = rows.local_rows();
  std::vector<std::int64_t> chosen;  // local rows to encode, ascending
  if (o.per_class > 0) {
    const NodeLabels lab = make_node_labels(comm, raw, kMaxClasses);
    std::vector<char> take(static_cast<std::size_t>(local), 0);
    for (int c = 0; c < lab.num_classes(); ++c) {
      std::vector<SelectKey> keys;
      std::vector<std::int64_t> where;
      for (std::int64_t i = 0; i < local; ++i)
        if (lab.index[i] == c) {
          const std::int64_t g = rows.begin + i;
          const std::uint64_t z = (o.seed + 1) * kSplitMixGamma ^ static_cast<std::uint64_t>(g);
          keys.push_back(make_key(mix64(z), 0, g));
          where.push_back(i);
        }
      const std::vector<char> mask = select_top(comm, keys, o.per_class);
      for (std::size_t t = 0; t < mask.size(); ++t)
        if (mask[t]) take[where[t]] = 1;
      s.short_classes += allreduce_sum(comm, static_cast<std::int64_t>(keys.size())) < o.per_class;
    }
    for (std::int64_t i = 0; i < local; ++i)
      if (take[i]) chosen.push_back(i);
  } else {
    for (std::int64_t i = 0; i < local; ++i) chosen.push_back(i);
  }
  hash::CodeBlock block;
  block.bits = m.bits;
  s.t_encode = timed_phase(comm, "encode", monitor, [&] {
    std::vector<float> x;
    x.reserve(chosen.size() * static_cast<std::size_t>(rows.d));
    for (std::int64_t i : chosen) x.insert(x.end(), rows.row(i), rows.row(i) + rows.d);
    const auto cnt = static_cast<std::int64_t>(chosen.size());
    block.codes = hash::pack_codes(hash::encode(comm, m, x.data(), cnt), m.bits);
    block.n = allreduce_sum(comm, cnt);
    block.begin = exscan_sum(comm, cnt);
    block.has_labels = !o.labels.empty();
    for (std::int64_t i : chosen) {
      block.rows.push_back(rows.begin + i);
      if (block.has_labels) block.labels.push_back(raw[i]);
    }
  });
  s.rows = block.n;
  timed_phase(comm, "write", monitor, [&] {
    Attributes attrs = {{"loss", to_string(m.loss)},
                        {"solver", to_string(m.solver)},
                        {"features", to_string(m.features.kind)},
                        {"metric", to_string(metric)},
                        {"model_digest", hash::model_digest(comm, m)},
                        {"encode_seconds", s.t_encode},
                        {"per_class", o.per_class},
                        {"seed", static_cast<std::int64_t>(o.seed)}};
    for (auto& a : provenance_attributes(
             comm, o.command_line, o.configuration,
             {{"model", o.model}, {"input", o.input}, {"labels", o.labels}}))
      attrs.push_back(std::move(a));
    hash::write_codes(comm, o.output, block, attrs);
  });
  s.t_total = MPI_Wtime() - t_start;
  monitor.message(MessageKind::kSummary,
                  strprintf("lsgl hash encode: %lld of %lld rows -> %s (%d bits), encode %.3f s, "
                            "total %.2f s",
                            static_cast<long long>(s.rows), static_cast<long long>(rows.n),
                            o.output.c_str(), m.bits, s.t_encode, s.t_total));
  if (s.short_classes > 0)
    monitor.message(
        MessageKind::kSummary,
        strprintf("  note: %lld labels have fewer than %lld rows; all of theirs were "
                  "taken",
                  static_cast<long long>(s.short_classes), static_cast<long long>(o.per_class)));
  return s;
}

namespace {

std::string attr_string(const Attributes& a, const std::string& name) {
  for (const auto& [k, v] : a)
    if (k == name && std::holds_alternative<std::string>(v)) return std::get<std::string>(v);
  return "";
}
double attr_double(const Attributes& a, const std::string& name) {
  for (const auto& [k, v] : a)
    if (k == name && std::holds_alternative<double>(v)) return std::get<double>(v);
  return -1.0;
}

// Collective (q and db are the same on every rank). Refuses queries and a database whose codes
// come from different models: loss, solver, features, metric or the model's digest differ
// (attributes an older file lacks are not compared).
void check_same_model(MPI_Comm comm, const HashEvalOptions& o, const hash::CodeBlock& q,
                      const hash::CodeBlock& db) {
  for (const char* name : {"loss", "solver", "features", "metric", "model_digest"}) {
    const std::string a = attr_string(q.attributes, name), b = attr_string(db.attributes, name);
    collective_check(comm, a.empty() || b.empty() || a == b,
                     "--queries '" + o.queries + "' and --database '" + o.database +
                         "' hold codes of different models (" + name + " " + a + " and " + b +
                         "): encode both with the same model (`lsgl hash encode --model M`)");
  }
}

}  // namespace

HashEvalSummary evaluate_codes(MPI_Comm comm, const hash::CodeBlock& q,
                               const hash::CodeBlock& db, std::int64_t top) {
  collective_check(comm, q.bits == db.bits,
                   "the queries have " + std::to_string(q.bits) + "-bit codes, the database " +
                       std::to_string(db.bits) + "-bit codes");
  collective_check(comm, q.has_labels && db.has_labels, "queries and database need labels");
  collective_check(comm, top >= 1, "--top must be >= 1");
  // Label values -> indices of the database's distinct labels (-1: absent from the database).
  std::vector<std::int64_t> values(db.labels);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  auto index_of = [&](std::int64_t v) {
    const auto it = std::lower_bound(values.begin(), values.end(), v);
    return it != values.end() && *it == v ? static_cast<std::int32_t>(it - values.begin()) : -1;
  };
  std::vector<std::int32_t> ql, dl;
  for (std::int64_t v : q.labels) ql.push_back(index_of(v));
  for (std::int64_t v : db.labels) dl.push_back(index_of(v));
  HashEvalSummary s;
  s.bits = db.bits;
  s.database = db.n;
  s.score = hash::evaluate_retrieval(comm, q.codes, ql, db.codes, dl, db.bits, top);
  return s;
}

HashEvalSummary run_hash_eval(MPI_Comm comm, const HashEvalOptions& o, Monitor& monitor) {
  const double t0 = MPI_Wtime();
  collective_check(comm, !o.queries.empty() && !o.database.empty(),
                   "--queries and --database are required");
  collective_check(comm, o.top >= 1, "--top must be >= 1");
  if (!o.json.empty()) {
    check_distinct_files(comm, {{"--queries", o.queries}, {"--database", o.database}},
                         {{"--json", o.json}});
    check_writable(comm, o.json);
  }
  const hash::CodeBlock q = hash::read_codes(comm, o.queries, false);
  const hash::CodeBlock db = hash::read_codes(comm, o.database, true);
  collective_check(comm, q.bits == db.bits,
                   "the queries have " + std::to_string(q.bits) + "-bit codes, the database " +
                       std::to_string(db.bits) + "-bit codes");
  check_same_model(comm, o, q, db);
  collective_check(comm, q.has_labels && db.has_labels,
                   "both --queries and --database need labels (/hash/labels)");
  HashEvalSummary s = evaluate_codes(comm, q, db, o.top);
  s.seconds = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &s.seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  const std::string loss = attr_string(db.attributes, "loss");
  const std::string solver = attr_string(db.attributes, "solver");
  const auto summary = [&](const std::string& line) {
    monitor.message(MessageKind::kSummary, line);
  };
  summary(strprintf("lsgl hash eval: %lld queries against %lld database codes, %d bits (%s, %s)",
                    static_cast<long long>(s.score.queries), static_cast<long long>(s.database),
                    s.bits, loss.c_str(), solver.c_str()));
  summary(strprintf("  %-22s %10.4f", "MAP", s.score.map));
  summary(strprintf("  %-22s %10.4f", ("Precision@" + std::to_string(o.top)).c_str(),
                    s.score.precision_at_k));
  summary(
      strprintf("  %-22s %10.3f", "train seconds", attr_double(db.attributes, "train_seconds")));
  summary(
      strprintf("  %-22s %10.3f", "B-step seconds", attr_double(db.attributes, "bstep_seconds")));
  summary(strprintf("  %-22s %10.3f", "encode seconds (queries)",
                    attr_double(q.attributes, "encode_seconds")));
  if (s.score.no_relevant > 0)
    summary(strprintf("  note: %lld queries have no database item with their label (AP 0)",
                      static_cast<long long>(s.score.no_relevant)));
  if (!o.json.empty()) {
    JsonObject j;
    j.add("queries_file", json_string(o.queries))
        .add("database_file", json_string(o.database))
        .add("queries", json_number(s.score.queries))
        .add("database", json_number(s.database))
        .add("bits", json_number(s.bits))
        .add("loss", json_string(loss))
        .add("solver", json_string(solver))
        .add("features", json_string(attr_string(db.attributes, "features")))
        .add("map", json_number(s.score.map))
        .add("precision_at_" + std::to_string(o.top), json_number(s.score.precision_at_k))
        .add("no_relevant", json_number(s.score.no_relevant))
        .add("train_seconds", json_number(attr_double(db.attributes, "train_seconds")))
        .add("bstep_seconds", json_number(attr_double(db.attributes, "bstep_seconds")))
        .add("encode_seconds", json_number(attr_double(q.attributes, "encode_seconds")))
        .add("eval_seconds", json_number(s.seconds));
    write_text_file(comm, o.json, j.str() + "\n");
  }
  return s;
}

}  // namespace lsgl
