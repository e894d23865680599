// The types whose instances the end-to-end tests look for by name. Each is held by exactly one
// kind of root (see Scenario.cs), so a test can tell the root kinds apart through them.
using System.Threading;

namespace Gcsnap.Sample;

/// <summary>What the tests expect; printed on the facts line so they need not hard-code it.</summary>
public static class Expect
{
    public const int LeakyItems = 1000;
    public const int Survivor2s = 500;
    public const int Finalizables = 64;
    public const int PinnedBytes = 4242;
    public const int LargeBytes = 200_000;
    public const int LeakyPayloadBytes = 32;
}

/// <summary>Held only by the static list Scenario.s_leaky: the "leak" a user hunts.</summary>
public sealed class LeakyItem
{
    public readonly int Id;
    public readonly byte[] Payload;

    public LeakyItem(int id)
    {
        Id = id;
        Payload = new byte[Expect.LeakyPayloadBytes];
        Payload[0] = (byte)id;
    }
}

/// <summary>Target of a weak GCHandle; also held by a static so that it stays alive.</summary>
public sealed class WeakTarget
{
    public long Marker = 0x5EA7;
}

/// <summary>Held only by a strong (Normal) GCHandle.</summary>
public sealed class HandleHeld
{
    public long Marker = 0x4A4D;
}

/// <summary>Held only by a local of Scenario.Run across the induced GCs.</summary>
public sealed class StackHeld
{
    public long Marker = 0x57AC;
}

/// <summary>Allocated between the last two induced GCs and kept alive: what a diff must find.</summary>
public sealed class Survivor2
{
    public readonly int Index;
    public Survivor2(int index) => Index = index;
}

/// <summary>Dropped while the finalizer thread is blocked, so only the finalizer queue holds them.</summary>
public sealed class Finalizable
{
    public static int FinalizedCount;
    public readonly int Index;
    public Finalizable(int index) => Index = index;
    ~Finalizable() => Interlocked.Increment(ref FinalizedCount);
}

/// <summary>Its finalizer blocks the finalizer thread until Release is set, so that later
/// finalizable garbage stays in the f-reachable queue for as long as the scenario needs.</summary>
public sealed class FinalizerGate
{
    public static readonly ManualResetEventSlim Entered = new(false);
    public static readonly ManualResetEventSlim Release = new(false);

    ~FinalizerGate()
    {
        Entered.Set();
        Release.Wait();
    }
}

/// <summary>Alive across the last GC of the exit-writing mode, each but the first holding an
/// earlier one: that GC's heap walk must hold every one of them and those references.</summary>
public sealed class ExitMarker
{
    public readonly int Index;
    public readonly ExitMarker? Earlier;

    public ExitMarker(int index, ExitMarker? earlier)
    {
        Index = index;
        Earlier = earlier;
    }
}

/// <summary>Its nested type checks '+' nesting in type names: Gcsnap.Sample.Outer+Inner.</summary>
public sealed class Outer
{
    public sealed class Inner
    {
        public int Value = 7;
    }
}

/// <summary>Instantiated as Holder&lt;string&gt; to check generic type names.</summary>
public sealed class Holder<T>
{
    public readonly T Value;
    public Holder(T value) => Value = value;
}
