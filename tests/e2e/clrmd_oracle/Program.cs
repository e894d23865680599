// gcsnap's independent oracle: Gcsnap.ClrmdOracle DUMP DAC OUT.tsv [TYPE]
// Reads a full core dump with ClrMD, with the data-access library (DAC) that ships beside
// libcoreclr.so, and writes, as tab-separated lines:
//   root <kind> <address>      one line per strong root ClrMD enumerates (kind: stack,
//                              finalizer_thread (a stack slot of the finalizer thread),
//                              finalizer, handle), address of the object it points at
//   object <address> <type>    one line per object reachable from those roots, following
//                              references and dependent handles (ConditionalWeakTable)
//   heap <count>               objects on the heap, reachable or not
//   static <slot> <value> <name>  one line per reference-type static field of the app's
//                              non-generic types (namespace Zoo), initialised: where its
//                              reference is stored, the object it holds (0: null), and
//                              Type.Field in ClrMD's form
//   tracked <address> <Id>     with a fourth argument TYPE: one line per reachable object of
//                              that type, with its long field Id (the identity oracle)
//   delegate <address> <method>  one line per reachable delegate with one target whose
//                              method ClrMD resolves: Type.Method in ClrMD's form
//   values <name> <n> [<bytes>]  with the fourth argument --values (the values app, issue 44):
//                              status_wasted: the Status strings of Gcsnap.ValuesApp.Order that
//                              copy a reachable string of equal content at a lower address, and
//                              their bytes; empty_lists: Shelf.Empty lists with _size 0;
//                              finalizable: Gcsnap.ValuesApp.Finalizable objects the finalizer
//                              queue holds
// It uses no gcsnap code: what it writes is the truth the test compares gcsnap with.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Diagnostics.Runtime;

public static class Program {
  static string KindOf(ClrRoot root, HashSet<ulong> finalizerSlots) {
    switch (root.RootKind) {
      case ClrRootKind.Stack: return finalizerSlots.Contains(root.Address) ? "finalizer_thread" : "stack";
      case ClrRootKind.FinalizerQueue: return "finalizer";
      default: return "handle";  // strong, pinned, async-pinned, ref-counted, sized-ref handles
    }
  }

  // The app's static reference fields, as ClrMD finds them from the modules' type maps.
  static int WriteStatics(ClrRuntime runtime, StreamWriter output) {
    ClrAppDomain domain = runtime.AppDomains.First();
    var lines = new SortedSet<string>(StringComparer.Ordinal);
    foreach (ClrModule module in runtime.EnumerateModules()) {
      foreach ((ulong methodTable, int token) in module.EnumerateTypeDefToMethodTableMap()) {
        ClrType type = runtime.GetTypeByMethodTable(methodTable);
        // Generic types (and types nested in them) have statics per instantiation: left out.
        if (type?.Name is not string name || !name.StartsWith("Zoo.", StringComparison.Ordinal) ||
            type.EnumerateGenericParameters().Any())
          continue;
        foreach (ClrStaticField field in type.StaticFields) {
          if (!field.IsObjectReference || !field.IsInitialized(domain)) continue;
          ulong slot = field.GetAddress(domain);
          if (slot == 0) continue;
          ulong value = field.ReadObject(domain).Address;
          lines.Add($"static\t0x{slot:x}\t0x{value:x}\t{name}.{field.Name}");
        }
      }
    }
    foreach (string line in lines) output.WriteLine(line);
    return lines.Count;
  }

  // The values app's facts as ClrMD reads them from the dump (see the header).
  static void WriteValues(ClrHeap heap, HashSet<ulong> reached, StreamWriter output) {
    var firstOf = new Dictionary<string, ulong>(StringComparer.Ordinal);
    var statuses = new List<ClrObject>();
    int emptyLists = 0;
    foreach (ulong address in reached.OrderBy(a => a)) {
      ClrObject obj = heap.GetObject(address);
      string type = obj.Type?.Name;
      if (type == "System.String") {
        string text = obj.AsString(int.MaxValue) ?? "";
        if (!firstOf.ContainsKey(text)) firstOf[text] = address;
      } else if (type == "Gcsnap.ValuesApp.Order") {
        statuses.Add(obj.ReadObjectField("Status"));
      } else if (type == "Gcsnap.ValuesApp.Shelf") {
        if (obj.ReadObjectField("Empty").ReadField<int>("_size") == 0) ++emptyLists;
      }
    }
    int wasted = 0;
    ulong bytes = 0;
    foreach (ClrObject s in statuses) {
      if (firstOf[s.AsString(int.MaxValue) ?? ""] == s.Address) continue;
      ++wasted;
      bytes += s.Size;
    }
    int finalizable = heap.EnumerateFinalizerRoots().Count(r => r.Object.Type?.Name == "Gcsnap.ValuesApp.Finalizable");
    output.WriteLine($"values\tstatus_wasted\t{wasted}\t{bytes}");
    output.WriteLine($"values\tempty_lists\t{emptyLists}");
    output.WriteLine($"values\tfinalizable\t{finalizable}");
  }

