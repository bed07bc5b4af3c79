// scipy.sparse.save_npz's layout written in parallel (see graph_export.hpp): an uncompressed
// ZIP64 archive of .npy members. Every rank knows the sizes of all members (from global counts),
// so each writes its slice of indices, data and indptr at its offset; CRC-32s of the slices are
// combined on rank 0 (zlib's crc32_combine), which writes the headers and the central directory.
#include <zlib.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "lsgl/graph/graph_export.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/parallel_file.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npz export writes host byte order");

namespace lsgl {

namespace {

constexpr std::uint32_t kMax32 = 0xFFFFFFFFu;
constexpr int kVersion = 45;           // ZIP64
constexpr std::uint16_t kDate = 0x21;  // 1980-01-01

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

// The .npy version 1.0 header for an array of `descr` and `shape` ("(5,)", "()"), padded so
// that the data start at a multiple of 64 bytes.
std::string npy_header(const std::string& descr, const std::string& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string h("\x93NUMPY\x01\x00", 8);
  put<std::uint16_t>(h, static_cast<std::uint16_t>(dict.size()));
  return h + dict;
}

// One archive member: its name, its .npy header, the global byte count of its values, its
// offset in the file and its CRC-32 (known on rank 0 after combine_crcs).
struct Member {
  std::string name;
  std::string header;
  std::int64_t value_bytes = 0;
  std::int64_t offset = 0;  // of the local file header
  std::uint32_t crc = 0;
  std::int64_t size() const { return static_cast<std::int64_t>(header.size()) + value_bytes; }
  std::int64_t data_offset() const {
    return offset + 30 + static_cast<std::int64_t>(name.size()) + 20;
  }
};

std::string local_header(const Member& m) {
  std::string h;
  put<std::uint32_t>(h, 0x04034b50);
  put<std::uint16_t>(h, kVersion);
  put<std::uint16_t>(h, 0);  // flags
  put<std::uint16_t>(h, 0);  // stored
  put<std::uint16_t>(h, 0);  // time
  put<std::uint16_t>(h, kDate);
  put<std::uint32_t>(h, m.crc);
  put<std::uint32_t>(h, kMax32);
  put<std::uint32_t>(h, kMax32);
  put<std::uint16_t>(h, static_cast<std::uint16_t>(m.name.size()));
  put<std::uint16_t>(h, 20);
  h += m.name;
  put<std::uint16_t>(h, 1);  // ZIP64 extra: sizes
  put<std::uint16_t>(h, 16);
  put<std::uint64_t>(h, static_cast<std::uint64_t>(m.size()));
  put<std::uint64_t>(h, static_cast<std::uint64_t>(m.size()));
  return h;
}

std::string central_entry(const Member& m) {
  std::string h;
  put<std::uint32_t>(h, 0x02014b50);
  put<std::uint16_t>(h, kVersion);
  put<std::uint16_t>(h, kVersion);
  put<std::uint16_t>(h, 0);
  put<std::uint16_t>(h, 0);
  put<std::uint16_t>(h, 0);
  put<std::uint16_t>(h, kDate);
  put<std::uint32_t>(h, m.crc);
  put<std::uint32_t>(h, kMax32);
  put<std::uint32_t>(h, kMax32);
  put<std::uint16_t>(h, static_cast<std::uint16_t>(m.name.size()));
  put<std::uint16_t>(h, 28);
  put<std::uint16_t>(h, 0);  // comment
  put<std::uint16_t>(h, 0);  // disk
  put<std::uint16_t>(h, 0);  // internal attributes
  put<std::uint32_t>(h, 0);  // external attributes
  put<std::uint32_t>(h, kMax32);
  h += m.name;
  put<std::uint16_t>(h, 1);  // ZIP64 extra: sizes and header offset
  put<std::uint16_t>(h, 24);
  put<std::uint64_t>(h, static_cast<std::uint64_t>(m.size()));
  put<std::uint64_t>(h, static_cast<std::uint64_t>(m.size()));
  put<std::uint64_t>(h, static_cast<std::uint64_t>(m.offset));
  return h;
}

// The central directory, the ZIP64 end record and locator, and the end record.
std::string archive_end(const std::vector<Member>& members, std::int64_t cd_offset) {
  std::string cd;
  for (const Member& m : members) cd += central_entry(m);
  std::string t = cd;
  const std::int64_t end64 = cd_offset + static_cast<std::int64_t>(cd.size());
  put<std::uint32_t>(t, 0x06064b50);
  put<std::uint64_t>(t, 44);
  put<std::uint16_t>(t, kVersion);
  put<std::uint16_t>(t, kVersion);
  put<std::uint32_t>(t, 0);
  put<std::uint32_t>(t, 0);
  put<std::uint64_t>(t, members.size());
  put<std::uint64_t>(t, members.size());
  put<std::uint64_t>(t, cd.size());
  put<std::uint64_t>(t, static_cast<std::uint64_t>(cd_offset));
  put<std::uint32_t>(t, 0x07064b50);
  put<std::uint32_t>(t, 0);
  put<std::uint64_t>(t, static_cast<std::uint64_t>(end64));
  put<std::uint32_t>(t, 1);
  put<std::uint32_t>(t, 0x06054b50);
  put<std::uint16_t>(t, 0);
  put<std::uint16_t>(t, 0);
  put<std::uint16_t>(t, 0xFFFF);
  put<std::uint16_t>(t, 0xFFFF);
  put<std::uint32_t>(t, kMax32);
  put<std::uint32_t>(t, kMax32);
  put<std::uint16_t>(t, 0);
  return t;
}

template <class T>
std::string as_bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::uint32_t crc_of(const std::string& s, std::uint32_t crc = 0) {
  std::uint32_t c = crc;
  const auto* p = reinterpret_cast<const Bytef*>(s.data());
  for (std::size_t done = 0; done < s.size();) {
    const std::size_t piece = std::min<std::size_t>(s.size() - done, std::size_t(1) << 30);
    c = static_cast<std::uint32_t>(crc32(c, p + done, static_cast<uInt>(piece)));
    done += piece;
  }
  return c;
}

// Collective. The CRC-32 of header + every rank's slice in rank order, on rank 0.
std::uint32_t combine_crcs(MPI_Comm comm, const std::string& header, const std::string& slice) {
  const int size = comm_size(comm);
  const std::array<std::uint64_t, 2> mine = {crc_of(slice), slice.size()};
  std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(size));
  MPI_Gather(mine.data(), 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, 0, comm);
  std::uint32_t crc = crc_of(header);
  for (int p = 0; p < size; ++p)
    crc = static_cast<std::uint32_t>(
        crc32_combine(crc, static_cast<uLong>(all[2 * p]), static_cast<z_off_t>(all[2 * p + 1])));
  return crc;
}

}  // namespace

