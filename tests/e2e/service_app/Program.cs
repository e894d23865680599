// The service the e2e "service" cases hunt leaks in: an ASP.NET Core app started without
// gcsnap and driven over HTTP on loopback. What it holds, so the tests know the answers:
//  - POST /book?n=N adds N Bookings. Each one registers a callback on the host's
//    ApplicationStopping token and never disposes the registration: a leak held by a long
//    linked chain (CancellationTokenSource -> Registrations -> CallbackNode.Next x N ->
//    Booking). The last 64 Bookings also sit in BookingCache, a bounded LRU: the nearest
//    instances of Booking, a red herring that does not grow.
//  - POST /audit?n=N appends N AuditEntry objects to AuditLog.s_trail, a static
//    LinkedList<AuditEntry>: a doubly linked list reachable from its head and its tail (the
//    list is circular, head.prev is the tail), and a second leak with a static's name.
//  - GET /stats prints the counts: "bookings=B cached=C audit=A".
//  - For bench/attach_pause.sh: POST /churn?kib=N allocates N KiB of garbage; with the second
//    argument "pauses", GET /gcpauses prints the GC pauses since the last call (GcPauses.cs).
// The port comes from the first argument; the app prints "gcsnap-service: ready port=P pid=I".
using System;
using System.Collections.Generic;
using System.Threading;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Gcsnap.Service;

public sealed class Booking {
  public readonly long Id;
  public readonly string Guest;
  public readonly byte[] Payload = new byte[128];
  public Booking(long id) { Id = id; Guest = "guest-" + id; }
}

// A bounded LRU: at most Capacity Bookings, the least recently added evicted first.
public sealed class BookingCache {
  public const int Capacity = 64;
  private readonly Dictionary<long, Booking> _byId = new();
  private readonly Queue<long> _order = new();
  private readonly object _lock = new();
  public int Count { get { lock (_lock) return _byId.Count; } }
  public void Add(Booking b) {
    lock (_lock) {
      _byId[b.Id] = b;
      _order.Enqueue(b.Id);
      while (_byId.Count > Capacity) _byId.Remove(_order.Dequeue());
    }
  }
}

public sealed class AuditEntry {
  public readonly long Sequence;
  public readonly string What;
  public AuditEntry(long sequence, string what) { Sequence = sequence; What = what; }
}

public static class AuditLog {
  private static readonly LinkedList<AuditEntry> s_trail = new();
  private static long s_next;
  public static int Count { get { lock (s_trail) return s_trail.Count; } }
  public static void Append(string what) {
    lock (s_trail) s_trail.AddLast(new AuditEntry(++s_next, what));
  }
}

public sealed class BookingService {
  private readonly IHostApplicationLifetime _lifetime;
  private readonly BookingCache _cache;
  private long _next, _registered;
  public BookingService(IHostApplicationLifetime lifetime, BookingCache cache) { _lifetime = lifetime; _cache = cache; }
  public long Registered => Interlocked.Read(ref _registered);
  public void Book() {
    var booking = new Booking(Interlocked.Increment(ref _next));
    _cache.Add(booking);
    // The leak: the registration is dropped, never disposed, so the token keeps the callback
    // and its state until the host stops.
    _lifetime.ApplicationStopping.Register(static state => ((Booking)state!).Guest.ToString(), booking);
    Interlocked.Increment(ref _registered);
  }
}

public static class ChurnSink {
  public static object? Last;
}

public static class Program {
  public static int Main(string[] args) {
    int port = args.Length > 0 ? int.Parse(args[0]) : 0;
    // "pauses": record the GC pauses for bench/attach_pause.sh (GET /gcpauses).
    var pauses = args.Length > 1 && args[1] == "pauses" ? new GcPauses() : null;
    var builder = WebApplication.CreateSlimBuilder();
    builder.Logging.ClearProviders();
    builder.WebHost.UseUrls($"http://127.0.0.1:{port}");
    builder.Services.AddSingleton<BookingCache>();
    builder.Services.AddSingleton<BookingService>();
    var app = builder.Build();
    app.MapPost("/book", (HttpContext ctx, BookingService service) => {
      int n = int.TryParse(ctx.Request.Query["n"], out var v) ? v : 1;
      for (int i = 0; i < n; ++i) service.Book();
      return Results.Text($"booked {n}\n");
    });
    app.MapPost("/audit", (HttpContext ctx) => {
      int n = int.TryParse(ctx.Request.Query["n"], out var v) ? v : 1;
      for (int i = 0; i < n; ++i) AuditLog.Append("request " + i);
      return Results.Text($"audited {n}\n");
    });
    // Garbage for gen0 GCs: N KiB of 1 KiB arrays, dropped at once.
    app.MapPost("/churn", (HttpContext ctx) => {
      int kib = int.TryParse(ctx.Request.Query["kib"], out var v) ? v : 1024;
      // Each array escapes to a static (the JIT would otherwise put it on the stack).
      long sum = 0;
      for (int i = 0; i < kib; ++i) {
        var chunk = new byte[1024];
        Volatile.Write(ref ChurnSink.Last, chunk);
        sum += chunk.Length;
      }
      return Results.Text($"churned {sum / 1024}\n");
    });
    app.MapGet("/gcpauses", () => Results.Text(pauses?.Drain() ?? ""));
    app.MapGet("/stats", (BookingService service, BookingCache cache) =>
        Results.Text($"bookings={service.Registered} cached={cache.Count} audit={AuditLog.Count}\n"));
    app.Lifetime.ApplicationStarted.Register(() => {
      var addresses = app.Urls;
      foreach (var a in addresses)
        Console.WriteLine($"gcsnap-service: ready url={a} pid={Environment.ProcessId}");
      Console.Out.Flush();
    });
    app.Run();
    return 0;
  }
}
