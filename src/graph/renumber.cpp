// Dense ids for named edge-list nodes (see renumber.hpp).
#include "lsgl/graph/renumber.hpp"

#include <algorithm>
#include <unordered_map>

#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/parallel_file.hpp"

namespace lsgl {

namespace {

// FNV-1a: the rank that owns a name, the same on every rank and in every run.
int owner_of(const std::string& name, int size) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const unsigned char c : name) h = (h ^ c) * 1099511628211ULL;
  return static_cast<int>(h % static_cast<std::uint64_t>(size));
}

// A name sent to its owner: where it first appears on the sender, and its length.
struct NameKey {
  std::int64_t block;
  std::int64_t local;  // the sender's number of the name (in order of appearance)
  std::int64_t length;
};

// Names packed for one exchange: keys and the concatenated characters, per destination rank.
struct Packed {
  std::vector<std::vector<NameKey>> keys;
  std::vector<std::vector<char>> chars;
  explicit Packed(int size) : keys(size), chars(size) {}
  void add(int to, const NameKey& k, const std::string& name) {
    keys[to].push_back(k);
    chars[to].insert(chars[to].end(), name.begin(), name.end());
  }
};

// Sends back one value per received item (in the order received) to the item's sender.
template <class T>
std::vector<T> reply(MPI_Comm comm, const std::vector<std::int64_t>& counts_by_source,
                     const std::vector<T>& values) {
  std::vector<std::vector<T>> back(counts_by_source.size());
  std::size_t at = 0;
  for (std::size_t p = 0; p < back.size(); ++p)
    for (std::int64_t i = 0; i < counts_by_source[p]; ++i) back[p].push_back(values[at++]);
  return alltoallv(comm, back);
}

// Items received per source rank, from every rank's counts of items sent.
std::vector<std::int64_t> counts_by_source(MPI_Comm comm, const std::vector<std::int64_t>& sent) {
  std::vector<std::int64_t> got(sent.size());
  MPI_Alltoall(sent.data(), 1, MPI_INT64_T, got.data(), 1, MPI_INT64_T, comm);
  return got;
}

// The global id of each of this rank's names (in table order), and whether the name's first
// appearance in the file is on this rank.
struct GlobalIds {
  std::vector<std::int64_t> id;
  std::vector<char> first_here;
};

