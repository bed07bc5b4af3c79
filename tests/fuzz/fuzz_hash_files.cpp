// libFuzzer target: the model and codes files of `lsgl hash` (lsgl/hash/model_io.hpp). Three
// templates are written at start by write_model and write_codes (a raw-feature model, an RBF
// model, a codes file); the input mutates a copy (fuzz_support) and reads it as a model or as
// codes. A model read must have P of dim x bits with bits in [1, 1024], a mean of dim values and
// (RBF) anchors of dim x input_dim; codes read must have n rows of ceil(bits/8) bytes, n labels
// when labelled and n row numbers. Anything else must be a CollectiveError.
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"
#include "lsgl/hash/model_io.hpp"
#include "lsgl/util/error.hpp"

namespace {

using namespace lsgl;
using namespace lsgl::hash;

struct Template {
  std::string path;
  fuzz::Inventory inv;
};

CodeBlock block(int bits) {
  CodeBlock b;
  b.n = 4;
  b.bits = bits;
  for (int i = 0; i < 4 * ((bits + 7) / 8); ++i) b.codes.push_back(static_cast<std::uint8_t>(i));
  b.has_labels = true;
  b.labels = {0, 1, 1, 2};
  b.rows = {0, 1, 2, 3};
  return b;
}

Template model(bool rbf) {
  Model m;
  m.bits = 5;
  m.features.kind = rbf ? FeatureKind::kRbf : FeatureKind::kRaw;
  m.features.input_dim = 3;
  const std::int64_t dim = rbf ? 4 : 3;
  if (rbf) {
    m.features.anchors = Mat(dim, 3);
    for (std::size_t i = 0; i < m.features.anchors.a.size(); ++i) m.features.anchors.a[i] = 0.1 * i;
    m.features.sigma = 1.5;
  }
  m.P = Mat(dim, m.bits);
  for (std::size_t i = 0; i < m.P.a.size(); ++i) m.P.a[i] = 0.5 - 0.1 * i;
  m.features.mean.assign(static_cast<std::size_t>(dim), 0.25);
  Template t;
  t.path = fuzz::scratch_dir() + (rbf ? "/model-rbf.h5" : "/model-raw.h5");
  write_model(MPI_COMM_SELF, t.path, m, block(5), {3.0, 2.0}, {{"train_seconds", 0.5}});
  t.inv = fuzz::inventory(t.path);
  return t;
}

Template codes() {
  Template t;
  t.path = fuzz::scratch_dir() + "/codes.h5";
  write_codes(MPI_COMM_SELF, t.path, block(12), {{"encode_seconds", 0.1}});
  t.inv = fuzz::inventory(t.path);
  return t;
}

const Template& templ(int which) {
  static const Template raw = model(false), rbf = model(true), coded = codes();
  return which == 0 ? raw : which == 1 ? rbf : coded;
}

void check_model(const Model& m) {
  const std::int64_t dim = m.P.rows;
  bool ok = m.bits >= 1 && m.bits <= 1024 && m.P.cols == m.bits &&
            static_cast<std::int64_t>(m.P.a.size()) == dim * m.bits &&
            static_cast<std::int64_t>(m.features.mean.size()) == dim && dim == m.features.dim();
  if (m.features.kind == FeatureKind::kRbf)
    ok = ok && m.features.anchors.cols == m.features.input_dim &&
         static_cast<std::int64_t>(m.features.anchors.a.size()) ==
             m.features.anchors.rows * m.features.anchors.cols;
  if (!ok) std::abort();
}

void check_codes(const CodeBlock& b) {
  const std::int64_t n = b.n;
  const bool ok = b.bits >= 1 && b.bits <= 1024 && n >= 0 &&
                  static_cast<std::int64_t>(b.codes.size()) == n * ((b.bits + 7) / 8) &&
                  (!b.has_labels || static_cast<std::int64_t>(b.labels.size()) == n) &&
                  static_cast<std::int64_t>(b.rows.size()) == n && b.local() == n;
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  fuzz::init_process(argc, argv);
  for (int which = 0; which < 3; ++which) templ(which);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  const std::uint8_t choice = in.byte();
  const Template& t = templ(choice % 3);
  const std::string path = fuzz::scratch_dir() + "/hash.h5";
  fuzz::mutate_copy(t.path, t.inv, path, in);
  try {
    if (choice & 4)
      check_model(read_model(MPI_COMM_SELF, path));
    else
      check_codes(read_codes(MPI_COMM_SELF, path, true));
  } catch (const CollectiveError&) {
  }
  return 0;
}
