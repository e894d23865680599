// The values test's app (issue 44): a heap whose wasted values are known.
//   dotnet Gcsnap.ValuesApp.dll
// Builds: 300 Order objects whose Status field holds one of 3 strings, each built at run time
// (so 300 distinct string objects, 3 contents: 297 wasted copies, held by Order.Status);
// 40 empty List<string> made with capacity 32 (Shelf.Empty); one Dictionary<int, string> with
// 2 entries in capacity 1000 (a sparse collection, Catalog.Sparse); a MemoryCache with
// SizeLimit 50 filled with 50 entries of size 1 (at its limit); 25 Finalizable objects whose
// finalizers are stuck behind the first one, which blocks until the app exits. Then it says
// "values-app: ready pid=N" with the facts (24 finalizable wait in the queue), and waits on
// stdin without allocating.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using Microsoft.Extensions.Caching.Memory;

namespace Gcsnap.ValuesApp;

public sealed class Order
{
    public string Status;
    public Order(string status) { Status = status; }
}

public sealed class Shelf
{
    public List<string> Empty = new(32);
}

public sealed class Catalog
{
    public Dictionary<int, string> Sparse = new(1000);
}

public sealed class Finalizable
{
    public static readonly ManualResetEventSlim Release = new(false);
    public static int Started;
    public readonly byte[] Buffer = new byte[100];
    ~Finalizable()
    {
        Interlocked.Increment(ref Started);
        Release.Wait();  // the finalizer thread waits here: the others stay in the queue
    }
}

public static class Program
{
    private static readonly string[] s_statuses = { "Pending", "Shipped", "Cancelled" };
    private static Order[]? s_orders;
    private static Shelf[]? s_shelves;
    private static Catalog? s_catalog;
    private static MemoryCache? s_cache;

    public static int Main()
    {
        const int orders = 300, shelves = 40, finalizable = 25, sizeLimit = 50;
        s_orders = new Order[orders];
        for (int k = 0; k < orders; ++k)
            s_orders[k] = new Order(new string(s_statuses[k % 3].AsSpan()));  // a new string object each time
        s_shelves = new Shelf[shelves];
        for (int k = 0; k < shelves; ++k) s_shelves[k] = new Shelf();
        s_catalog = new Catalog();
        s_catalog.Sparse[1] = "one";
        s_catalog.Sparse[2] = "two";
        s_cache = new MemoryCache(new MemoryCacheOptions { SizeLimit = sizeLimit });
        for (int k = 0; k < sizeLimit; ++k)  // size 50 of 50: at the limit, nothing evicted yet
            s_cache.Set(k, new byte[64], new MemoryCacheEntryOptions { Size = 1 });
        MakeGarbage(finalizable);
        GC.Collect();
        // The finalizer thread takes one and blocks in it: the others wait in the queue.
        while (Volatile.Read(ref Finalizable.Started) == 0) Thread.Sleep(10);
        Console.WriteLine($"values-app: ready pid={Environment.ProcessId} orders={orders} contents={s_statuses.Length} " +
                          $"shelves={shelves} sparse=1 cache={sizeLimit}/{sizeLimit} finalizable={finalizable - 1}");
        Console.Out.Flush();
        Console.In.ReadToEnd();
        GC.KeepAlive(s_orders);
        GC.KeepAlive(s_shelves);
        GC.KeepAlive(s_catalog);
        GC.KeepAlive(s_cache);
        Finalizable.Release.Set();
        Console.WriteLine("values-app: done");
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void MakeGarbage(int n)
    {
        for (int k = 0; k < n; ++k) _ = new Finalizable();
    }
}
