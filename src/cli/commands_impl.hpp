#pragma once
// One function per subcommand: reads its options and calls a pipeline. Collective.
#include <mpi.h>

#include <string>
#include <vector>

namespace lsgl::cli {

int learn_command(MPI_Comm comm, const std::vector<std::string>& args,
                  const std::string& command_line);
int generate_command(MPI_Comm comm, const std::vector<std::string>& args);
int theta_command(MPI_Comm comm, const std::vector<std::string>& args);
int densest_command(MPI_Comm comm, const std::vector<std::string>& args,
                    const std::string& command_line);
int eval_command(MPI_Comm comm, const std::vector<std::string>& args,
                 const std::string& command_line);
int hash_command(MPI_Comm comm, const std::vector<std::string>& args,
                 const std::string& command_line);
int collect_command(MPI_Comm comm, const std::vector<std::string>& args);
int convert_command(MPI_Comm comm, const std::vector<std::string>& args,
                    const std::string& command_line);

}  // namespace lsgl::cli
