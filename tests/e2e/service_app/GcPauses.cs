// The service's own record of its GC pauses, for bench/attach_pause.sh (started with the
// second argument "pauses"; the e2e cases never turn it on). An in-process EventListener on
// the runtime's GC events: a pause runs from GCSuspendEEBegin to GCRestartEEEnd (the time the
// app's threads stood still, profiler callbacks included), its generation from GCStart.
// GET /gcpauses prints the pauses since the last call, one "gen=G ms=M" line each.
using System;
using System.Collections.Generic;
using System.Diagnostics.Tracing;
using System.Text;

namespace Gcsnap.Service;

public sealed class GcPauses : EventListener {
  private readonly object _lock = new();
  private readonly List<(int Gen, double Ms)> _pauses = new();
  private DateTime _suspended;
  private int _generation = -1;

  protected override void OnEventSourceCreated(EventSource source) {
    // Keyword 0x1: GC events, at the informational level (start, end, suspend, restart).
    if (source.Name == "Microsoft-Windows-DotNETRuntime") EnableEvents(source, EventLevel.Informational, (EventKeywords)0x1);
  }

  protected override void OnEventWritten(EventWrittenEventArgs e) {
    switch (e.EventName) {
      case "GCSuspendEEBegin_V1":
        _suspended = e.TimeStamp;
        _generation = -1;
        break;
      case "GCStart_V2": {
        int at = e.PayloadNames?.IndexOf("Depth") ?? -1;
        if (at >= 0 && e.Payload != null) _generation = Convert.ToInt32(e.Payload[at]);
        break;
      }
      case "GCRestartEEEnd_V1":
        if (_suspended != default)
          lock (_lock) _pauses.Add((_generation, (e.TimeStamp - _suspended).TotalMilliseconds));
        _suspended = default;
        break;
    }
  }

  public string Drain() {
    var text = new StringBuilder();
    lock (_lock) {
      foreach (var (gen, ms) in _pauses) text.Append($"gen={gen} ms={ms:F3}\n");
      _pauses.Clear();
    }
    return text.ToString();
  }
}
