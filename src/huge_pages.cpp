// The global operator new of the lsgl executable: blocks of kLargeBlockBytes and more (the search's
// panels and lists, the edge set, the learning's edge arrays) are advised for transparent huge
// pages before their first use (advise_huge_pages, util/memory.hpp). new[] and the nothrow forms
// of libstdc++ call this one; the delete operators are the library's (free). Linked into the lsgl
// executable (and the test of this file), not into lsgl_core: the Python module leaves the
// process's allocator alone (docs/python.md gives the environment setting that does the same),
// and the sanitizer builds keep their own operator new.
#include <cstdlib>
#include <new>

#include "lsgl/util/memory.hpp"

void* operator new(std::size_t bytes) {
  for (;;) {
    if (void* p = std::malloc(bytes > 0 ? bytes : 1)) {
      if (bytes >= lsgl::kLargeBlockBytes) lsgl::advise_huge_pages(p, bytes);
      return p;
    }
    const std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}
