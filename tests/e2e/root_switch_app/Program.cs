// The root-switch app (issue 46): a pure leak whose shortest retention path starts at a stack
// root at some heap walks and at a static at others.
//   dotnet Gcsnap.RootSwitch.dll PATTERN [PER_ROUND]
// One round per letter of PATTERN: PER_ROUND (default 200) new LeakedItems go into the one
// Registry's List, then GC.Collect() (walked by `gcsnap record --policy induced`) runs with
// the Registry held only by a local of a frame on the main thread's stack ('k': the static
// field is cleared for that GC) or only by the static field ('s': no frame holds it). No
// LeakedItem ever dies, so `types` counts every one made so far at each walk. Prints
// "round N: M items" per round and "leaked M" at the end.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Gcsnap.RootSwitch;

public sealed class LeakedItem
{
    public readonly int Id;
    public readonly long[] Data = new long[4];
    public LeakedItem(int id) { Id = id; }
}

public sealed class Registry
{
    public readonly List<LeakedItem> Items = new();
}

public static class Program
{
    private static Registry? s_registry;

    public static int Main(string[] args)
    {
        if (args.Length < 1 || args[0].Trim('k', 's').Length != 0)
        {
            Console.Error.WriteLine("usage: Gcsnap.RootSwitch PATTERN [PER_ROUND] (PATTERN: letters k = stack root, s = static)");
            return 64;
        }
        int perRound = args.Length > 1 ? int.Parse(args[1]) : 200;
        s_registry = new Registry();
        for (int round = 0; round < args[0].Length; ++round)
        {
            Fill(round, perRound);
            if (args[0][round] == 'k') CollectHeldOnStack(); else CollectHeldByStatic();
            Console.WriteLine($"round {round}: {Count()} items");
        }
        Console.WriteLine($"leaked {Count()}");
        return 0;
    }

    // Only these methods touch the Registry, so that Main's frame never holds it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Fill(int round, int perRound)
    {
        var items = s_registry!.Items;
        for (int i = 0; i < perRound; ++i) items.Add(new LeakedItem(round * perRound + i));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Count() => s_registry!.Items.Count;

    // The Registry is live in this frame across the GC (used after it) and the static is null.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void CollectHeldOnStack()
    {
        Registry held = s_registry!;
        s_registry = null;
        GC.Collect();
        s_registry = held;
        GC.KeepAlive(held);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void CollectHeldByStatic() => GC.Collect();
}
