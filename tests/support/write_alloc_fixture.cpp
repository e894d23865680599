// Write the recording with allocation samples that the allocation-join CLI tests read
// (support/alloc_rounds.hpp).
#include <cstdio>

#include "alloc_rounds.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_alloc_fixture FILE\n");
    return 2;
  }
  const gcsnap::Status s = gcsnap::test::write_alloc_rounds(argv[1]);
  if (!s.is_ok()) std::fprintf(stderr, "write_alloc_fixture: %s\n", gcsnap::error_text(s).c_str());
  return s.is_ok() ? 0 : 1;
}
