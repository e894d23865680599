// Issue 11 web bench app (bench/web.sh): a Kestrel service loaded by wrk.
//   dotnet WebApp.dll PORT [CACHE_ENTRIES] [GARBAGE_KB]
// GET /orders/{id}: builds an order (customer, 8-16 lines, strings), keeps it in a cache of
// CACHE_ENTRIES entries (FIFO eviction once full: entries live long enough to reach gen2 and
// then die there, so gen2 GCs happen under load) and returns it as JSON. GARBAGE_KB (default 0)
// adds that many KB of short-lived 1 KB buffers per request (a request's temporary work), so
// gen0 GCs come every few hundred milliseconds under load (bench/runtimes.sh).
// GET /stats: GC counts and heap size; the GC pauses seen since the last /stats: gen0, gen1
// (a thread polls GC.GetGCMemoryInfo(GCKind.Ephemeral) every millisecond; Missed counts GCs
// it did not see), blocking gen2 (GCKind.FullBlocking) and background gen2 (GCKind.Background,
// its two short pauses summed). GET /quit: stops the host (a normal Shutdown, so a
// profiler's file is finished). Prints "web-app: ready pid=PID port=PORT entries=N" on stdout.
using System.Collections.Concurrent;
using System.Diagnostics;

var port = args.Length > 0 ? int.Parse(args[0]) : 5080;
var capacity = args.Length > 1 ? int.Parse(args[1]) : 200_000;
var garbageKb = args.Length > 2 ? int.Parse(args[2]) : 0;

var builder = WebApplication.CreateSlimBuilder(args);
builder.Logging.ClearProviders();
builder.WebHost.UseUrls($"http://127.0.0.1:{port}");
builder.Services.ConfigureHttpJsonOptions(o => o.SerializerOptions.TypeInfoResolverChain.Insert(0, WebJson.Default));
var app = builder.Build();

var pauses = new PauseMonitor();
var cache = new OrderCache(capacity);
for (long i = 0; i < capacity; i++) cache.Put(Order.Make(i));

app.MapGet("/orders/{id:long}", (long id) =>
{
    var order = Order.Make(id);
    cache.Put(order);
    if (garbageKb > 0) Scratch.Use(garbageKb, id);
    return Results.Json(order, WebJson.Default.Order);
});
app.MapGet("/stats", () =>
{
    var p = pauses.TakeAndReset();
    return Results.Json(new Stats(
        GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2),
        GC.GetTotalMemory(false), cache.Count, p[0], p[1], p[2], p[3], p[4], p[5], p[6],
        p[7], p[8], p[9], p[10], p[11], p[12]), WebJson.Default.Stats);
});
app.MapGet("/quit", (IHostApplicationLifetime life) => { life.StopApplication(); return "bye\n"; });

app.Lifetime.ApplicationStarted.Register(() =>
    Console.WriteLine($"web-app: ready pid={Environment.ProcessId} port={port} entries={cache.Count}"));
app.Run();

sealed class OrderCache(int capacity)
{
    private readonly ConcurrentDictionary<long, Order> _entries = new();
    private readonly ConcurrentQueue<long> _order = new();
    private long _seq;

    public int Count => _entries.Count;

    // Each put gets a fresh key, so the cache grows to its capacity and then evicts its oldest
    // entry: a steady stream of objects that survive to gen2 and die there.
    public void Put(Order order)
    {
        var key = Interlocked.Increment(ref _seq);
        _entries[key] = order;
        _order.Enqueue(key);
        while (_entries.Count > capacity && _order.TryDequeue(out var old)) _entries.TryRemove(old, out _);
    }
}

public sealed record Customer(long Id, string Name, string Email, string City, List<string> Tags);
public sealed record OrderLine(int Sku, string Product, int Quantity, decimal Price);
public sealed record Order(long Id, Customer Customer, DateTime Created, List<OrderLine> Lines, decimal Total, string Note)
{
    private static readonly string[] Cities = ["Lisbon", "Oslo", "Quito", "Hanoi", "Perth", "Accra", "Lima", "Riga"];
    private static readonly string[] Products = ["bolt", "nut", "washer", "gear", "spring", "valve", "pump", "hose", "belt", "fan"];

