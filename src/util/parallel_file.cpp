#include "lsgl/util/parallel_file.hpp"

#include <algorithm>
#include <utility>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

// Local. Writes one segment in pieces below 1 GiB; returns an error message, empty on success.
std::string write_segment(MPI_File fh, const FileSegment& s) {
  constexpr std::int64_t kPiece = std::int64_t(1) << 30;
  const std::int64_t total = static_cast<std::int64_t>(s.bytes.size());
  for (std::int64_t done = 0; done < total;) {
    const int count = static_cast<int>(std::min(kPiece, total - done));
    MPI_Status status;
    const int rc =
        MPI_File_write_at(fh, s.offset + done, s.bytes.data() + done, count, MPI_BYTE, &status);
    if (rc != MPI_SUCCESS) return mpi_error_text(rc);
    done += count;
  }
  return {};
}

}  // namespace

void write_segments(MPI_Comm comm, const std::string& path, const std::vector<FileSegment>& mine,
                    const std::string& what) {
  MPI_File fh;
  const int rc_open = MPI_File_open(comm, path.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  collective_check(comm, rc_open == MPI_SUCCESS,
                   "cannot open '" + what + "' for writing: " + mpi_error_text(rc_open));
  MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
  std::string message;
  for (const FileSegment& s : mine) {
    if (message.empty()) message = write_segment(fh, s);
  }
  const int rc_close = MPI_File_close(&fh);
  if (message.empty() && rc_close != MPI_SUCCESS) message = mpi_error_text(rc_close);
  collective_check(comm, message.empty(), "cannot write '" + what + "': " + message);
}

void write_in_rank_order(MPI_Comm comm, const std::string& path, std::string local,
                         const std::string& what) {
  const std::int64_t offset = exscan_sum(comm, static_cast<std::int64_t>(local.size()));
  std::vector<FileSegment> mine;
  mine.push_back({offset, std::move(local)});
  write_segments(comm, path, mine, what);
}

}  // namespace lsgl