  public static int Main(string[] args) {
    if (args.Length != 3 && args.Length != 4) {
      Console.Error.WriteLine("usage: Gcsnap.ClrmdOracle DUMP DAC OUT.tsv [TYPE]");
      return 2;
    }
    using DataTarget target = DataTarget.LoadDump(args[0]);
    if (target.ClrVersions.Length == 0) {
      Console.Error.WriteLine("clrmd-oracle: no .NET runtime in the dump");
      return 1;
    }
    // ignoreMismatch: ClrMD 3.1 read version 0.0 from a .NET 10 core dump's libcoreclr, so it
    // cannot match versions itself; the test passes the DAC of the very runtime that ran the app.
    using ClrRuntime runtime = target.ClrVersions[0].CreateRuntime(args[1], ignoreMismatch: true);
    ClrHeap heap = runtime.Heap;
    if (!heap.CanWalkHeap) {
      Console.Error.WriteLine("clrmd-oracle: the heap cannot be walked in this dump");
      return 1;
    }
    using var output = new StreamWriter(args[2]);
    var reached = new HashSet<ulong>();
    var queue = new Queue<ClrObject>();
    int roots = 0;
    // The finalizer thread's stack slots, told apart: after a snapshot's full GC it runs the
    // finalizers of the objects that GC queued, so at the dump its frames hold objects the GC saw
    // under other roots (the f-reachable queue, handles, statics).
    var finalizerSlots = new HashSet<ulong>();
    foreach (ClrThread thread in runtime.Threads)
      if (thread.IsFinalizer)
        foreach (ClrRoot root in thread.EnumerateStackRoots()) finalizerSlots.Add(root.Address);
    foreach (ClrRoot root in heap.EnumerateRoots()) {
      ClrObject obj = root.Object;
      if (obj.Address == 0) continue;
      output.WriteLine($"root\t{KindOf(root, finalizerSlots)}\t0x{obj.Address:x}");
      ++roots;
      if (obj.IsValid && reached.Add(obj.Address)) queue.Enqueue(obj);
    }
    while (queue.Count > 0) {
      ClrObject obj = queue.Dequeue();
      foreach (ClrObject next in obj.EnumerateReferences(carefully: false, considerDependantHandles: true)) {
        if (next.Address != 0 && next.IsValid && reached.Add(next.Address)) queue.Enqueue(next);
      }
    }
    long heapCount = 0;
    foreach (ClrObject obj in heap.EnumerateObjects()) {
      if (obj.IsFree) continue;
      ++heapCount;
    }
    foreach (ulong address in reached.OrderBy(a => a)) {
      ClrObject obj = heap.GetObject(address);
      output.WriteLine($"object\t0x{address:x}\t{obj.Type?.Name ?? "<unknown>"}");
      if (obj.IsDelegate && !obj.AsDelegate().HasMultipleTargets &&
          obj.AsDelegate().GetDelegateTarget()?.Method is ClrMethod method && method.Type?.Name is string owner)
        output.WriteLine($"delegate\t0x{address:x}\t{owner}.{method.Name}");
      if (args.Length == 4 && args[3] != "--values" && obj.Type?.Name == args[3])
        output.WriteLine($"tracked\t0x{address:x}\t{obj.ReadField<long>("Id")}");
    }
    output.WriteLine($"heap\t{heapCount}");
    if (args.Length == 4 && args[3] == "--values") WriteValues(heap, reached, output);
    int statics = WriteStatics(runtime, output);
    Console.Out.WriteLine($"clrmd-oracle: {roots} roots, {reached.Count} reachable objects, {heapCount} on the heap, {statics} app statics");
    return 0;
  }
}