    public static Order Make(long id)
    {
        var rng = new Random((int)(id * 2654435761 % int.MaxValue));
        var tags = new List<string>(3);
        for (int t = rng.Next(1, 4); t > 0; t--) tags.Add($"tag-{rng.Next(1000)}");
        var customer = new Customer(id % 50_000, $"Customer {id % 50_000}", $"c{id % 50_000}@example.test",
            Cities[rng.Next(Cities.Length)], tags);
        int n = rng.Next(8, 17);
        var lines = new List<OrderLine>(n);
        decimal total = 0;
        for (int i = 0; i < n; i++)
        {
            var price = rng.Next(100, 100_000) / 100m;
            var qty = rng.Next(1, 10);
            lines.Add(new OrderLine(rng.Next(1_000_000), $"{Products[rng.Next(Products.Length)]}-{rng.Next(100)}", qty, price));
            total += price * qty;
        }
        return new Order(id, customer, DateTime.UnixEpoch.AddSeconds(id), lines, total, $"order {id} for {customer.Name}");
    }
}

static class Scratch
{
    // Buffers that live for the request only: they die in gen0.
    public static void Use(int kb, long seed)
    {
        var buffers = new List<byte[]>(kb);
        for (int i = 0; i < kb; i++) { var b = new byte[1024]; b[i % 1024] = (byte)seed; buffers.Add(b); }
        GC.KeepAlive(buffers);
    }
}

public sealed record Stats(int Gen0, int Gen1, int Gen2, long HeapBytes, int CacheEntries,
    double SeenGen0, double MeanGen0Ms, double MaxGen0Ms, double SeenGen1, double MeanGen1Ms, double MaxGen1Ms, double Missed,
    double SeenBlockingGen2, double MeanBlockingGen2Ms, double MaxBlockingGen2Ms,
    double SeenBackgroundGen2, double MeanBackgroundGen2Ms, double MaxBackgroundGen2Ms);

sealed class PauseMonitor
{
    // Slots: 0 gen0, 1 gen1 (GCKind.Ephemeral), 2 blocking gen2, 3 background gen2.
    private readonly object _lock = new();
    private readonly double[] _sum = new double[4], _max = new double[4];
    private readonly long[] _count = new long[4];
    private long _lastIndex, _missed, _lastBlocking, _lastBackground;

    public PauseMonitor()
    {
        _lastIndex = GC.GetGCMemoryInfo(GCKind.Ephemeral).Index;
        _lastBlocking = GC.GetGCMemoryInfo(GCKind.FullBlocking).Index;
        _lastBackground = GC.GetGCMemoryInfo(GCKind.Background).Index;
        new Thread(Poll) { IsBackground = true, Name = "pause-monitor" }.Start();
    }

    private void Poll()
    {
        while (true)
        {
            Thread.Sleep(1);
            var info = GC.GetGCMemoryInfo(GCKind.Ephemeral);
            lock (_lock)
            {
                if (info.Index != 0 && info.Generation <= 1 && info.Index > _lastIndex)
                {
                    _missed += info.Index - _lastIndex - 1;  // includes full GCs in between
                    _lastIndex = info.Index;
                    Add(info.Generation, info.PauseDurations[0].TotalMilliseconds);
                }
                // A full GC is the last of its kind until the next one: its index moves on.
                var blocking = GC.GetGCMemoryInfo(GCKind.FullBlocking);
                if (blocking.Index > _lastBlocking)
                {
                    _lastBlocking = blocking.Index;
                    Add(2, blocking.PauseDurations[0].TotalMilliseconds);
                }
                var background = GC.GetGCMemoryInfo(GCKind.Background);
                if (background.Index > _lastBackground)
                {
                    _lastBackground = background.Index;
                    Add(3, background.PauseDurations[0].TotalMilliseconds + background.PauseDurations[1].TotalMilliseconds);
                }
            }
        }
    }

    private void Add(int slot, double ms)
    {
        _sum[slot] += ms;
        _count[slot]++;
        _max[slot] = Math.Max(_max[slot], ms);
    }

    public double[] TakeAndReset()
    {
        lock (_lock)
        {
            var r = new double[13];
            for (int slot = 0; slot < 4; slot++)
            {
                int at = slot < 2 ? slot * 3 : slot * 3 + 1;  // Missed sits at 6
                r[at] = _count[slot];
                r[at + 1] = _count[slot] > 0 ? _sum[slot] / _count[slot] : 0;
                r[at + 2] = _max[slot];
            }
            r[6] = _missed;
            Array.Clear(_sum); Array.Clear(_max); Array.Clear(_count);
            _missed = 0;
            return r;
        }
    }
}

[System.Text.Json.Serialization.JsonSerializable(typeof(Order))]
[System.Text.Json.Serialization.JsonSerializable(typeof(Stats))]
internal partial class WebJson : System.Text.Json.Serialization.JsonSerializerContext { }
