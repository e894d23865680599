// The identity oracle's scenario (tests/e2e/identity_test.sh): `Gcsnap.OracleApp identity`.
// Moment 1: a 24 MB ballast, 600,000 linked objects and 3,000 Zoo.Tracked objects (Id 1..3000) kept in a list, collected until stable,
// "oracle-app: ready pid=N moment=1", then it waits for one line on stdin. Between the moments
// it drops every third tracked object, churns through background GCs (GC.Collect(2, Forced,
// blocking: false) with garbage allocated meanwhile) and compacting gen1 GCs, compacts the
// whole heap (the survivors move), adds 1,000 new objects (Id 100001..), churns again, drops a
// quarter of the new ones and churns again; then "oracle-app: ready pid=N moment=2 bgc=K",
// K the background GCs between the moments (the runtime's own count), and it idles until
// stdin closes. An object's Id is its identity: ClrMD reads it from each moment's core dump.
using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;

namespace Zoo {

public sealed class Tracked {
  public long Id;
  public byte[] Pad;
  public Tracked(long id) { Id = id; Pad = new byte[16 + (int)(id % 5) * 8]; }
}

public static class IdentityScenario {
  static readonly List<Tracked> Live = new List<Tracked>();
  static readonly List<byte[]> Churn = new List<byte[]>();
  static int backgrounds;  // background GCs seen to end between the moments
  // The runtime runs no background GC on a heap of a few MB: 200,000 arrays (~24 MB) in gen2.
  static readonly byte[][] Ballast = new byte[200_000][];
  // 600,000 linked objects (~19 MB) the background GC has to mark: long enough for the gen0 GCs
  // of Churn_ to run inside it, as foreground GCs.
  sealed class Link { public Link Next; public long V; }
  static Link Chain;

  static long BackgroundGcIndex() => GC.GetGCMemoryInfo(GCKind.Background).Index;

  static void Settle() {
    for (int i = 0; i < 2; i++) {
      GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
      GC.WaitForPendingFinalizers();
    }
  }

  // Background GCs with garbage allocated while they run; gen1 GCs compact in between.
  static void Churn_(int rounds) {
    for (int r = 0; r < rounds; r++) {
      long before = BackgroundGcIndex();
      GC.Collect(2, GCCollectionMode.Forced, blocking: false, compacting: false);
      // Garbage while the background GC marks (up to 64 MB): natural gen0 GCs, run inside it as
      // foreground GCs, which the identity must survive too (identity_test.sh requires one).
      for (int n = 0; n < 1_000_000 && (n % 256 != 0 || BackgroundGcIndex() == before); n++) GC.KeepAlive(new byte[64]);
      for (int k = 0; k < 4000; k++) {
        Churn.Add(new byte[64 + k % 200]);
        if (Churn.Count > 2000) Churn.RemoveRange(0, 1000);
        // A gen0 GC just after the background one began. The foreground GCs nested inside it are
        // the natural gen0 GCs of this loop (identity_test.sh sets a small gen0 budget).
        if (k == 0) GC.Collect(0, GCCollectionMode.Forced, blocking: true);
      }
      for (int wait = 0; wait < 200 && BackgroundGcIndex() == before; wait++) Thread.Sleep(50);
      if (BackgroundGcIndex() != before) ++backgrounds;
      GC.Collect(1, GCCollectionMode.Forced, blocking: true, compacting: true);
    }
    Churn.Clear();
  }

  public static int Run() {
    for (int i = 0; i < Ballast.Length; i++) Ballast[i] = new byte[100];
    for (int i = 0; i < 600_000; i++) Chain = new Link { Next = Chain, V = i };
    for (int i = 1; i <= 3000; i++) Live.Add(new Tracked(i));
    Settle();
    Console.Out.WriteLine($"oracle-app: ready pid={Environment.ProcessId} moment=1");
    Console.Out.Flush();
    using var stdin = new StreamReader(Console.OpenStandardInput());
    if (stdin.ReadLine() == null) return 1;
    var kept = new List<Tracked>();
    for (int i = 0; i < Live.Count; i++)
      if (i % 3 != 2) kept.Add(Live[i]);
    Live.Clear();
    Live.AddRange(kept);
    Churn_(3);
    // A compacting full GC moves the survivors into the holes of the dead.
    GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
    for (int i = 1; i <= 1000; i++) Live.Add(new Tracked(100_000 + i));
    Churn_(2);
    Live.RemoveAll(t => t.Id > 100_000 && t.Id % 4 == 0);  // some new ones die in a background GC
    Churn_(2);
    GC.Collect(0, GCCollectionMode.Forced, blocking: true);
    Console.Out.WriteLine($"oracle-app: ready pid={Environment.ProcessId} moment=2 bgc={backgrounds}");
    Console.Out.Flush();
    while (stdin.ReadLine() != null) { }
    GC.KeepAlive(Live);
    GC.KeepAlive(Ballast);
    GC.KeepAlive(Chain);
    Console.Out.WriteLine("oracle-app: done");
    return 0;
  }
}

}
