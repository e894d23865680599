// The attach-wait mode: the known heap built, a StackHeld held by this frame, then commands on
// stdin, one per line, each answered with one "gcsnap-sample: ..." line:
//   bgc    start a background GC and say whether one ran ("bgc=1") or not ("bgc=0"): a BGC
//          runs only while concurrent GC is enabled, which an attached MONITOR_GC profiler
//          turns off until it detaches
//   gc     one induced blocking GC (a GC the tests expect NOT to be recorded after detach)
//   async  start an async method that holds an AsyncHeld across an await that never ends
//          (its state machine box, held by AsyncWaiter.Pending, names the hop to it)
//   leak N MS
//          N rounds of the leaks mode's work (its planted leaks and look-alikes, no induced
//          GC), MS milliseconds apart: heap growth for `record --pid --every` to walk
//   native MIB
//          MIB MiB more of native memory (Marshal.AllocHGlobal, every page written), kept: a
//          process whose memory is mostly not managed, for the snapshot's memory bound
//   quit   leave the loop and finish as run does (exit code 0)
// End of stdin also quits.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace Gcsnap.Sample;

public static class AttachWait
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run()
    {
        Scenario.Run();
        var stackHeld = new StackHeld();  // Scenario.Run's own StackHeld is dead by now
        Scenario.PrintFacts("attach-wait");
        Console.WriteLine("gcsnap-sample: ready");
        Console.Out.Flush();
        string? line;
        while ((line = Console.ReadLine()) is not null && line != "quit")
        {
            switch (line.Trim())
            {
                case "bgc":
                    Console.WriteLine($"gcsnap-sample: bgc={(BackgroundGcRuns() ? 1 : 0)} " +
                                      $"concurrent={System.Runtime.GCSettings.LatencyMode}");
                    break;
                case "gc":
                    Scenario.InducedGc();
                    Console.WriteLine($"gcsnap-sample: gc gen2_count={GC.CollectionCount(2)}");
                    break;
                case "async":
                    AsyncWaiter.Start();
                    Console.WriteLine("gcsnap-sample: async started");
                    break;
                case var grow when grow.StartsWith("heapgrow "):
                    // "heapgrow MIB": MIB MiB more of large arrays, kept (record --pid --on-heap-growth).
                    Grown.AddRange(MemoryShapes.LargeArrays(int.Parse(grow.Substring(9))));
                    Console.WriteLine($"gcsnap-sample: heapgrow arrays={Grown.Count}");
                    break;
                case var native when native.StartsWith("native "):
                    (long held, object blocks) = MemoryShapes.Native(int.Parse(native.Substring(7)));
                    NativeHeld.Add(blocks);
                    Console.WriteLine($"gcsnap-sample: native bytes={held}");
                    break;
                case var leak when leak.StartsWith("leak "):
                    RunLeakRounds(leak);
                    break;
                case "":
                    continue;
                default:
                    Console.WriteLine($"gcsnap-sample: unknown command '{line}'");
                    break;
            }
            Console.Out.Flush();
        }
        GC.KeepAlive(stackHeld);
    }

    private static readonly List<byte[]> Grown = new();
    private static readonly List<object> NativeHeld = new();

    /// <summary>"leak N MS": N plain leak rounds, MS ms apart.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RunLeakRounds(string command)
    {
        string[] parts = command.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        int rounds = int.Parse(parts[1]), pauseMs = int.Parse(parts[2]);
        int handlers = 0;
        for (int i = 0; i < rounds; i++)
        {
            handlers = LeakRounds.PlainRound();
            Thread.Sleep(pauseMs);
        }
        Console.WriteLine($"gcsnap-sample: leak rounds={rounds} sessions={SessionRegistry.Sessions.Count} " +
                          $"subscribers={handlers} cache_entries={BoundedCache.Entries.Count} ");
    }

    /// <summary>Ask for a non-blocking gen2 GC and wait up to 10 s for the runtime's count of
    /// background GCs to move. With concurrent GC disabled the same call runs a blocking GC.
    /// The runtime does not bother with a BGC on a heap of a few MB (measured: none on the
    /// sample heap alone), so a 200,000-array ballast lives across the call.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool BackgroundGcRuns()
    {
        var ballast = new byte[200_000][];
        for (int i = 0; i < ballast.Length; i++) ballast[i] = new byte[100];
        GC.Collect(2, GCCollectionMode.Forced, blocking: true);  // the ballast into gen2
        long before = GC.GetGCMemoryInfo(GCKind.Background).Index;
        GC.Collect(2, GCCollectionMode.Forced, blocking: false);
        for (int i = 0; i < 200; i++)
        {
            if (GC.GetGCMemoryInfo(GCKind.Background).Index != before) break;
            Thread.Sleep(50);
        }
        bool ran = GC.GetGCMemoryInfo(GCKind.Background).Index != before;
        GC.KeepAlive(ballast);
        return ran;
    }
}

public sealed class AsyncHeld
{
    public readonly byte[] Data = new byte[32];
}

/// <summary>An async method suspended for good: its locals live in the compiler's state machine,
/// boxed on the heap (AsyncStateMachineBox) once the first await does not complete at once.</summary>
public static class AsyncWaiter
{
    private static readonly TaskCompletionSource s_gate = new();
    public static Task? Pending;

    public static void Start() => Pending = WaitAsync();

    private static async Task WaitAsync()
    {
        var held = new AsyncHeld();
        await s_gate.Task;
        GC.KeepAlive(held);
    }
}
