// Snapshot-pause benchmark app, driven by bench/pause.sh (and the attach bench).
//   dotnet StallApp.dll <objects>
// Builds a service-like heap of about <objects> live objects (a session cache of dictionaries,
// lists, strings and small arrays, plus a linked object graph), starts a ticker thread that
// sleeps 1 ms per tick and keeps the longest gap between two ticks, prints
//   stall-app: ready pid=<pid> objects=<n>
// and then reads commands on stdin, one per line:
//   gc     a full blocking GC.Collect(); prints "gc done ms=<t>"
//   stats  prints "stats maxgap_ms=<x> ticks=<n> gcs=<g0>/<g1>/<g2> heap_mb=<m>" and resets the max gap
//   gcs    prints "gcs gen0=<n> gen1=<n> gen2=<n>" (GC.CollectionCount; the max gap is kept)
//   quit   exits (also on end of input)
// The longest gap is what the app felt: a GC, a heap walk, or anything else that froze it.
using System.Diagnostics;

sealed class Customer
{
    public long Id;
    public string Name = "";
    public string Email = "";
    public List<Order> Orders = new();
    public Dictionary<string, string> Tags = new();
    public Customer? Referrer;
}

sealed class Order
{
    public long Id;
    public decimal Total;
    public DateTime Placed;
    public string Status = "";
    public int[] Lines = Array.Empty<int>();
    public Customer? Owner;
}

sealed class GraphNode
{
    public GraphNode? Next;
    public GraphNode? Other;
    public object? Payload;
    public long Key;
}

static class Program
{
    static readonly object Gate = new();
    static long maxGapTicks;
    static long tickCount;
    static volatile bool stopping;
    // Everything live hangs off these roots.
    static readonly Dictionary<long, Customer> Customers = new();
    static readonly List<GraphNode> Graph = new();
    static readonly Dictionary<string, byte[]> Blobs = new();

    static int Main(string[] args)
    {
        long target = args.Length > 0 && long.TryParse(args[0], out long n) && n > 0 ? n : 1_000_000;
        long built = Build(target);
        // Settle the heap: what the GCs below see is the live set only.
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        var ticker = new Thread(Tick) { IsBackground = true, Name = "stall-ticker", Priority = ThreadPriority.AboveNormal };
        ticker.Start();
        Console.Out.Flush();
        Console.WriteLine($"stall-app: ready pid={Environment.ProcessId} objects={built}");
        Console.Out.Flush();
        string? line;
        while ((line = Console.ReadLine()) != null)
        {
            switch (line.Trim())
            {
                case "gc":
                    var sw = Stopwatch.StartNew();
                    GC.Collect();
                    sw.Stop();
                    Console.WriteLine($"gc done ms={sw.Elapsed.TotalMilliseconds:F1}");
                    break;
                case "stats":
                    long gap;
                    lock (Gate) { gap = maxGapTicks; maxGapTicks = 0; }
                    Console.WriteLine(
                        $"stats maxgap_ms={gap * 1000.0 / Stopwatch.Frequency:F1} ticks={Interlocked.Read(ref tickCount)} " +
                        $"gcs={GC.CollectionCount(0)}/{GC.CollectionCount(1)}/{GC.CollectionCount(2)} " +
                        $"heap_mb={GC.GetTotalMemory(false) / 1048576.0:F0} live={Customers.Count + Graph.Count + Blobs.Count}");
                    break;
                case "gcs":
                    Console.WriteLine($"gcs gen0={GC.CollectionCount(0)} gen1={GC.CollectionCount(1)} gen2={GC.CollectionCount(2)}");
                    break;
                case "quit":
                    stopping = true;
                    return 0;
                case "":
                    break;
                default:
                    Console.WriteLine($"error unknown command '{line.Trim()}'");
                    break;
            }
            Console.Out.Flush();
        }
        stopping = true;
        return 0;
    }

    static void Tick()
    {
        long last = Stopwatch.GetTimestamp();
        while (!stopping)
        {
            Thread.Sleep(1);
            long now = Stopwatch.GetTimestamp();
            long gap = now - last;
            last = now;
            Interlocked.Increment(ref tickCount);
            lock (Gate) { if (gap > maxGapTicks) maxGapTicks = gap; }
        }
    }

    // Object counts per unit (approximate, counted as the runtime's heap walk would see them):
    // a customer with 3 orders is ~24 objects, a graph node with a payload ~2, a blob entry ~3.
    static long Build(long target)
    {
        var rng = new Random(11);
        long objects = 0;
        long id = 0;
        string[] statuses = { "new", "paid", "shipped", "returned" };
        var customerList = new List<Customer>();
        // 70 % of the objects in customers/orders, 25 % in the graph, 5 % in blobs.
        while (objects < target * 70 / 100)
        {
            var c = new Customer { Id = ++id, Name = "customer-" + id, Email = "c" + id + "@example.com" };
            objects += 6; // Customer, Name, Email, Orders list + its array, Tags dictionary
            int tags = rng.Next(0, 4);
            for (int t = 0; t < tags; t++) c.Tags["k" + t] = "v" + rng.Next(1000);
            if (tags > 0) objects += 2 + 2 * tags; // buckets + entries arrays, key and value strings
            int orders = rng.Next(0, 6);
            for (int o = 0; o < orders; o++)
            {
                var order = new Order
                {
                    Id = id * 10 + o,
                    Total = rng.Next(1, 100000) / 100m,
                    Placed = DateTime.UnixEpoch.AddSeconds(rng.Next()),
                    Status = statuses[rng.Next(statuses.Length)],
                    Lines = new int[rng.Next(1, 9)],
                    Owner = c,
                };
                c.Orders.Add(order);
                objects += 2;
            }
            if (orders > 4) objects += 1; // the list's grown array
            if (customerList.Count > 0 && rng.Next(4) == 0) c.Referrer = customerList[rng.Next(customerList.Count)];
            customerList.Add(c);
            Customers[c.Id] = c;
        }
        objects += 3; // the dictionary's arrays, approximately
        GraphNode? prev = null;
        while (objects < target * 95 / 100)
        {
            var node = new GraphNode { Key = ++id, Next = prev };
            objects += 1;
            int k = rng.Next(10);
            if (k < 4) { node.Payload = "node-" + id; objects += 1; }
            else if (k < 6) { node.Payload = new long[rng.Next(1, 6)]; objects += 1; }
            if (Graph.Count > 0 && rng.Next(3) == 0) node.Other = Graph[rng.Next(Graph.Count)];
            Graph.Add(node);
            prev = node;
        }
        while (objects < target)
        {
            string key = "blob-" + (++id);
            Blobs[key] = new byte[rng.Next(16, 512)];
            objects += 2;
        }
        return objects;
    }
}
