#pragma once
// Each subcommand lives in its own cmd_<name>.cpp and registers itself on the app.

namespace CLI {
class App;
}

namespace gcsnap::cli {

void add_info_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_record_command(CLI::App& app);
void add_snapshot_command(CLI::App& app);
void add_ps_command(CLI::App& app);
void add_roots_command(CLI::App& app);
void add_path_command(CLI::App& app);
void add_where_command(CLI::App& app);
void add_types_command(CLI::App& app);
void add_dominators_command(CLI::App& app);
void add_diff_command(CLI::App& app);
void add_leaks_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_objects_command(CLI::App& app);
void add_index_command(CLI::App& app);
void add_allocs_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_strip_strings_command(CLI::App& app);

}  // namespace gcsnap::cli
