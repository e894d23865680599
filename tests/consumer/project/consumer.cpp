// Writes a one-GC recording through the installed library, reads it back, and prints the
// library version (C++20 code: the package, not this project, asks for the standard).
#include <cstdio>

#include <gcsnap/gcsnap.hpp>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  auto writer = gcsnap::Writer::create(argv[1]);
  if (!writer) return 3;
  gcsnap::GcInfo info;
  info.gc_number = 1;
  if (!(*writer)->begin_gc(info) || !(*writer)->end_gc(info) || !(*writer)->close()) return 4;
  auto rec = gcsnap::Recording::open(argv[1]);
  if (!rec) return 5;
  std::printf("gcs=%zu version=%.*s\n", (*rec)->gcs().size(), static_cast<int>(gcsnap::kVersion.size()),
              gcsnap::kVersion.data());
  return 0;
}
