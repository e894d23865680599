// gcsnap's end-to-end sample app. Usage: dotnet Gcsnap.Sample.dll [MODE [ARG]]
//   run (default)   build the known heap, four induced GCs (the last two are the diff pair),
//                   print the facts line, exit 0
//   crash [MS]      as run, wait MS (default 1000) so the recorder can write what it has, then
//                   Environment.FailFast (SIGABRT) with the finalizer thread still blocked
//   throw [MS]      as run, wait MS (default 1000), then an unhandled exception (SIGABRT)
//   exit N          one induced GC, then exit with code N
//   wait [SECONDS]  as run, print "gcsnap-sample: ready", wait until stdin closes or SECONDS
//                   (default 120) pass, then exit 0: for on-demand snapshots
//   churn N         N iterations of a GC-heavy allocation loop (induced and natural GCs)
//   threads T       T threads allocate while the main thread induces GCs
//   exit-writing N CODE return|exit|libc-exit
//                   allocate N ExitMarkers, one induced GC (a heap walk too large for the
//                   recorder to write at once), then at once return CODE from Main, call
//                   Environment.Exit(CODE), or call libc's exit(CODE) (which skips the
//                   runtime's shutdown): the app exits while that GC is being written
//   attach-wait     as run, then commands on stdin for the attach tests (AttachWait.cs)
//   bgc ROUNDS      a large gen2 and churn, so that gen2 GCs run in the background when the
//                   runtime may (BackgroundGcs.cs)
//   leaks [ROUNDS [PAUSE_MS]]
//                   ROUNDS (default 8) rounds of work with planted leaks and look-alikes, an
//                   induced GC before the first and after each, then a pause of PAUSE_MS
//                   (default 0) (LeakRounds.cs)
//   memory KIND MIB  hold MIB MiB of native, managed or pinned-fragmented memory between two
//                   induced GCs (MemoryShapes.cs)
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace Gcsnap.Sample;

public static class Program
{
    private const int ExitUsage = 64;

    public static int Main(string[] args)
    {
        string mode = args.Length > 0 ? args[0] : "run";
        string? arg = args.Length > 1 ? args[1] : null;
        switch (mode)
        {
            case "run":
                Scenario.Run();
                Scenario.PrintFacts(mode);
                return Finish();
            case "crash":
                Scenario.Run();
                Scenario.PrintFacts(mode);
                Thread.Sleep(arg is null ? 1000 : int.Parse(arg));
                Environment.FailFast("gcsnap-sample: crashing on purpose (crash mode)");
                return 1;
            case "throw":
                Scenario.Run();
                Scenario.PrintFacts(mode);
                Thread.Sleep(arg is null ? 1000 : int.Parse(arg));
                throw new InvalidOperationException("gcsnap-sample: unhandled on purpose (throw mode)");
            case "exit" when int.TryParse(arg, out int code):
                Scenario.InducedGc();
                Console.WriteLine($"gcsnap-sample: mode=exit pid={Environment.ProcessId} code={code}");
                return code;
            case "wait":
                return Wait(arg is null ? 120 : int.Parse(arg));
            case "attach-wait":
                AttachWait.Run();
                return Finish();
            case "leaks":
                return LeakRounds.Run(arg is null ? 8 : int.Parse(arg), args.Length > 2 ? int.Parse(args[2]) : 0);
            case "memory" when args.Length == 3 && int.TryParse(args[2], out int mib) && mib > 0:
                return MemoryShapes.Run(arg!, mib);
            case "bgc" when int.TryParse(arg, out int bgcRounds) && bgcRounds >= 0:
                return BackgroundGcs.Run(bgcRounds);
            case "churn" when int.TryParse(arg, out int iterations) && iterations >= 0:
                return Churn(iterations);
            case "threads" when int.TryParse(arg, out int threadCount) && threadCount > 0:
                return Threads(threadCount);
            case "exit-writing" when args.Length == 4 && int.TryParse(arg, out int markers) && markers > 0 &&
                                     int.TryParse(args[2], out int exitCode) &&
                                     args[3] is "return" or "exit" or "libc-exit":
                return ExitWhileWriting(markers, exitCode, args[3]);
            default:
                Console.Error.WriteLine("usage: Gcsnap.Sample [run | crash [MS] | throw [MS] | exit N | wait [SECONDS] | churn N | " +
                                        "threads T | exit-writing N CODE return|exit|libc-exit | attach-wait | leaks [ROUNDS [PAUSE_MS]] | memory native|managed|pinned|grow|heapgrow|small MIB]");
                return ExitUsage;
        }
    }

