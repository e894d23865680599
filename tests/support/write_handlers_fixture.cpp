// Write the handlers recording (handlers_sample.hpp) the inspect CLI checks read: event-handler
// and timer leaks whose findings are known by construction. Usage: write_handlers_fixture FILE
#include <cstdio>

#include "handlers_sample.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_handlers_fixture FILE\n");
    return 2;
  }
  return gcsnap::test::write_handlers_sample(argv[1]) ? 0 : 1;
}
