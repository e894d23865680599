#pragma once
// A hand-made recording with allocation samples (format-spec.md §6.18-§6.21) for the joins of
// issue 43: five heap walks of App.Holder's growing list of App.Item (a leak) and App.Temp
// objects that die at the GC after them, with the samples of both and their stacks.

#include <string>

#include "gcsnap/status.hpp"

namespace gcsnap::test {

/// Write the recording. Walk 1 (GC 1) holds the holder and one item sampled at
/// App.Worker.Run. Each of rounds 1-4 (GCs 2-5) adds 4 items and 3 temps: items 0-2 sampled
/// at App.Cache.Add (under a List`1.Add runtime frame), item 3 at App.Loader.Load in rounds
/// 1 and 2, at an undeclared function (stack 4) in round 3 and with an undeclared stack (77)
/// in round 4; every temp sampled at App.Worker.Run, dead at its GC. Objects never move.
Status write_alloc_rounds(const std::string& path);

}  // namespace gcsnap::test
