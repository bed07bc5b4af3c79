// The lsgl executable's operator new (src/huge_pages.cpp, linked into this test) against the
// kernel's record of each mapping (/proc/self/smaps, flag "hg": MADV_HUGEPAGE given): a block of
// kLargeBlockBytes or more is advised before its first use, through new and new[]; a smaller one
// is not, nor any with LSGL_HUGE_PAGES=0. Under the allocator settings of the executable.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lsgl/util/memory.hpp"

using namespace lsgl;

namespace {

// The VmFlags of the mapping holding p, as /proc/self/smaps lists them ("" when none holds it).
std::string vm_flags_of(const void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " ", &begin, &end) == 2 &&
        line.find(' ') > line.find('-')) {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8) + " ";
    }
  }
  return "";
}

bool advised(const void* p) { return vm_flags_of(p).find(" hg ") != std::string::npos; }

class HugePages : public testing::Test {
 protected:
  void SetUp() override {
    if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"))
      GTEST_SKIP() << "this kernel has no transparent huge pages";
    restore_allocator_release();
    unsetenv("LSGL_HUGE_PAGES");
  }
  void TearDown() override { unsetenv("LSGL_HUGE_PAGES"); }
};

}  // namespace

TEST_F(HugePages, LargeBlocksAreAdvisedBeforeTheirFirstUse) {
  std::vector<double> large(kLargeBlockBytes / sizeof(double) * 4);
  EXPECT_TRUE(advised(large.data()));
  EXPECT_TRUE(advised(large.data() + large.size() - 1));
  const std::unique_ptr<char[]> array(new char[kLargeBlockBytes]);
  EXPECT_TRUE(advised(array.get() + kLargeBlockBytes / 2));
}

TEST_F(HugePages, SmallBlocksAreNot) {
  const std::vector<char> small(kLargeBlockBytes - 4096);
  ASSERT_NE(vm_flags_of(small.data()), "");
  EXPECT_FALSE(advised(small.data() + small.size() / 2));
}

TEST_F(HugePages, NoneWithLsglHugePagesZero) {
  setenv("LSGL_HUGE_PAGES", "0", 1);
  const std::vector<double> large(kLargeBlockBytes / sizeof(double) * 2);
  ASSERT_NE(vm_flags_of(large.data()), "");
  EXPECT_FALSE(advised(large.data() + large.size() / 2));
}
