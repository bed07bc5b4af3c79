// HDF5 model and codes files of `lsgl hash` (see model_io.hpp).
#include "lsgl/hash/model_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <variant>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/hash/retrieval.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl::hash {

namespace {

constexpr const char* kModelFormat = "lsgl-hash-model";
constexpr const char* kCodesFormat = "lsgl-hash-codes";

void write_block(const h5::File& f, const CodeBlock& b) {
  const std::int64_t nb = code_bytes(b.bits);
  h5::write_2d(f, "/hash/codes", b.codes, b.begin, b.n, nb);
  if (b.has_labels)
    h5::write_1d(f, "/hash/labels", b.labels, b.begin, b.n);
}

// The format attribute of /hash, or "" when the file has none.
std::string format_of(const h5::File& f) {
  try {
    return h5::get_attr_string(f, "/hash", "format");
  } catch (const CollectiveError&) {
    return "";
  }
}

// The choice named by the string attribute `name` of /hash; std::runtime_error naming the file
// for a name lsgl does not know (call inside collectively).
template <class E>
E read_choice(const h5::File& f, const std::string& path, const char* name) {
  const std::string value = h5::get_attr_string(f, "/hash", name);
  if (const auto e = value_named<E>(value)) return *e;
  throw std::runtime_error("'" + path + "': unknown /hash " + name + " '" + value +
                           "' (expected " + names_list<E>() + ")");
}

// The bits attribute of /hash, refused unless in [1, kMaxBits].
int read_bits(MPI_Comm comm, const h5::File& f, const std::string& path) {
  const std::int64_t bits = h5::get_attr_int(f, "/hash", "bits");
  collective_check(comm, bits >= 1 && bits <= kMaxBits,
                   "'" + path + "': the bits attribute " + std::to_string(bits) +
                       " is not in [1, " + std::to_string(kMaxBits) + "]");
  return static_cast<int>(bits);
}

// FNV-1a over raw bytes.
void fnv1a(std::uint64_t& h, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ULL;
}

void fnv1a(std::uint64_t& h, const std::vector<double>& v) {
  fnv1a(h, v.data(), v.size() * sizeof(double));
}

}  // namespace

