#pragma once
// Which program a .NET process runs, told from its command line: its main assembly, a name
// for file names, and whether it is a process of the .NET SDK itself (the dotnet CLI running
// `dotnet run`/`test`/`watch`, MSBuild nodes, the compiler and its server, vstest.console),
// which the shim does not record, so that `gcsnap record -- dotnet run` records the app
// (docs/shim.md "Which processes are recorded"). Pure: tests give argv, exe and a file probe.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gcsnap::shim {

struct ProcessRole {
  std::string main_path;  ///< the main assembly or app host, absolute; "" for an SDK command
  std::string name;       ///< for file names: "Gcsnap.Sample" for .../Gcsnap.Sample.dll
  bool sdk = false;       ///< a process of the .NET SDK (not recorded unless asked)
  std::string what;       ///< what it runs, for messages: "dotnet run", "MSBuild.dll", the app's file name
};

/// Return true when PATH names a regular file.
using FileProbe = std::function<bool(const std::string& path)>;

/// Classify a process from its ARGV, its executable EXE (resolved, as /proc/self/exe) and its
/// current directory CWD (for relative paths). The rule:
/// * the main program is EXE, unless EXE is the `dotnet` muxer: then `dotnet [exec] [host
///   options] APP.dll` runs APP.dll (an argument ending in .dll or .exe, or naming a file),
///   and anything else (`dotnet run`, `dotnet build`, `dotnet --info`) is an SDK command;
/// * a main program inside `<root>/sdk/<version>/`, where `<root>/dotnet` is a file (the
///   installation's muxer), belongs to the SDK: MSBuild.dll, Roslyn's csc and VBCSCompiler,
///   vstest.console.dll, dotnet-watch.dll, the SDK's own dotnet.dll;
/// * the name is the main program's file name without .dll/.exe, or, when `--runtimeconfig
///   X.runtimeconfig.json` is given (testhost.dll runs a test project that way), X.
ProcessRole classify_process(const std::vector<std::string>& argv, const std::string& exe, const std::string& cwd,
                             const FileProbe& is_file);
/// Classify this process from /proc/self.
ProcessRole classify_this_process();

/// Return PATTERN with every "{pid}" replaced by PID and every "{name}" by NAME, made safe for
/// a file name (characters other than letters, digits, '.', '_', '-', '+' become '_';
/// an empty name is "app").
std::string expand_output(std::string_view pattern, long pid, std::string_view name);

}  // namespace gcsnap::shim
