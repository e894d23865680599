# Analysis sources: heap graph, paths, dominators, identity, histograms, diffs.
target_sources(gcsnap PRIVATE)
