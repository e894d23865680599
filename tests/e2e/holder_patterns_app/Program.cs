// The holder-patterns app (issue 44): one leak per structure where services leak, each of a
// type of its own, so that `gcsnap leaks` must name the holder a developer changes:
//   EventSubscriber   static event ConfigWatcher.Changed, handler EventSubscriber.OnChanged
//   InstanceListener  event Publisher.Updated of a long-lived Publisher, handler OnUpdated
//   PollSession       a System.Threading.Timer kept in PollSession._timer, callback a lambda
//                     in PollSession.Start
//   StopWatcher       a callback registered on the static CancellationTokenSource s_stopping
//   CachedReport      MemoryCache entries without a size limit (Reports.s_cache)
//   LookupItem        a static ConcurrentDictionary (Lookup.s_items)
//   TransientWidget   IDisposable transients resolved from the DI root provider
//   DiagObserver      subscriptions to a static DiagnosticListener never disposed
//   TraceListener     ActivityListeners added to ActivitySource and never disposed
//   PendingJob        async methods awaiting the static TaskCompletionSource Gate.s_open
//   dotnet Gcsnap.HolderPatterns.dll ROUNDS [PER_ROUND]
// One round: PER_ROUND (default 100) more of each, then GC.Collect() (walked by
// `gcsnap record --policy induced`). Prints "leaked N" at the end (N per kind).
//   dotnet Gcsnap.HolderPatterns.dll stdin [PER_ROUND]
// Prints "ready pid=P", then one round per line read from stdin (without GC.Collect: the
// test walks the heap with `gcsnap snapshot PID`), each followed by "round N: M"; ends at EOF.
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Caching.Memory;
using Microsoft.Extensions.DependencyInjection;

namespace Gcsnap.HolderPatterns;

public static class ConfigWatcher {
  public static event EventHandler? Changed;
  public static void Raise() => Changed?.Invoke(null, EventArgs.Empty);
}

public sealed class EventSubscriber {
  public readonly byte[] State = new byte[64];
  public EventSubscriber() { ConfigWatcher.Changed += OnChanged; }
  public void OnChanged(object? sender, EventArgs e) => State[0]++;
}

public sealed class Publisher {
  public event EventHandler? Updated;
  public void Raise() => Updated?.Invoke(this, EventArgs.Empty);
}

public sealed class InstanceListener {
  public readonly byte[] State = new byte[48];
  public InstanceListener(Publisher p) { p.Updated += OnUpdated; }
  public void OnUpdated(object? sender, EventArgs e) => State[0]++;
}

public sealed class PollSession {
  private Timer? _timer;
  private int _polls;
  public void Start() { _timer = new Timer(_ => _polls++, null, TimeSpan.FromHours(1), TimeSpan.FromHours(1)); }
  public int Polls => _polls;
}

public sealed class StopWatcher {
  public readonly byte[] State = new byte[40];
  public void OnStop() => State[0]++;
}

public sealed class CachedReport {
  public readonly byte[] Body = new byte[56];
}

public sealed class LookupItem {
  public readonly long[] Data = new long[6];
}

public sealed class TransientWidget : IDisposable {
  public readonly byte[] Buffer = new byte[72];
  public void Dispose() { }
}

public sealed class DiagObserver : IObserver<KeyValuePair<string, object?>> {
  public readonly byte[] Seen = new byte[24];
  public void OnCompleted() { }
  public void OnError(Exception error) { }
  public void OnNext(KeyValuePair<string, object?> value) => Seen[0]++;
}

public sealed class TraceListener {
  public readonly byte[] Seen = new byte[32];
  public ActivitySamplingResult Sample(ref ActivityCreationOptions<ActivityContext> options) => ActivitySamplingResult.None;
}

public sealed class PendingJob {
  public readonly byte[] Work = new byte[88];
}

public static class Program {
  private static readonly Publisher s_publisher = new();
  private static readonly CancellationTokenSource s_stopping = new();
  private static readonly MemoryCache s_reports = new(new MemoryCacheOptions());
  private static readonly ConcurrentDictionary<int, LookupItem> s_items = new();
  private static readonly ServiceProvider s_services =
      new ServiceCollection().AddTransient<TransientWidget>().BuildServiceProvider();
  private static readonly DiagnosticListener s_diagnostics = new("Gcsnap.HolderPatterns");
  private static readonly ActivitySource s_activities = new("Gcsnap.HolderPatterns");
  private static readonly TaskCompletionSource s_open = new();
  private static int s_next;

  public static int Main(string[] args) {
    if (args.Length < 1) {
      Console.Error.WriteLine("usage: Gcsnap.HolderPatterns ROUNDS [PER_ROUND]");
      return 64;
    }
    int perRound = args.Length > 1 ? int.Parse(args[1]) : 100;
    if (args[0] == "stdin") {
      Console.WriteLine($"ready pid={Environment.ProcessId}");
      for (int round = 0; Console.ReadLine() != null; ++round) {
        for (int i = 0; i < perRound; ++i) Leak();
        Console.WriteLine($"round {round}: {s_next}");
      }
      return 0;
    }
    int rounds = int.Parse(args[0]);
    for (int round = 0; round < rounds; ++round) {
      for (int i = 0; i < perRound; ++i) Leak();
      GC.Collect();
      Console.WriteLine($"round {round}: {s_next}");
    }
    Console.WriteLine($"leaked {s_next}");
    return 0;
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  private static void Leak() {
    int id = ++s_next;
    _ = new EventSubscriber();
    _ = new InstanceListener(s_publisher);
    // The sessions themselves are dropped by the app: only their timers keep them.
    new PollSession().Start();
    var watcher = new StopWatcher();
    s_stopping.Token.Register(watcher.OnStop);
    s_reports.Set(id, new CachedReport());
    s_items[id] = new LookupItem();
    s_services.GetRequiredService<TransientWidget>();
    s_diagnostics.Subscribe(new DiagObserver());
    var trace = new TraceListener();
    ActivitySource.AddActivityListener(new ActivityListener { ShouldListenTo = _ => false, Sample = trace.Sample });
    _ = WaitAsync(new PendingJob());
  }

  private static async Task WaitAsync(PendingJob job) {
    await s_open.Task;
    job.Work[0]++;
  }
}
