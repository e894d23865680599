// The bounded-cache app (issue 44): a leak beside a cache that fills to its limit and then
// replaces its oldest entries, and churn.
//   dotnet Gcsnap.BoundedCache.dll ROUNDS
// Every round: 150 new LeakedOrders go into a static List and stay (the leak); 200 new
// CachedPages go into a ConcurrentDictionary capped at 500 entries, the oldest removed once
// it is full (the bounded cache: 200, 400, 500, 500 ... entries); 2000 Scratch objects are
// made and dropped; then GC.Collect() (walked by `gcsnap record --policy induced`). Nothing
// is printed between rounds (formatting small numbers fills a cache of the runtime); at the
// end it prints "leaked N cached M".
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Gcsnap.BoundedCache;

public sealed class LeakedOrder
{
    public readonly int Id;
    public readonly long[] Lines = new long[6];
    public LeakedOrder(int id) { Id = id; }
}

public sealed class CachedPage
{
    public readonly int Key;
    public readonly byte[] Body = new byte[48];
    public CachedPage(int key) { Key = key; }
}

public sealed class Scratch
{
    public readonly long A, B;
    public Scratch(long a) { A = a; B = a * 2; }
}

// A cache with a size limit: the oldest key goes when a new one would pass the limit.
public sealed class PageCache
{
    public const int Limit = 500;
    private readonly ConcurrentDictionary<int, CachedPage> _pages = new();
    private readonly Queue<int> _order = new();

    public int Count => _pages.Count;

    public void Add(int key)
    {
        if (_order.Count == Limit) _pages.TryRemove(_order.Dequeue(), out _);
        _pages[key] = new CachedPage(key);
        _order.Enqueue(key);
    }
}

public static class OrderLog
{
    public static readonly List<LeakedOrder> Orders = new();
}

public static class Program
{
    private static readonly PageCache s_cache = new();
    private static long s_checksum;

    public static int Main(string[] args)
    {
        if (args.Length != 1 || !int.TryParse(args[0], out int rounds) || rounds < 1)
        {
            Console.Error.WriteLine("usage: Gcsnap.BoundedCache ROUNDS");
            return 64;
        }
        for (int round = 0; round < rounds; ++round)
        {
            Round(round);
            GC.Collect();
        }
        Console.WriteLine("leaked " + OrderLog.Orders.Count + " cached " + s_cache.Count + " checksum " + s_checksum);
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Round(int round)
    {
        for (int i = 0; i < 150; ++i) OrderLog.Orders.Add(new LeakedOrder(round * 150 + i));
        for (int i = 0; i < 200; ++i) s_cache.Add(round * 200 + i);
        for (int i = 0; i < 2000; ++i) s_checksum += new Scratch(i).B;
    }
}
