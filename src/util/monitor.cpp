#include "lsgl/util/monitor.hpp"

namespace lsgl {

Monitor& null_monitor() {
  static Monitor none;
  return none;
}

}  // namespace lsgl
