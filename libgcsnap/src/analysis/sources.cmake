# Analysis sources: heap graph, paths, dominators, identity, histograms, diffs.
target_sources(gcsnap PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/address_resolver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/heap_graph.cpp
  ${CMAKE_CURRENT_LIST_DIR}/retention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dominators.cpp
  ${CMAKE_CURRENT_LIST_DIR}/type_histogram.cpp
  ${CMAKE_CURRENT_LIST_DIR}/field_naming.cpp
  ${CMAKE_CURRENT_LIST_DIR}/edge_slots.cpp
)
target_sources(gcsnap PRIVATE ${CMAKE_CURRENT_LIST_DIR}/object_identity.cpp ${CMAKE_CURRENT_LIST_DIR}/object_identity_reader.cpp ${CMAKE_CURRENT_LIST_DIR}/root_summary.cpp ${CMAKE_CURRENT_LIST_DIR}/heap_diff.cpp ${CMAKE_CURRENT_LIST_DIR}/object_diff.cpp)
target_sources(gcsnap PRIVATE ${CMAKE_CURRENT_LIST_DIR}/group_paths.cpp ${CMAKE_CURRENT_LIST_DIR}/walk_diff.cpp)