// Collective. The ids of this rank's names (see above); n: the number of names.
GlobalIds global_ids(MPI_Comm comm, const NameTable& table, std::int64_t& n) {
  const int size = comm_size(comm);
  const std::size_t m = table.names.size();
  Packed out(size);
  std::vector<int> owner(m);
  std::vector<std::int64_t> sent(size, 0);
  for (std::size_t i = 0; i < m; ++i) {
    owner[i] = owner_of(table.names[i], size);
    out.add(owner[i], {table.first_block[i], static_cast<std::int64_t>(i),
                       static_cast<std::int64_t>(table.names[i].size())},
            table.names[i]);
    ++sent[owner[i]];
  }
  const std::vector<NameKey> keys = alltoallv(comm, out.keys);
  const std::vector<char> chars = alltoallv(comm, out.chars);
  const std::vector<std::int64_t> from = counts_by_source(comm, sent);
  // The owner: for each received item, the item of its name that comes first in the file.
  std::unordered_map<std::string, std::size_t> first;
  std::vector<std::size_t> first_of(keys.size());
  std::size_t at = 0;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    std::string name(chars.data() + at, static_cast<std::size_t>(keys[j].length));
    at += static_cast<std::size_t>(keys[j].length);
    const auto [it, added] = first.emplace(std::move(name), j);
    const NameKey& best = keys[it->second];
    if (!added && (keys[j].block < best.block ||
                   (keys[j].block == best.block && keys[j].local < best.local)))
      it->second = j;
  }
  at = 0;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    std::string name(chars.data() + at, static_cast<std::size_t>(keys[j].length));
    at += static_cast<std::size_t>(keys[j].length);
    first_of[j] = first.at(name);
  }
  first.clear();
  std::vector<char> wins(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j) wins[j] = first_of[j] == j ? 1 : 0;
  // Back on the sender (its items come back from the owners in rank order, each in send order).
  std::vector<std::vector<std::size_t>> sent_items(size);
  for (std::size_t i = 0; i < m; ++i) sent_items[owner[i]].push_back(i);
  std::vector<std::size_t> order;  // table number of the k-th item of the replies
  for (const auto& items : sent_items) order.insert(order.end(), items.begin(), items.end());
  const std::vector<char> won = reply(comm, from, wins);
  std::vector<char> mine(m, 0);
  for (std::size_t k = 0; k < m; ++k) mine[order[k]] = won[k];
  // The first appearances, numbered by block (file order), then by position in the block.
  std::int64_t blocks = 0;
  for (std::size_t i = 0; i < m; ++i) blocks = std::max(blocks, table.first_block[i] + 1);
  blocks = allreduce_max(comm, blocks);
  std::vector<std::int64_t> per_block(static_cast<std::size_t>(blocks), 0);
  for (std::size_t i = 0; i < m; ++i)
    if (mine[i]) ++per_block[static_cast<std::size_t>(table.first_block[i])];
  MPI_Allreduce(MPI_IN_PLACE, per_block.data(), static_cast<int>(blocks), MPI_INT64_T, MPI_SUM,
                comm);
  std::vector<std::int64_t> next(per_block.size(), 0);
  n = 0;
  for (std::size_t b = 0; b < per_block.size(); ++b) {
    next[b] = n;
    n += per_block[b];
  }
  std::vector<std::int64_t> id(m, -1);
  for (std::size_t i = 0; i < m; ++i)  // table order is the order of appearance on this rank
    if (mine[i]) id[i] = next[static_cast<std::size_t>(table.first_block[i])]++;
  // The owners learn the ids of the first appearances and send every sender its names' ids.
  std::vector<std::vector<std::int64_t>> ids_out(size);
  for (std::size_t i = 0; i < m; ++i) ids_out[owner[i]].push_back(id[i]);
  const std::vector<std::int64_t> ids_in = alltoallv(comm, ids_out);
  std::vector<std::int64_t> resolved(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j) resolved[j] = ids_in[first_of[j]];
  const std::vector<std::int64_t> back = reply(comm, from, resolved);
  GlobalIds g;
  g.id.resize(m);
  for (std::size_t k = 0; k < m; ++k) g.id[order[k]] = back[k];
  g.first_here = std::move(mine);
  return g;
}

// The names of this rank's block of ids, from the ranks where they first appear.
std::vector<std::string> names_by_id(MPI_Comm comm, const NameTable& table,
                                     const std::vector<std::int64_t>& global, std::int64_t n,
                                     const std::vector<char>& first_here) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  const Partition part(n, size);
  Packed out(size);
  for (std::size_t i = 0; i < table.names.size(); ++i)
    if (first_here[i])
      out.add(part.owner(global[i]),
              {0, global[i], static_cast<std::int64_t>(table.names[i].size())}, table.names[i]);
  const std::vector<NameKey> keys = alltoallv(comm, out.keys);
  const std::vector<char> chars = alltoallv(comm, out.chars);
  std::vector<std::string> names(static_cast<std::size_t>(part.count(rank)));
  std::size_t at = 0;
  for (const NameKey& k : keys) {
    names[static_cast<std::size_t>(k.local - part.begin(rank))]
        .assign(chars.data() + at, static_cast<std::size_t>(k.length));
    at += static_cast<std::size_t>(k.length);
  }
  return names;
}

}  // namespace

Renumbering renumber_names(MPI_Comm comm, const NameTable& table,
                           std::vector<DirectedEntry>& entries) {
  Renumbering r;
  const GlobalIds g = global_ids(comm, table, r.n);
  for (DirectedEntry& e : entries) {
    e.u = g.id[static_cast<std::size_t>(e.u)];
    e.v = g.id[static_cast<std::size_t>(e.v)];
  }
  r.names = names_by_id(comm, table, g.id, r.n, g.first_here);
  return r;
}

std::string node_ids_path(const std::string& path) { return path + ".ids"; }

void write_node_names(MPI_Comm comm, const std::string& path,
                      const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text.append(name).push_back('\n');
  write_atomically(comm, path, [&](const std::string& tmp) {
    write_in_rank_order(comm, tmp, std::move(text), path);
  });
}

}  // namespace lsgl
