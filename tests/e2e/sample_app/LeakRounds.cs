// The `leaks ROUNDS [PAUSE_MS]` mode: rounds of work with one induced GC after each (and one
// before the first), so that `gcsnap record --policy induced` walks the heap once per round;
// PAUSE_MS after each round lets `record --every` walk it on a clock instead. Attach-wait's
// "leak" command runs the same rounds (PlainRound) without the induced GCs. Planted:
//   true leaks      SessionRegistry keeps 150 LeakedSessions per round (each with a name and a
//                   payload array); LeakPublisher.Changed gains 20 LeakSubscribers per round
//   not leaks       BoundedCache fills to 400 CacheEntries in two rounds, then replaces its
//                   oldest entries (new objects every round, a flat count); 3000 ChurnItems
//                   are allocated and dropped every round; 300 StartupBlobs are made once
//                   before the first GC and kept
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Gcsnap.Sample;

public sealed class LeakedSession
{
    public readonly int Id;
    public readonly string Name;
    public readonly byte[] Payload = new byte[48];
    public LeakedSession(int id) { Id = id; Name = "session-" + id.ToString(); }
}

public static class SessionRegistry
{
    public static readonly List<LeakedSession> Sessions = new();
}

public sealed class LeakPublisher
{
    public event EventHandler? Changed;
    public int Raise() { Changed?.Invoke(this, EventArgs.Empty); return Changed?.GetInvocationList().Length ?? 0; }
}

public sealed class LeakSubscriber
{
    public long Calls;
    public void OnChanged(object? sender, EventArgs e) => Calls++;
}

public sealed class CacheEntry
{
    public readonly int Key;
    public readonly long[] Data = new long[6];
    public CacheEntry(int key) { Key = key; }
}

/// <summary>At most Capacity entries; a full cache drops its oldest entry for each new one.</summary>
public static class BoundedCache
{
    public const int Capacity = 400;
    public static readonly Dictionary<int, CacheEntry> Entries = new();
    private static readonly Queue<int> s_order = new();

    public static void Put(int key)
    {
        if (Entries.Count >= Capacity) Entries.Remove(s_order.Dequeue());
        Entries[key] = new CacheEntry(key);
        s_order.Enqueue(key);
    }
}

public sealed class ChurnItem
{
    public readonly int Value;
    public readonly char[] Buffer = new char[16];
    public ChurnItem(int value) { Value = value; }
}

public sealed class StartupBlob
{
    public readonly int Index;
    public readonly byte[] Bytes = new byte[64];
    public StartupBlob(int index) { Index = index; }
}

public static class LeakRounds
{
    public const int SessionsPerRound = 150;
    public const int SubscribersPerRound = 20;
    public const int CachePutsPerRound = 250;
    public const int ChurnPerRound = 3000;
    public const int StartupBlobs = 300;

    private static StartupBlob[]? s_startup;
    private static readonly LeakPublisher s_publisher = new();

    public static int Run(int rounds, int pauseMs = 0)
    {
        s_startup = new StartupBlob[StartupBlobs];
        for (int i = 0; i < StartupBlobs; i++) s_startup[i] = new StartupBlob(i);
        Scenario.InducedGc();
        long churned = 0;
        int handlers = 0;
        for (int round = 1; round <= rounds; round++)
        {
            churned += Round(round, out handlers);
            Scenario.InducedGc();
            if (pauseMs > 0) System.Threading.Thread.Sleep(pauseMs);
        }
        Console.WriteLine($"gcsnap-sample: mode=leaks pid={Environment.ProcessId} rounds={rounds} " +
                          $"induced_gcs={Scenario.InducedGcs} sessions={SessionRegistry.Sessions.Count} " +
                          $"subscribers={handlers} cache_entries={BoundedCache.Entries.Count} " +
                          $"churned={churned} startup_blobs={s_startup.Length} ");
        return 0;
    }

    private static int s_cacheKey, s_sessionId, s_plainRounds;

    /// <summary>One more round, with no GC of its own; return how many subscribers the event
    /// has now.</summary>
    public static int PlainRound()
    {
        Round(++s_plainRounds, out int handlers);
        return handlers;
    }

    /// <summary>One round's work. Not inlined, so that no local of it is a stack root at the
    /// induced GC that follows: everything it keeps is held through statics.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Round(int round, out int handlers)
    {
        for (int i = 0; i < SessionsPerRound; i++) SessionRegistry.Sessions.Add(new LeakedSession(s_sessionId++));
        for (int i = 0; i < SubscribersPerRound; i++) s_publisher.Changed += new LeakSubscriber().OnChanged;
        for (int i = 0; i < CachePutsPerRound; i++) BoundedCache.Put(s_cacheKey++);
        long churned = Churn(round);
        handlers = s_publisher.Raise();
        return churned;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Churn(int round)
    {
        var items = new List<ChurnItem>(ChurnPerRound);
        for (int i = 0; i < ChurnPerRound; i++) items.Add(new ChurnItem(round * i));
        long sum = 0;
        foreach (var item in items) sum += item.Value + item.Buffer.Length;
        return sum > 0 ? items.Count : 0;
    }
}
