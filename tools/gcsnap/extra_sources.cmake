# Extra CLI sources, one line per owner: append yours, never rewrite others'.
target_sources(gcsnap_cli PRIVATE output.cpp gc_select.cpp)
target_sources(gcsnap_cli PRIVATE diff_objects_report.cpp)
target_sources(gcsnap_cli PRIVATE record_launch.cpp)
target_link_libraries(gcsnap_cli PRIVATE gcsnap_control_client)
target_compile_definitions(gcsnap_cli PRIVATE GCSNAP_INSTALL_LIBDIR="${CMAKE_INSTALL_LIBDIR}")
target_sources(gcsnap_cli PRIVATE heap_load.cpp)
target_sources(gcsnap_cli PRIVATE summary_line.cpp process_info.cpp diagnostics_ipc.cpp attach_client.cpp cmd_ps.cpp)
