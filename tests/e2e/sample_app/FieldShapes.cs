// Shapes whose retention paths must name their fields, array indices and statics: two static
// dictionaries of one type, an event handler that keeps its subscriber alive, and an object[]
// holding one object at a known index.
using System;
using System.Collections.Generic;

namespace Gcsnap.Sample;

public sealed class Customer
{
    public string Name = "customer";
}

/// <summary>Held only by the Order at index FieldShapes.VipIndex of FieldShapes.Orders.</summary>
public sealed class VipCustomer
{
    public long Marker = 0x71B;
}

public sealed class Order
{
    public readonly int Id;
    public object? Customer;
    public Order(int id, object customer)
    {
        Id = id;
        Customer = customer;
    }
}

public sealed class Publisher
{
    public event EventHandler? Changed;
    public void Raise() => Changed?.Invoke(this, EventArgs.Empty);
}

/// <summary>Held only through its handler on FieldShapes.Events.Changed: the classic event leak.</summary>
public sealed class Subscriber
{
    public int Calls;
    public void OnChanged(object? sender, EventArgs e) => Calls++;
}

/// <summary>Held only by FieldShapes.Slots[FieldShapes.SlotIndex].</summary>
public sealed class SlotItem
{
    public long Marker = 0x5107;
}

public static class FieldShapes
{
    public const int VipIndex = 17;
    public const int SlotIndex = 17;

    public static Dictionary<string, Order>? Orders;
    public static Dictionary<string, Order>? Archive;
    public static Publisher? Events;
    public static object?[]? Slots;

    public static void Build()
    {
        var orders = new Dictionary<string, Order>();
        var archive = new Dictionary<string, Order>();
        var shared = new Customer();
        for (int i = 0; i < 32; i++)
        {
            orders.Add("order" + i, new Order(i, i == VipIndex ? new VipCustomer() : shared));
            archive.Add("old" + i, new Order(1000 + i, shared));
        }
        Orders = orders;
        Archive = archive;
        var publisher = new Publisher();
        publisher.Changed += new Subscriber().OnChanged;
        Events = publisher;
        var slots = new object?[32];
        slots[SlotIndex] = new SlotItem();
        Slots = slots;
    }

    public static int Checksum() =>
        (Orders?.Count ?? 0) + (Archive?.Count ?? 0) + (Events is null ? 0 : 1) + (Slots?.Length ?? 0);
}
