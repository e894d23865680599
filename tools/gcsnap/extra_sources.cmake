# Extra CLI sources, one line per owner: append yours, never rewrite others'.
target_sources(gcsnap_cli PRIVATE output.cpp gc_select.cpp)
target_sources(gcsnap_cli PRIVATE diff_objects_report.cpp)
