#include "process_role.hpp"

#include "shim_os.hpp"

namespace gcsnap::shim {
namespace {

std::string_view base_name(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool ends_with_ci(std::string_view text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    char c = text[text.size() - suffix.size() + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

/// The muxer's file name: dotnet on Linux, dotnet.exe (any case) on Windows.
bool is_muxer(std::string_view file) {
  return file == "dotnet" || (file.size() == 10 && ends_with_ci(file, "dotnet.exe"));
}

std::string absolute(const std::string& path, const std::string& cwd) {
  // "/x" on Linux; "C:/x" on Windows.
  if (path.empty() || path.front() == '/' || (path.size() > 2 && path[1] == ':' && path[2] == '/')) return path;
  return cwd + "/" + path;
}

/// The muxer's host options that take a value (`dotnet exec --runtimeconfig X app.dll`).
bool takes_value(std::string_view option) {
  return option == "--runtimeconfig" || option == "--depsfile" || option == "--additionalprobingpath" ||
         option == "--additional-deps" || option == "--fx-version" || option == "--roll-forward" ||
         option == "--roll-forward-on-no-candidate-fx";
}

/// True when PATH lies in <root>/sdk/<version>/ of an installation whose muxer <root>/dotnet exists.
bool in_sdk(const std::string& path, const FileProbe& is_file) {
  for (size_t at = path.find("/sdk/"); at != std::string::npos; at = path.find("/sdk/", at + 1)) {
    size_t version_end = path.find('/', at + 5);
    if (version_end == std::string::npos || version_end == at + 5) continue;  // no <version>/ after sdk/
    std::string root = path.substr(0, at);
    if (is_file(root + "/dotnet") || is_file(root + "/dotnet.exe")) return true;
  }
  return false;
}

std::string stem(std::string_view file) {
  for (std::string_view suffix : {".runtimeconfig.json", ".dll", ".exe"}) {
    if (ends_with_ci(file, suffix)) return std::string(file.substr(0, file.size() - suffix.size()));
  }
  return std::string(file);
}

}  // namespace

ProcessRole classify_process(const std::vector<std::string>& argv, const std::string& exe, const std::string& cwd,
                             const FileProbe& is_file) {
  ProcessRole role;
  std::string runtimeconfig;
  if (is_muxer(base_name(exe)) && argv.size() >= 1) {
    size_t i = 1;
    bool exec = i < argv.size() && argv[i] == "exec";
    if (exec) ++i;
    while (i < argv.size() && !argv[i].empty() && argv[i][0] == '-') {
      if (takes_value(argv[i]) && i + 1 < argv.size()) {
        if (argv[i] == "--runtimeconfig") runtimeconfig = argv[i + 1];
        i += 2;
      } else if (exec) {
        ++i;
      } else {
        break;  // an SDK option: dotnet --info, dotnet -d run
      }
    }
    bool app = i < argv.size() && !argv[i].empty() && argv[i][0] != '-' &&
               (exec || ends_with_ci(argv[i], ".dll") || ends_with_ci(argv[i], ".exe") ||
                is_file(absolute(argv[i], cwd)));
    if (!app) {
      role.sdk = true;
      role.name = "dotnet";
      role.what = "dotnet";
      for (size_t k = 1; k < argv.size() && k < 3; ++k) role.what += " " + argv[k];
      return role;
    }
    role.main_path = absolute(argv[i], cwd);
  } else {
    role.main_path = exe;
  }
  role.sdk = in_sdk(role.main_path, is_file);
  role.what = std::string(base_name(role.main_path));
  role.name = stem(base_name(runtimeconfig.empty() ? role.main_path : runtimeconfig));
  if (role.name.empty()) role.name = "app";
  return role;
}

ProcessRole classify_this_process() {
  os::CommandLine line = os::this_command_line();
  return classify_process(line.argv, line.exe, line.cwd, [](const std::string& path) { return os::is_regular_file(path); });
}

std::string expand_output(std::string_view pattern, long pid, std::string_view name) {
  std::string safe;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-' || c == '+';
    safe += ok ? c : '_';
  }
  if (safe.empty() || safe == "." || safe == "..") safe = "app";
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    if (pattern.substr(i, 5) == "{pid}") {
      out += std::to_string(pid);
      i += 5;
    } else if (pattern.substr(i, 6) == "{name}") {
      out += safe;
      i += 6;
    } else {
      out += pattern[i++];
    }
  }
  return out;
}

}  // namespace gcsnap::shim
