// `memory KIND MIB`: where the memory of a process goes, for the memory-accounting cases
// (tests/e2e/e2e_cases.sh memory_*). An induced GC first (the baseline), then MIB mebibytes
// of one kind, then an induced GC after which the memory is still held:
//   native    Marshal.AllocHGlobal in 1 MiB blocks, every page written (resident, not managed)
//   managed   64 KiB byte arrays (small-object heap), every page written, kept in a list
//   pinned    8 KiB byte arrays; one in 16 pinned by a GCHandle, the others dropped, so the
//             pinned ones hold the heap's free space open between them
//   grow      as native, 8 MiB every 100 ms (80 MiB/s), then a 1.5 s pause before the last
//             GC: for record --on-rss, which polls the resident size
//   heapgrow  1 MiB byte arrays (large object heap), 8 MiB every 100 ms, each step ended by a
//             gen0 GC (what a service's allocations would cause), then a 1 s pause: for record
//             --on-heap-growth, which the shim decides at each GC's end
//   small     40-byte arrays (64 bytes each with the header), kept: many objects for their bytes,
//             for the memory cap (--max-memory); after the last GC they are dropped and one more
//             induced GC follows, so a walk after an abandoned one shows recording goes on
// It prints "gcsnap-sample: mode=memory kind=KIND bytes=N pid=P" with the bytes it holds on
// purpose (native and managed: MIB MiB; pinned: the pinned arrays' bytes), then exits 0.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;

namespace Gcsnap.Sample;

public static class MemoryShapes
{
    private const int MiB = 1 << 20;

    public static int Run(string kind, int mib)
    {
        Scenario.InducedGc();
        long held;
        object keep;
        switch (kind)
        {
            case "native": (held, keep) = Native(mib); break;
            case "managed": (held, keep) = Managed(mib); break;
            case "pinned": (held, keep) = Pinned(mib); break;
            case "grow": (held, keep) = Native(mib, 8, 100); Thread.Sleep(1500); break;
            case "heapgrow": (held, keep) = ((long)mib * MiB, LargeArrays(mib)); Thread.Sleep(1000); break;
            case "small": (held, keep) = Small(mib); break;
            default: return 64;
        }
        Scenario.InducedGc();
        Console.WriteLine($"gcsnap-sample: mode=memory kind={kind} bytes={held} pid={Environment.ProcessId}");
        GC.KeepAlive(keep);
        if (kind == "small")
        {
            ((List<byte[]>)keep).Clear();  // the arrays become garbage (the list may stay on a stack)
            Scenario.InducedGc();
        }
        return 0;
    }

    public static unsafe (long, object) Native(int mib, int perPause = 0, int pauseMs = 0)
    {
        var blocks = new List<IntPtr>(mib);
        for (int i = 0; i < mib; i++)
        {
            if (perPause > 0 && i > 0 && i % perPause == 0) Thread.Sleep(pauseMs);
            IntPtr p = Marshal.AllocHGlobal(MiB);
            byte* b = (byte*)p;
            for (int off = 0; off < MiB; off += 4096) b[off] = 1;  // touched: resident
            blocks.Add(p);
        }
        return ((long)mib * MiB, blocks);
    }

    private static (long, object) Managed(int mib)
    {
        const int size = 64 * 1024;
        var arrays = new List<byte[]>(mib * (MiB / size));
        for (int i = 0; i < mib * (MiB / size); i++)
        {
            var a = new byte[size];
            for (int off = 0; off < size; off += 4096) a[off] = 1;
            arrays.Add(a);
        }
        return ((long)mib * MiB, arrays);
    }

    /// <summary>MIB arrays of 1 MiB (large object heap), 8 MiB every 100 ms, each step ended by a gen0 GC.</summary>
    public static List<byte[]> LargeArrays(int mib)
    {
        var arrays = new List<byte[]>(mib);
        for (int i = 0; i < mib; i++)
        {
            var a = new byte[MiB];
            for (int off = 0; off < MiB; off += 4096) a[off] = 1;
            arrays.Add(a);
            if (i % 8 == 7)
            {
                GC.Collect(0);
                Thread.Sleep(100);
            }
        }
        return arrays;
    }

    private static (long, object) Small(int mib)
    {
        const int size = 64;  // a byte[40]: 24 bytes of header and length, 40 of data
        var arrays = new List<byte[]>(mib * (MiB / size));
        for (int i = 0; i < mib * (MiB / size); i++) arrays.Add(new byte[size - 24]);
        return ((long)mib * MiB, arrays);
    }

    private static (long, object) Pinned(int mib)
    {
        const int size = 8 * 1024;
        var handles = new List<GCHandle>();
        var all = new List<byte[]>(mib * (MiB / size));
        for (int i = 0; i < mib * (MiB / size); i++) all.Add(new byte[size]);
        for (int i = 0; i < all.Count; i += 16) handles.Add(GCHandle.Alloc(all[i], GCHandleType.Pinned));
        long held = 0;
        foreach (GCHandle h in handles) held += ((byte[])h.Target!).Length;
        all.Clear();
        return (held, handles);
    }
}
