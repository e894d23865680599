// Write the values recording (values_sample.hpp) the inspect, info and strip-strings CLI
// checks read. Usage: write_values_fixture FILE [--capture N]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "values_sample.hpp"

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 4 && std::strcmp(argv[2], "--capture") == 0)) {
    std::fprintf(stderr, "usage: write_values_fixture FILE [--capture N]\n");
    return 2;
  }
  const uint32_t capture = argc == 4 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 0;
  return gcsnap::test::write_values_sample(argv[1], capture) ? 0 : 1;
}
