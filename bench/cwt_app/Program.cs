// bench/cwt_cost.sh's app: CwtApp ENTRIES GCS. Makes ENTRIES ConditionalWeakTable entries with
// live keys (ENTRIES dependent handles), then times GCS induced gen0 GCs and GCS/10 gen2 GCs
// with a stopwatch around GC.Collect (the profiler's per-GC work, dependent-handle scan
// included, happens inside it). Prints "cwt: entries=N gen0_us=... gen2_us=..." (medians).
using System.Diagnostics;
using System.Runtime.CompilerServices;

static class Program {
  static double Median(List<double> v) { v.Sort(); return v[v.Count / 2]; }

  static int Main(string[] args) {
    int entries = int.Parse(args[0]), gcs = int.Parse(args[1]);
    var table = new ConditionalWeakTable<object, object>();
    var keys = new object[entries];
    for (int i = 0; i < entries; i++) { keys[i] = new object(); table.Add(keys[i], new object()); }
    GC.Collect(2, GCCollectionMode.Forced, true, true);
    var gen0 = new List<double>();
    var gen2 = new List<double>();
    for (int i = 0; i < gcs; i++) {
      var sw = Stopwatch.StartNew();
      GC.Collect(0, GCCollectionMode.Forced, true);
      gen0.Add(sw.Elapsed.TotalMicroseconds);
      if (i % 10 == 0) {
        sw.Restart();
        GC.Collect(2, GCCollectionMode.Forced, true);
        gen2.Add(sw.Elapsed.TotalMicroseconds);
      }
    }
    GC.KeepAlive(keys);
    GC.KeepAlive(table);
    Console.WriteLine($"cwt: entries={entries} gen0_us={Median(gen0):F0} gen2_us={Median(gen2):F0}");
    return 0;
  }
}