    // threads T: T threads allocate at once while the main thread induces GCs, so that GCs
    // (server GC: on several GC threads) interrupt many allocating threads.
    private static int Threads(int threadCount)
    {
        long allocated = 0;
        var stop = false;
        var workers = new Thread[threadCount];
        for (int t = 0; t < threadCount; t++)
        {
            int seed = t;
            workers[t] = new Thread(() =>
            {
                var random = new Random(seed);
                var window = new List<object>();
                long mine = 0;
                while (!Volatile.Read(ref stop))
                {
                    window.Add(random.Next(3) == 0 ? new LeakyItem(seed) : new byte[random.Next(16, 2048)]);
                    mine++;
                    if (window.Count > 5_000) window.RemoveRange(0, 2_500);
                }
                Interlocked.Add(ref allocated, mine);
                GC.KeepAlive(window);
            });
            workers[t].Start();
        }
        for (int i = 0; i < 6; i++)
        {
            Thread.Sleep(100);
            Scenario.InducedGc();
        }
        Volatile.Write(ref stop, true);
        foreach (var w in workers) w.Join();
        Console.WriteLine($"gcsnap-sample: mode=threads pid={Environment.ProcessId} threads={threadCount} " +
                          $"induced_gcs={Scenario.InducedGcs} allocated={allocated} " +
                          $"server_gc={System.Runtime.GCSettings.IsServerGC} gen0_count={GC.CollectionCount(0)} ");
        return 0;
    }

    // exit-writing: the last GC's heap walk holds N ExitMarkers; the app leaves right after it,
    // while the recorder's writer thread is still encoding that walk. The facts line says how
    // long the output file was at that moment, so the test can tell the walk was not yet written.
    private static int ExitWhileWriting(int markers, int code, string how)
    {
        // Each marker but the first holds a random earlier one: references that compress
        // badly, so that writing the walk takes the writer thread a while.
        var random = new Random(4321);
        var all = new ExitMarker[markers];
        for (int i = 0; i < markers; i++)
            all[i] = new ExitMarker(i, i == 0 ? null : all[random.Next(i)]);
        Scenario.InducedGc();
        string? output = Environment.GetEnvironmentVariable("GCSNAP_OUTPUT");
        long bytesAtExit = output is not null && File.Exists(output) ? new FileInfo(output).Length : -1;
        Console.WriteLine($"gcsnap-sample: mode=exit-writing pid={Environment.ProcessId} markers={markers} " +
                          $"induced_gcs={Scenario.InducedGcs} gc_count={GC.CollectionCount(0)} " +
                          $"file_bytes_at_exit={bytesAtExit} code={code} how={how} ");
        Console.Out.Flush();
        GC.KeepAlive(all);
        if (how == "exit") Environment.Exit(code);
        if (how == "libc-exit") LibcExit(code);
        return code;
    }

    [DllImport("libc", EntryPoint = "exit")]
    private static extern void LibcExit(int code);

    private static int Finish()
    {
        Scenario.ReleaseFinalizerThread();
        Console.WriteLine($"gcsnap-sample: done finalized={Finalizable.FinalizedCount} checksum={Scenario.Checksum()}");
        return 0;
    }

    private static int Wait(int seconds)
    {
        Scenario.Run();
        Scenario.PrintFacts("wait");
        Console.WriteLine("gcsnap-sample: ready");
        Console.Out.Flush();
        var stdinClosed = Task.Run(() => Console.OpenStandardInput().CopyTo(Stream.Null));
        bool closed = stdinClosed.Wait(TimeSpan.FromSeconds(seconds));
        Console.WriteLine($"gcsnap-sample: wait ended by {(closed ? "stdin" : "timeout")} " +
                          $"gen2_count={GC.CollectionCount(2)}");
        return Finish();
    }

    /// <summary>Allocate in a sliding window so that objects die young and old, with induced
    /// gen0 and gen2 GCs on top of the natural ones. Deterministic: a fixed seed.</summary>
    private static int Churn(int iterations)
    {
        var random = new Random(12345);
        var window = new List<object>();
        long allocated = 0;
        for (int i = 0; i < iterations; i++)
        {
            for (int j = 0; j < 100; j++)
            {
                object o = (j % 10) switch
                {
                    0 => new byte[random.Next(16, 4096)],
                    1 => new LeakyItem(j),
                    2 => new string('x', random.Next(1, 64)),
                    _ => new Survivor2(j),
                };
                allocated++;
                if (random.Next(8) == 0) window.Add(o);
            }
            if (window.Count > 20_000) window.RemoveRange(0, 10_000);
            if (i % 100 == 99) GC.Collect(0);
            if (i % 1000 == 999) Scenario.InducedGc();
        }
        Console.WriteLine($"gcsnap-sample: mode=churn pid={Environment.ProcessId} iterations={iterations} " +
                          $"induced_gcs={Scenario.InducedGcs} " +
                          $"allocated={allocated} kept={window.Count} gen0_count={GC.CollectionCount(0)} " +
                          $"gen1_count={GC.CollectionCount(1)} gen2_count={GC.CollectionCount(2)}");
        return 0;
    }
}
