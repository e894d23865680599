// Builds the heap the end-to-end tests assert on, then runs the two induced GCs between which
// exactly Expect.Survivor2s Survivor2 objects appear.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Gcsnap.Sample;

public static class Scenario
{
    // Statics are rooted by the runtime itself (how is runtime-specific); each holds one shape.
    private static List<LeakyItem>? s_leaky;
    private static WeakTarget? s_weakTargetStrongRef;
    private static Outer.Inner? s_inner;
    private static Holder<string>? s_holder;
    private static List<Survivor2>? s_survivors;
    private static byte[]? s_large;
    private static byte[]? s_pinnedHeapArray;
    private static GCHandle s_pinned;
    private static GCHandle s_weak;
    private static GCHandle s_strong;

    /// <summary>Number of GC.Collect calls made so far; the last two are the diff pair.</summary>
    public static int InducedGcs { get; private set; }

    /// <summary>GC.CollectionCount(0) right after each GC of the diff pair: the runtime's own
    /// numbers for them (every GC collects gen0), which a recorder that saw every GC shares.</summary>
    public static int DiffFromGc { get; private set; }
    public static int DiffToGc { get; private set; }

    /// <summary>Build every shape, then run the induced GCs. Not inlined: the tests expect the
    /// StackHeld root to name Gcsnap.Sample.Scenario.Run.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Run()
    {
        BuildStaticShapes();
        BuildHandles();
        BlockFinalizerThread();
        DropFinalizables();
        InducedGc();  // the Finalizables are found dead here and move to the f-reachable queue

        var stackHeld = new StackHeld();
        InducedGc();  // diff pair: first GC
        DiffFromGc = GC.CollectionCount(0);
        AllocateSurvivors();
        InducedGc();  // diff pair: second GC
        DiffToGc = GC.CollectionCount(0);
        GC.KeepAlive(stackHeld);
    }

    /// <summary>Print the facts line the tests parse: "gcsnap-sample: key=value ...".</summary>
    public static void PrintFacts(string mode)
    {
        int leaky = s_leaky?.Count ?? 0;
        int survivors = s_survivors?.Count ?? 0;
        bool weakAlive = s_weak.IsAllocated && s_weak.Target is WeakTarget;
        Console.WriteLine(
            $"gcsnap-sample: mode={mode} pid={Environment.ProcessId} leaky_items={leaky} " +
            $"survivor2={survivors} finalizable={Expect.Finalizables} " +
            $"finalized_before_snapshots_end={Finalizable.FinalizedCount} " +
            $"pinned_bytes={Expect.PinnedBytes} large_bytes={Expect.LargeBytes} " +
            $"weak_target_alive={(weakAlive ? 1 : 0)} induced_gcs={InducedGcs} " +
            $"diff_from_gc={DiffFromGc} diff_to_gc={DiffToGc} " +
            $"gen0_count={GC.CollectionCount(0)} gen1_count={GC.CollectionCount(1)} " +
            $"gen2_count={GC.CollectionCount(2)}");
        Console.Out.Flush();
    }

    /// <summary>Let the finalizer thread go and wait until it has finalized what was queued.</summary>
    public static void ReleaseFinalizerThread()
    {
        FinalizerGate.Release.Set();
        GC.WaitForPendingFinalizers();
    }

    /// <summary>Run a full, blocking, compacting induced GC (it reports MovedReferences).</summary>
    public static void InducedGc()
    {
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        InducedGcs++;
    }

    private static void BuildStaticShapes()
    {
        var leaky = new List<LeakyItem>(Expect.LeakyItems);
        for (int i = 0; i < Expect.LeakyItems; i++)
            leaky.Add(new LeakyItem(i));
        s_leaky = leaky;
        s_inner = new Outer.Inner();
        s_holder = new Holder<string>("held by Holder<string>");
        s_large = new byte[Expect.LargeBytes];  // large object heap
        s_pinnedHeapArray = GC.AllocateArray<byte>(64, pinned: true);  // pinned object heap
        s_survivors = new List<Survivor2>(Expect.Survivor2s);
        FieldShapes.Build();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void BuildHandles()
    {
        s_pinned = GCHandle.Alloc(new byte[Expect.PinnedBytes], GCHandleType.Pinned);
        var weakTarget = new WeakTarget();
        s_weakTargetStrongRef = weakTarget;
        s_weak = GCHandle.Alloc(weakTarget, GCHandleType.Weak);
        s_strong = GCHandle.Alloc(new HandleHeld(), GCHandleType.Normal);
    }

    /// <summary>Queue a FinalizerGate and wait until the finalizer thread is stuck in it.</summary>
    private static void BlockFinalizerThread()
    {
        DropFinalizerGate();
        InducedGc();
        if (!FinalizerGate.Entered.Wait(TimeSpan.FromSeconds(60)))
            throw new InvalidOperationException("the finalizer thread never ran FinalizerGate's finalizer");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void DropFinalizerGate() => _ = new FinalizerGate();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void DropFinalizables()
    {
        for (int i = 0; i < Expect.Finalizables; i++)
            _ = new Finalizable(i);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void AllocateSurvivors()
    {
        var survivors = s_survivors!;
        for (int i = 0; i < Expect.Survivor2s; i++)
            survivors.Add(new Survivor2(i));
    }

    /// <summary>Keep the statics' targets observable to the compiler (they are only read by GCs).</summary>
    public static int Checksum() =>
        (s_inner?.Value ?? 0) + (s_holder?.Value.Length ?? 0) + (s_large?.Length ?? 0) +
        (s_pinnedHeapArray?.Length ?? 0) + (int)(s_weakTargetStrongRef?.Marker ?? 0) +
        (s_strong.IsAllocated ? 1 : 0) + (s_pinned.IsAllocated ? 1 : 0) + FieldShapes.Checksum();
}
