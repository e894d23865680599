// `bgc ROUNDS`: a heap whose gen2 is large enough (1 M kept nodes, ~40 MB) that the runtime runs
// its gen2 GCs in the background, then ROUNDS rounds of churn that replace some kept nodes (they
// die in gen2) and store short-lived arrays at random (they die in gen1), so natural gen2 GCs
// follow. For the events-source cases (tests/e2e/e2e_cases.sh events_*): under the profiler
// source the runtime runs no background GC, under the events source it does. Prints
// "gcsnap-sample: mode=bgc pid=P background_gcs=N gen2_gcs=M" (N: GC.GetGCMemoryInfo's index of
// the last background GC, 0 when there was none), then exits 0.
using System;

namespace Gcsnap.Sample;

public static class BackgroundGcs
{
    private sealed class Node
    {
        public Node? Next;
        public long Value;
    }

    public static int Run(int rounds)
    {
        var kept = new Node[1_000_000];
        for (int i = 0; i < kept.Length; i++) kept[i] = new Node { Value = i, Next = i >= 8 ? kept[i - 8] : null };
        var slots = new object[262_144];
        var random = new Random(7);
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < 250_000; i++)
            {
                var bytes = new byte[16 + random.Next(184)];
                if ((i & 3) == 0) slots[random.Next(slots.Length)] = bytes;
            }
            for (int i = 0; i < 20_000; i++) kept[random.Next(kept.Length)] = new Node { Value = -i };
        }
        long background = GC.GetGCMemoryInfo(GCKind.Background).Index;
        Console.WriteLine($"gcsnap-sample: mode=bgc pid={Environment.ProcessId} background_gcs={background} " +
                          $"gen2_gcs={GC.CollectionCount(2)}");
        GC.KeepAlive(kept);
        GC.KeepAlive(slots);
        return 0;
    }
}
