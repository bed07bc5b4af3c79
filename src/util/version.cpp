#include "lsgl/util/version.hpp"

namespace lsgl {

const char* version() { return LSGL_VERSION; }
const char* git_commit() { return LSGL_GIT_COMMIT; }

}  // namespace lsgl
