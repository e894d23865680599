# Allocation samples joined into leaks, objects, where, path and the exports (issue 43), on the
# five-walk recording with samples of support/alloc_rounds.hpp: App.Item leaks, 12 of its 16
# new sampled members at App.Cache.Add, 2 at App.Loader.Load, one at an undeclared function and
# one with an undeclared stack; every App.Temp sample dies. Included by CMakeLists.txt.
set(alloc_snap ${CMAKE_CURRENT_BINARY_DIR}/alloc-rounds.snap)
add_test(NAME cli.fixture.alloc_rounds COMMAND write_alloc_fixture ${alloc_snap})
set_tests_properties(cli.fixture.alloc_rounds PROPERTIES FIXTURES_SETUP cli_allocs)

gcsnap_golden(leaks_alloc_sites ${here} cli_allocs leaks alloc-rounds.snap)
gcsnap_golden(leaks_alloc_sites_json ${here} cli_allocs leaks alloc-rounds.snap --format json)
gcsnap_golden(objects_alloc_sites ${here} cli_allocs objects alloc-rounds.snap --type App.Item --sort address --top 6)
gcsnap_golden(objects_alloc_sites_csv ${here} cli_allocs objects alloc-rounds.snap --type App.Item --sort address
              --top 6 --format csv)
# 0x10020: the item of walk 1 (App.Worker.Run, a native frame under it); 0x10040: round 1's first.
gcsnap_golden(where_alloc_site ${here} cli_allocs where alloc-rounds.snap:1 0x10020)
gcsnap_golden(where_alloc_site_json ${here} cli_allocs where alloc-rounds.snap:2 0x10040 --format json)
gcsnap_golden(path_alloc_site ${here} cli_allocs path alloc-rounds.snap 0x10040)
gcsnap_golden(path_alloc_site_json ${here} cli_allocs path alloc-rounds.snap 0x10040 --format json)
# An object that was not sampled (the holder): no "allocated at" line; JSON keeps the table, empty.
gcsnap_check_wide(path_alloc_not_sampled cli_allocs "" 0 "App.Holder" "" "allocated at" path ${alloc_snap} 0x10000)
gcsnap_check(path_alloc_not_sampled_json cli_allocs 0 "\"allocated_at\": []" "" path ${alloc_snap} 0x10000
             --format json)
# Recordings without samples print what they always did: no column, note or table.
gcsnap_check_wide(objects_no_samples cli_leaks "" 0 "App.Item" "" "ALLOCATED AT" objects <leaks> --type App.Item)
gcsnap_check_wide(leaks_no_samples_json cli_leaks "" 0 "\"suspects\"" "" "alloc_sites" leaks <leaks> --format json)

# The allocation profile: refused without samples; read by `go tool pprof` (alloc_pprof.sh).
gcsnap_check(export_alloc_pprof_no_samples cli_leaks 1 "" "no allocation samples up to GC 7"
             export <leaks> --to pprof --profile alloc -o ${CMAKE_CURRENT_BINARY_DIR}/no-samples.pb.gz)
add_test(NAME cli.export.alloc_pprof
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/alloc_pprof.sh ${GCSNAP_CLI} ${alloc_snap}
                 ${CMAKE_CURRENT_BINARY_DIR}/alloc-pprof)
set_tests_properties(cli.export.alloc_pprof PROPERTIES FIXTURES_REQUIRED cli_allocs)

# Parquet: one alloc_samples row per sample (29), none written for a recording without samples.
gcsnap_check(export_parquet_alloc_samples cli_allocs 0 "" "29 alloc_samples"
             export ${alloc_snap} --to parquet -o ${CMAKE_CURRENT_BINARY_DIR}/alloc-parquet --tables gcs,alloc_samples)
gcsnap_check(export_parquet_no_alloc_samples cli_leaks 0 "" "rows: 7 gcs ->"
             export <leaks> --to parquet -o ${CMAKE_CURRENT_BINARY_DIR}/leaks-parquet --tables gcs,alloc_samples)

# The report's allocation view: the frame tree of every sample (29, 17 alive at GC 5) with the
# estimated bytes allocated and live under each frame; no data for a recording without samples.
# (Each expected text is a whole node, or ends the list: CMake keeps a "|" inside open brackets.)
gcsnap_check(report_alloc_view cli_allocs 0
             "\"allocations\":{\"gc\":5,\"samples\":29,\"live\":17,\"ticks\":false,\"tree\":|[\"App.Cache.Add\",1228986,1228986,[[\"System.Collections.Generic.List`1.Add\",1228986,1228986,[[\"App.Item\",1228986,1228986,[]]]]]]|[\"App.Worker.Run\",1331402,102416,[[\"App.Temp\",1228986,0,[]],[\"App.Item\",102416,102416,[]]]]|[\"<unknown site>\",102416,102416,[[\"App.Item\",102416,102416,[]]]]|\"tree\":[\"all\",2970050,1741064,"
             "" report ${alloc_snap} -o -)
gcsnap_check_wide(report_no_alloc_view cli_leaks "" 0 "\"suspects\":" "" "\"allocations\":{" report <leaks> -o -)