std::string model_digest(MPI_Comm comm, const Model& m) {
  std::uint64_t h = 14695981039346656037ULL;
  if (comm_rank(comm) == 0) {
    const std::string kinds = to_string(m.loss) + "/" + to_string(m.features.kind);
    fnv1a(h, kinds.data(), kinds.size());
    fnv1a(h, &m.bits, sizeof m.bits);
    fnv1a(h, &m.features.sigma, sizeof m.features.sigma);
    fnv1a(h, m.P.a);
    fnv1a(h, m.features.mean);
    fnv1a(h, m.features.anchors.a);
  }
  MPI_Bcast(&h, 1, MPI_UINT64_T, 0, comm);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

void write_model(MPI_Comm comm, const std::string& path, const Model& m, const CodeBlock& block,
                 const std::vector<double>& objective, const Attributes& attributes) {
  const bool root = comm_rank(comm) == 0;
  Attributes checked(attributes);
  checked.emplace_back("sigma", m.features.sigma);
  check_finite_values(comm, "hash model",
                      {{"/hash/P", &m.P.a},
                       {"/hash/mean", &m.features.mean},
                       {"/hash/anchors", &m.features.anchors.a},
                       {"/hash/objective", &objective}},
                      checked);
  const std::string digest = model_digest(comm, m);
  write_hdf5_atomically(comm, path, [&](const h5::File& f) {
    h5::ensure_group(f, "/hash");
    const std::int64_t dim = m.P.rows;
    h5::write_2d(f, "/hash/P", root ? m.P.a : std::vector<double>{}, 0, dim, m.bits);
    h5::write_1d(f, "/hash/mean", root ? m.features.mean : std::vector<double>{}, 0, dim);
    if (m.features.kind == FeatureKind::kRbf) {
      const Mat& a = m.features.anchors;
      h5::write_2d(f, "/hash/anchors", root ? a.a : std::vector<double>{}, 0, a.rows, a.cols);
    }
    h5::write_1d(f, "/hash/objective", root ? objective : std::vector<double>{}, 0,
                 static_cast<std::int64_t>(objective.size()));
    write_block(f, block);
    set_attributes(f, "/hash", {{"format", std::string(kModelFormat)},
                       {"format_version", std::int64_t{1}},
                       {"bits", static_cast<std::int64_t>(m.bits)},
                       {"loss", to_string(m.loss)},
                       {"solver", to_string(m.solver)},
                       {"features", to_string(m.features.kind)},
                       {"input_dim", m.features.input_dim},
                       {"sigma", m.features.sigma},
                       {"model_digest", digest}});
    set_attributes(f, "/hash", attributes);
  });
}

Model read_model(MPI_Comm comm, const std::string& path) {
  h5::File f = h5::open_read(comm, path);
  collective_check(comm, format_of(f) == kModelFormat,
                   "'" + path + "' is not an lsgl hash model (no /hash format attribute '" +
                       std::string(kModelFormat) + "'; make one with 'lsgl hash train')");
  Model m;
  m.bits = read_bits(comm, f, path);
  collectively(comm, [&] {
    m.loss = read_choice<Loss>(f, path, "loss");
    m.solver = read_choice<BSolver>(f, path, "solver");
    m.features.kind = read_choice<FeatureKind>(f, path, "features");
  });
  m.features.input_dim = h5::get_attr_int(f, "/hash", "input_dim");
  m.features.sigma = h5::get_attr_double(f, "/hash", "sigma");
  const h5::DatasetInfo pi = h5::dataset_info(f, "/hash/P");
  collective_check(comm, pi.dims.size() == 2 && pi.dims[1] == m.bits,
                   "'" + path + "': /hash/P is not dim x bits");
  m.P = Mat(pi.dims[0], m.bits);
  m.P.a = h5::read_2d<double>(f, "/hash/P", 0, pi.dims[0]);
  m.features.mean = h5::read_1d<double>(f, "/hash/mean", 0, pi.dims[0]);
  if (m.features.kind == FeatureKind::kRbf) {
    const h5::DatasetInfo ai = h5::dataset_info(f, "/hash/anchors");
    collective_check(comm,
                     ai.dims.size() == 2 && ai.dims[0] == pi.dims[0] &&
                         ai.dims[1] == m.features.input_dim,
                     "'" + path + "': /hash/anchors does not match /hash/P");
    m.features.anchors = Mat(ai.dims[0], ai.dims[1]);
    m.features.anchors.a = h5::read_2d<double>(f, "/hash/anchors", 0, ai.dims[0]);
  } else {
    collective_check(comm, pi.dims[0] == m.features.input_dim,
                     "'" + path + "': /hash/P does not match the input dimension");
  }
  return m;
}

void write_codes(MPI_Comm comm, const std::string& path, const CodeBlock& block,
                 const Attributes& attributes) {
  check_finite_values(comm, "codes file", {}, attributes);
  write_hdf5_atomically(comm, path, [&](const h5::File& f) {
    h5::ensure_group(f, "/hash");
    write_block(f, block);
    h5::write_1d(f, "/hash/rows", block.rows, block.begin, block.n);
    set_attributes(f, "/hash", {{"format", std::string(kCodesFormat)},
                       {"format_version", std::int64_t{1}},
                       {"bits", static_cast<std::int64_t>(block.bits)}});
    set_attributes(f, "/hash", attributes);
  });
}

CodeBlock read_codes(MPI_Comm comm, const std::string& path, bool all) {
  h5::File f = h5::open_read(comm, path);
  const std::string format = format_of(f);
  collective_check(comm, format == kModelFormat || format == kCodesFormat,
                   "'" + path + "' holds no lsgl hash codes (make them with 'lsgl hash train' "
                   "or 'lsgl hash encode')");
  CodeBlock b;
  b.bits = read_bits(comm, f, path);
  const h5::DatasetInfo ci = h5::dataset_info(f, "/hash/codes");
  collective_check(comm, ci.dims.size() == 2 && ci.dims[1] == code_bytes(b.bits),
                   "'" + path + "': /hash/codes does not match its bits attribute");
  b.n = ci.dims[0];
  const Partition part(b.n, comm_size(comm));
  const int rank = comm_rank(comm);
  b.begin = all ? 0 : part.begin(rank);
  const std::int64_t count = all ? b.n : part.count(rank);
  // The codes, labels and rows, and (hash eval) a distance and a flag per database item.
  check_allocation(comm, static_cast<double>(count) * (static_cast<double>(ci.dims[1]) + 19.0),
                   "'" + path + "': " + std::to_string(count) + " codes on one rank");
  b.codes = h5::read_2d<std::uint8_t>(f, "/hash/codes", b.begin, count);
  b.has_labels = true;
  try {
    h5::dataset_info(f, "/hash/labels");
  } catch (const CollectiveError&) {
    b.has_labels = false;
  }
  if (b.has_labels) b.labels = h5::read_1d<std::int64_t>(f, "/hash/labels", b.begin, count);
  if (format == kCodesFormat) {
    b.rows = h5::read_1d<std::int64_t>(f, "/hash/rows", b.begin, count);
  } else {
    for (std::int64_t i = 0; i < count; ++i) b.rows.push_back(b.begin + i);
  }
  for (const char* name : {"loss", "solver", "features", "metric", "model_digest"}) {
    try {
      b.attributes.push_back({name, h5::get_attr_string(f, "/hash", name)});
    } catch (const CollectiveError&) {
    }
  }
  for (const char* name : {"train_seconds", "bstep_seconds", "encode_seconds"}) {
    try {
      b.attributes.push_back({name, h5::get_attr_double(f, "/hash", name)});
    } catch (const CollectiveError&) {
    }
  }
  return b;
}

}  // namespace lsgl::hash
