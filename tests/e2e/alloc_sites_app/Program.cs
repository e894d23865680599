// The allocation-sites test's app (issue 43; tests/e2e/alloc_sites_test.sh). It allocates known
// bytes at four known sites, each a method of its own that is never inlined:
//   AllocKept     KeptNode (four longs, 48 B), every one kept to the end in a static list;
//   AllocDropped  DroppedNode (three longs, 40 B), each dropped from a small ring at once;
//   AllocBuffers  byte[1000] (1,024 B), dropped the same way;
//   Chunks<long>.Alloc<int>  int[250] (1,024 B), dropped the same way: a site in a generic
//                 method of a generic type, both instantiated over value types (code of its own,
//                 not shared), so that its frame is named with its arguments;
// then runs a blocking full GC (the walk of --policy induced) and prints what it allocated:
//   kept COUNT / dropped COUNT / buffers COUNT / generic COUNT. The rings are static, so .NET 10's escape
// analysis cannot put the objects on the stack. Arguments: MiB per site (default 128), then
// seconds to wait before allocating and after the GC (default 0; for recording by attach).
// A second passes between sites: the shim's rate cap (5,000 samples a second) thins samples
// beyond it, and four sites at full speed (about 5,200 samples) in one second crossed it, so a
// site fell under the test's 1,000 samples. Thinned estimates stay unbiased; the test wants
// the sampler's own count.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Gcsnap.AllocSites;

public sealed class KeptNode {
  public long A, B, C, D;
}

public sealed class DroppedNode {
  public long A, B, C;
}

public static class Chunks<T> where T : struct {
  static readonly object?[] Ring = new object?[256];

  [MethodImpl(MethodImplOptions.NoInlining)]
  public static void Alloc<U>(long count) where U : struct {
    for (long i = 0; i < count; ++i) Ring[i & 255] = new U[250];
  }

  public static void Clear() => Array.Clear(Ring);
}

public static class Program {
  static readonly List<KeptNode> Kept = new();
  static readonly DroppedNode?[] DroppedRing = new DroppedNode?[4096];
  static readonly byte[]?[] BufferRing = new byte[]?[256];

  [MethodImpl(MethodImplOptions.NoInlining)]
  static void AllocKept(long count) {
    for (long i = 0; i < count; ++i) Kept.Add(new KeptNode { A = i });
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static void AllocDropped(long count) {
    for (long i = 0; i < count; ++i) DroppedRing[i & 4095] = new DroppedNode { A = i };
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  static void AllocBuffers(long count) {
    for (long i = 0; i < count; ++i) BufferRing[i & 255] = new byte[1000];
  }

  public static int Main(string[] args) {
    long mib = args.Length > 0 ? long.Parse(args[0]) : 128;
    int wait_ms = args.Length > 1 ? int.Parse(args[1]) * 1000 : 0;
    Console.WriteLine($"pid {Environment.ProcessId}");
    System.Threading.Thread.Sleep(wait_ms);
    long bytes = mib << 20;
    long kept = bytes / 48, dropped = bytes / 40, buffers = bytes / 1024;
    Kept.Capacity = (int)kept;  // the list's own array is allocated here, not at the site
    AllocKept(kept);
    System.Threading.Thread.Sleep(1000);
    AllocDropped(dropped);
    System.Threading.Thread.Sleep(1000);
    AllocBuffers(buffers);
    System.Threading.Thread.Sleep(1000);
    Chunks<long>.Alloc<int>(buffers);
    Array.Clear(DroppedRing);
    Array.Clear(BufferRing);
    Chunks<long>.Clear();
    GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
    Console.WriteLine($"kept {kept}");
    Console.WriteLine($"dropped {dropped}");
    Console.WriteLine($"buffers {buffers}");
    Console.WriteLine($"generic {buffers}");
    System.Threading.Thread.Sleep(wait_ms);
    GC.KeepAlive(Kept);
    return 0;
  }
}
