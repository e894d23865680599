// A Windows program that is not .NET, for the Wine process tests (tests/windows): with
// --args it prints each argument as [arg] on its own line and exits 0 (the quoting check of
// `gcsnap record`); otherwise it prints "idle pid=N", waits until its stdin closes, prints
// "idle done" and exits 0 (a target that `gcsnap snapshot` must refuse and leave running).
#include <windows.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--args") == 0) {
    for (int i = 2; i < argc; ++i) std::printf("[%s]\n", argv[i]);
    return 0;
  }
  std::printf("idle pid=%lu\n", GetCurrentProcessId());
  std::fflush(stdout);
  while (std::fgetc(stdin) != EOF) {
  }
  std::printf("idle done\n");
  return 0;
}
