// GC-heavy benchmark app for bench/run.sh.
//   gc_heavy_app [ROUNDS=40] [LIVE=300000] [ALLOC_PER_ROUND=400000]
// Keeps a live set of LIVE small objects (nodes with 2-3 references, strings, arrays: sizes
// 24-100 bytes with a tail), replaces a fraction of it every round while allocating
// ALLOC_PER_ROUND short-lived objects, and calls GC.Collect() every 10 rounds. Prints one
// line: GC counts, total GC pause (GC.GetTotalPauseDuration) and wall time, both in ms.
using System.Diagnostics;

sealed class Node
{
    public Node? Left, Right;
    public object? Payload;
    public long Id;
    public Node(long id) { Id = id; }
}

static class Program
{
    static int Main(string[] args)
    {
        int rounds = args.Length > 0 ? int.Parse(args[0]) : 40;
        int live = args.Length > 1 ? int.Parse(args[1]) : 300_000;
        int allocPerRound = args.Length > 2 ? int.Parse(args[2]) : 400_000;
        var wall = Stopwatch.StartNew();
        var rng = new Random(42);
        var slots = new Node[live];
        for (int i = 0; i < live; i++) slots[i] = Make(rng, i, slots);
        long sink = 0;
        for (int r = 0; r < rounds; r++)
        {
            // Short-lived garbage: mostly small, some larger arrays.
            for (int i = 0; i < allocPerRound; i++)
            {
                object o = (i % 16) switch
                {
                    0 => new byte[rng.Next(16, 2048)],
                    1 or 2 => i.ToString(),
                    _ => new Node(i),
                };
                sink += o.GetHashCode() & 1;
            }
            // Churn 5 % of the live set: old objects die, new ones are promoted later.
            for (int k = 0; k < live / 20; k++)
            {
                int j = rng.Next(live);
                slots[j] = Make(rng, j, slots);
            }
            if (r % 10 == 9) GC.Collect();
        }
        wall.Stop();
        Console.WriteLine(
            $"gc_heavy_app rounds={rounds} live={live} gen0={GC.CollectionCount(0)} gen1={GC.CollectionCount(1)} " +
            $"gen2={GC.CollectionCount(2)} pause_ms={GC.GetTotalPauseDuration().TotalMilliseconds:F1} " +
            $"wall_ms={wall.Elapsed.TotalMilliseconds:F1} sink={sink & 1}");
        return 0;
    }

    static Node Make(Random rng, int i, Node[] slots)
    {
        var n = new Node(i);
        int k = rng.Next(10);
        n.Payload = k < 4 ? "s" + i : k < 7 ? new int[rng.Next(1, 12)] : k < 9 ? new long[2] : null;
        // References mostly to neighbours in the live set (locality), some random.
        if (i > 0) n.Left = slots[i - 1];
        if (rng.Next(4) == 0) n.Right = slots[rng.Next(slots.Length)];
        return n;
    }
}
