// Snapshot-pause benchmark app shaped like a service's cache, driven by bench/pause.sh
// (--apps service_app); the same stdin protocol as bench/stall_app.
//   dotnet ServiceApp.dll <objects>
// Holds <objects> / 13 customers in a Dictionary<int, Customer>: each customer has a name
// string, a referrer link to an earlier customer and a List<Order> of three orders; each order
// has a SKU string, a 16-32-byte byte[] and a link back to its customer. That is 13 objects
// per customer (customer, name, list, the list's array, 3 x order, SKU, byte[]), plus the
// dictionary's two arrays: 500 000 customers are 6.5 M live objects.
// A ticker thread sleeps 1 ms per tick and keeps the longest gap between two ticks. Prints
//   stall-app: ready pid=<pid> objects=<n>
// and then reads commands on stdin, one per line:
//   gc     a full blocking, compacting GC.Collect(2, Forced, true, true); prints "gc done ms=<t>"
//   stats  prints "stats maxgap_ms=<x> ticks=<n> gcs=<g0>/<g1>/<g2> heap_mb=<m>" and resets the max gap
//   gcs    prints "gcs gen0=<n> gen1=<n> gen2=<n>" (GC.CollectionCount; the max gap is kept)
//   quit   exits (also on end of input)
using System.Diagnostics;

sealed class Customer
{
    public int Id;
    public string Name = "";
    public Customer? Referrer;
    public List<Order> Orders = new(3);
}

sealed class Order
{
    public long Id;
    public string Sku = "";
    public byte[] Payload = Array.Empty<byte>();
    public Customer? Customer;
}

static class Program
{
    const int ObjectsPerCustomer = 13;
    static readonly object Gate = new();
    static long maxGapTicks;
    static long tickCount;
    static volatile bool stopping;
    static Dictionary<int, Customer> Customers = new();

    static int Main(string[] args)
    {
        long target = args.Length > 0 && long.TryParse(args[0], out long n) && n > 0 ? n : 6_500_000;
        long built = Build((int)Math.Max(1, target / ObjectsPerCustomer));
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        var ticker = new Thread(Tick) { IsBackground = true, Name = "stall-ticker", Priority = ThreadPriority.AboveNormal };
        ticker.Start();
        Console.WriteLine($"stall-app: ready pid={Environment.ProcessId} objects={built}");
        Console.Out.Flush();
        string? line;
        while ((line = Console.ReadLine()) != null)
        {
            switch (line.Trim())
            {
                case "gc":
                    var sw = Stopwatch.StartNew();
                    GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
                    sw.Stop();
                    Console.WriteLine($"gc done ms={sw.Elapsed.TotalMilliseconds:F1}");
                    break;
                case "stats":
                    long gap;
                    lock (Gate) { gap = maxGapTicks; maxGapTicks = 0; }
                    Console.WriteLine(
                        $"stats maxgap_ms={gap * 1000.0 / Stopwatch.Frequency:F1} ticks={Interlocked.Read(ref tickCount)} " +
                        $"gcs={GC.CollectionCount(0)}/{GC.CollectionCount(1)}/{GC.CollectionCount(2)} " +
                        $"heap_mb={GC.GetTotalMemory(false) / 1048576.0:F0} live={Customers.Count}");
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

    static long Build(int customers)
    {
        var rng = new Random(33);
        var all = new Customer[customers];
        Customers = new Dictionary<int, Customer>(customers);
        for (int i = 0; i < customers; i++)
        {
            var c = new Customer { Id = i, Name = "customer-" + i };
            if (i > 0) c.Referrer = all[rng.Next(i)];
            for (int o = 0; o < 3; o++)
            {
                c.Orders.Add(new Order
                {
                    Id = (long)i * 3 + o,
                    Sku = "SKU-" + rng.Next(1_000_000).ToString("D6"),
                    Payload = new byte[rng.Next(16, 33)],
                    Customer = c,
                });
            }
            all[i] = c;
            Customers[i] = c;
        }
        return (long)customers * ObjectsPerCustomer + 2;  // + the dictionary's buckets and entries
    }
}
