# Format sources: encoding, sections, writer, reader (format-spec.md).
target_sources(gcsnap PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/section.cpp
  ${CMAKE_CURRENT_LIST_DIR}/column_codec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gc_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chunk_encoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chunk_decoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/section_sink.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chunk_queue.cpp
  ${CMAKE_CURRENT_LIST_DIR}/writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/writer_columns.cpp
  ${CMAKE_CURRENT_LIST_DIR}/file_header.cpp
  ${CMAKE_CURRENT_LIST_DIR}/index.cpp
  ${CMAKE_CURRENT_LIST_DIR}/block_scan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/block_walk.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/object_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader_sections.cpp
  ${CMAKE_CURRENT_LIST_DIR}/object_sections.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verify.cpp
  ${CMAKE_CURRENT_LIST_DIR}/field_sections.cpp
)
