#include "lsgl/pipeline/learn_json.hpp"

#include "lsgl/util/json.hpp"

namespace lsgl {

std::string learn_summary_json(const LearnOptions& o, const LearnSummary& s) {
  JsonObject seconds(2);
  seconds.add("read", json_number(s.t_read))
      .add("order", json_number(s.t_order))
      .add("candidates", json_number(s.t_candidates))
      .add("recall", json_number(s.t_recall))
      .add("prepare", json_number(s.t_prepare))
      .add("learn", json_number(s.t_learn))
      .add("write", json_number(s.t_write))
      .add("total", json_number(s.t_total));
  JsonObject j;
  j.add("input", json_string(o.input))
      .add("output", json_string(o.output))
      .add("model", json_string(to_string(o.model)))
      .add("n", json_number(s.n))
      .add("d", json_number(s.d))
      .add("k_requested", json_number(o.k))
      .add("edges", json_number(s.edges))
      .add("allowed_edges", json_number(s.allowed_edges))
      .add("average_degree", json_number(s.avg_degree))
      .add("degree_deviation", json_number(s.degree_deviation))
      .add("candidates_per_node", json_number(s.candidates_per_node))
      .add("recall_estimate", s.recall >= 0 ? json_number(s.recall) : "null")
      .add("ann_engine", json_string(s.search.engine_name()))
      .add("isolated_nodes", json_number(s.isolated_nodes))
      .add("saturated_nodes", json_number(s.saturated_nodes))
      .add("iterations", json_number(s.solver.iterations))
      .add("converged", json_bool(s.solver.converged))
      .add("ms_per_iteration", json_number(s.ms_per_iteration))
      .add("seconds", seconds.str())
      .add("peak_rss_max_bytes", json_number(s.peak_rss_max))
      .add("peak_rss_sum_bytes", json_number(s.peak_rss_sum));
  return j.str();
}

}  // namespace lsgl
