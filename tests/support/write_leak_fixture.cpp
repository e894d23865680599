// Write the seven-walk recording with planted leaks that the leaks/check CLI tests read
// (support/leak_rounds.hpp), and with --other a one-walk recording of another app.
#include <cstdio>
#include <cstring>

#include "leak_rounds.hpp"

int main(int argc, char** argv) {
  using namespace gcsnap;
  if (argc == 3 && std::strcmp(argv[2], "--other") == 0) {
    auto w = Writer::create(argv[1]);
    if (!w) return 1;
    test::RoundHeap h({"Other.Thing"}, "Other.dll");
    h.root(h.add(1));
    if (!h.write_gc(**w).is_ok() || !(*w)->close().is_ok()) return 1;
    return 0;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_leak_fixture FILE [--other]\n");
    return 2;
  }
  const Status s = test::write_leak_rounds(argv[1]);
  if (!s.is_ok()) std::fprintf(stderr, "write_leak_fixture: %s\n", error_text(s).c_str());
  return s.is_ok() ? 0 : 1;
}