void write_graph_npz(MPI_Comm comm, const std::string& path, const LocalCsr& m) {
  const GlobalIndptr g = global_indptr(comm, m);
  const std::int64_t n = m.n;
  std::vector<std::string> slices = {as_bytes(m.indices), as_bytes(g.slice), as_bytes(m.data)};
  std::vector<Member> members = {
      {"indices.npy", npy_header("<i8", "(" + std::to_string(g.nnz) + ",)"), 8 * g.nnz},
      {"indptr.npy", npy_header("<i8", "(" + std::to_string(n + 1) + ",)"), 8 * (n + 1)},
      {"data.npy", npy_header("<f8", "(" + std::to_string(g.nnz) + ",)"), 8 * g.nnz},
      {"format.npy", npy_header("|S3", "()"), 3},
      {"shape.npy", npy_header("<i8", "(2,)"), 16}};
  const std::vector<std::string> small = {"csr", as_bytes(std::vector<std::int64_t>{n, n})};
  std::int64_t offset = 0;
  for (Member& mem : members) {
    mem.offset = offset;
    offset = mem.data_offset() + mem.size();
  }
  const std::int64_t before[3] = {8 * g.nnz_offset, 8 * m.begin, 8 * g.nnz_offset};
  for (int k = 0; k < 3; ++k) members[k].crc = combine_crcs(comm, members[k].header, slices[k]);
  std::vector<FileSegment> mine;
  for (int k = 0; k < 3; ++k)
    mine.push_back(
        {members[k].data_offset() + static_cast<std::int64_t>(members[k].header.size()) + before[k],
         std::move(slices[k])});
  if (comm_rank(comm) == 0) {
    for (int k = 3; k < 5; ++k) members[k].crc = crc_of(small[k - 3], crc_of(members[k].header));
    for (int k = 0; k < 5; ++k) {
      std::string head = local_header(members[k]) + members[k].header;
      if (k >= 3) head += small[k - 3];
      mine.push_back({members[k].offset, std::move(head)});
    }
    mine.push_back({offset, archive_end(members, offset)});
  }
  write_atomically(comm, path,
                   [&](const std::string& tmp) { write_segments(comm, tmp, mine, path); });
}

}  // namespace lsgl
