// The oracle test's app (tests/e2e/oracle_test.sh): builds a heap with the shapes gcsnap must
// get right (generics nested in generics, closures, async state machines, timers, dictionaries,
// LOH and pinned arrays, ConditionalWeakTable entries with live and dead keys, finalizable
// objects, string literals, statics: plain, nested, generic, thread-static), collects until it is stable, prints
// "oracle-app: ready pid=N", then waits on stdin without allocating. Every line of stdin
// after that is ignored until end of input; then it exits 0. With the argument `identity` it
// runs IdentityScenario instead (two moments, for tests/e2e/identity_test.sh).
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Zoo {

public sealed class Point {
  public int X, Y;
  public Point(int x, int y) { X = x; Y = y; }
}

public sealed class Customer {
  public string Name;
  public Customer(string name) { Name = name; }
}

public sealed class CustomerExtras {
  public byte[] Notes = new byte[32];
  public Point Home = new Point(1, 2);
}

public sealed class Outer<T> {
  public T Value;
  public sealed class Inner<U> {
    public T Left;
    public U Right;
    public Inner(T left, U right) { Left = left; Right = right; }
  }
}

public sealed class Box<T> {
  public T Item;
  public Func<int> MakeCounter(int start) {
    int n = start;  // captured: a closure class nested in a generic type
    return () => n++ + Item.GetHashCode();
  }
}

public sealed class Finalizable {
  public static int Finalized;
  public readonly int Id;
  public Finalizable(int id) { Id = id; }
  ~Finalizable() { Interlocked.Increment(ref Finalized); }
}

public sealed class LeafForLoh { public int K; }

public static class Holder {
  public static readonly List<object> Keep = new List<object>();
  public static readonly ConditionalWeakTable<Customer, CustomerExtras> Extras = new ConditionalWeakTable<Customer, CustomerExtras>();
  public static readonly ConcurrentDictionary<int, List<Point>> PointsById = new ConcurrentDictionary<int, List<Point>>();
  public static readonly Dictionary<string, Customer> CustomersByName = new Dictionary<string, Customer>();
  public static Timer QuietTimer;
  public static readonly string Literal = "a string literal of the oracle app";
  public static TaskCompletionSource<int> Gate = new TaskCompletionSource<int>();
  public static Task Pending;
  public static GCHandle PinnedHandle;
  public static byte[] PinnedByAllocateArray;
  [ThreadStatic] public static List<int> PerThread;  // one slot per thread: not named by gcsnap

  /// A nested static class that never has an instance: its static is named "Zoo.Holder+Registry.Names".
  public static class Registry {
    public static readonly List<string> Names = new List<string> { "alpha", "beta" };
  }
}

/// Statics of a generic type exist per instantiation: gcsnap does not name them.
public static class PerType<T> {
  public static readonly List<T> Items = new List<T>();
}

public static class Program {
  static async Task<int> WaitForGate(int id, Customer who) {
    int local = id;
    int got = await Holder.Gate.Task.ConfigureAwait(false);
    return got + local + who.Name.Length;
  }

  static void Build() {
    for (int i = 0; i < 50; i++) {
      var points = new List<Point>();
      for (int k = 0; k < 3; k++) points.Add(new Point(i, k));
      Holder.PointsById[i] = points;
    }
    var live = new List<Customer>();
    for (int i = 0; i < 40; i++) {
      var c = new Customer("customer-" + i);
      Holder.CustomersByName[c.Name] = c;
      live.Add(c);
      Holder.Extras.Add(c, new CustomerExtras());  // key alive: its extras are alive
    }
    for (int i = 0; i < 25; i++) Holder.Extras.Add(new Customer("gone-" + i), new CustomerExtras());  // keys die
    Holder.Keep.Add(live);
    var nested = new List<Outer<int>.Inner<string>>();
    for (int i = 0; i < 12; i++) nested.Add(new Outer<int>.Inner<string>(i, "inner-" + i));
    Holder.Keep.Add(nested);
    Holder.Keep.Add(new Outer<Point>.Inner<List<Customer>>(new Point(5, 5), live));
    Holder.Keep.Add(new Outer<Outer<int>.Inner<string>>.Inner<int>[] { new Outer<Outer<int>.Inner<string>>.Inner<int>(nested[0], 7) });
    var counters = new List<Func<int>>();
    for (int i = 0; i < 6; i++) counters.Add(new Box<Point> { Item = new Point(i, i) }.MakeCounter(i));
    Holder.Keep.Add(counters);
    var big = new LeafForLoh[20_000];  // > 85 000 bytes: LOH
    for (int i = 0; i < 100; i++) big[i * 7] = new LeafForLoh { K = i };
    Holder.Keep.Add(big);
    Holder.Keep.Add(new byte[200_000]);
    var pinned = new byte[4096];
    Holder.PinnedHandle = GCHandle.Alloc(pinned, GCHandleType.Pinned);
    Holder.PinnedByAllocateArray = GC.AllocateArray<byte>(2048, pinned: true);
    Holder.QuietTimer = new Timer(_ => { }, null, Timeout.Infinite, Timeout.Infinite);
    var tasks = new List<Task<int>>();
    for (int i = 0; i < 5; i++) tasks.Add(WaitForGate(i, live[i]));
    Holder.Pending = Task.WhenAll(tasks);
    for (int i = 0; i < 8; i++) Holder.Keep.Add(new Finalizable(i));
    for (int i = 0; i < 8; i++) _ = new Finalizable(100 + i);  // die, finalized below
    Holder.Keep.Add(Holder.Literal);
    Holder.PerThread = new List<int> { 1 };
    PerType<Point>.Items.Add(new Point(9, 9));
    Holder.Keep.Add(Holder.Registry.Names.Count);
  }

  public static int Main(string[] args) {
    if (args.Length == 1 && args[0] == "identity") return IdentityScenario.Run();
    Build();
    for (int i = 0; i < 3; i++) {
      GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
      GC.WaitForPendingFinalizers();
    }
    GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
    Console.Out.WriteLine($"oracle-app: ready pid={Environment.ProcessId} finalized={Finalizable.Finalized}");
    Console.Out.Flush();
    // Idle until stdin closes: nothing allocates while the snapshot and the dump are taken.
    using var stdin = Console.OpenStandardInput();
    var buffer = new byte[256];
    while (stdin.Read(buffer, 0, buffer.Length) > 0) { }
    GC.KeepAlive(Holder.Keep);
    Console.Out.WriteLine("oracle-app: done");
    return 0;
  }
}

}
