// process_role.hpp: which processes under `gcsnap record -- dotnet run/test/watch` are the
// app, and which belong to the .NET SDK (command lines as strace showed them on .NET 10).
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "process_role.hpp"

using namespace gcsnap::shim;

namespace {

const std::string kMuxer = "/usr/share/dotnet/dotnet";
const std::string kSdk = "/usr/share/dotnet/sdk/10.0.401";

/// A file probe that knows the muxer and the files in EXTRA.
FileProbe files(std::set<std::string> extra = {}) {
  extra.insert(kMuxer);
  return [extra](const std::string& path) { return extra.count(path) > 0; };
}

ProcessRole classify(std::vector<std::string> argv, const std::string& exe = kMuxer, FileProbe probe = files()) {
  return classify_process(argv, exe, "/home/me/src/app", probe);
}

}  // namespace

TEST_CASE("SDK commands run by the dotnet muxer are SDK processes") {
  for (std::vector<std::string> argv : {std::vector<std::string>{"dotnet", "run", "-c", "Release"},
                                       {"dotnet", "test"}, {"dotnet", "watch", "run"}, {"dotnet", "build"},
                                       {"dotnet", "--info"}, {"dotnet", "-d", "run"}, {"dotnet"}}) {
    INFO((argv.size() > 1 ? argv[1] : argv[0]));
    ProcessRole role = classify(argv);
    CHECK(role.sdk);
    CHECK(role.name == "dotnet");
    CHECK(role.main_path.empty());
  }
  CHECK(classify({"dotnet", "run", "--project", "x"}).what == "dotnet run --project");
}

TEST_CASE("assemblies and app hosts inside <root>/sdk/<version>/ are SDK processes") {
  ProcessRole msbuild = classify({"dotnet", kSdk + "/MSBuild.dll", "/nologo", "/nodemode:1"});
  CHECK(msbuild.sdk);
  CHECK(msbuild.what == "MSBuild.dll");
  CHECK(msbuild.name == "MSBuild");
  CHECK(classify({"dotnet", "exec", kSdk + "/Roslyn/bincore/VBCSCompiler.dll", "-pipename:x"}).sdk);
  CHECK(classify({"dotnet", "exec", "--runtimeconfig", kSdk + "/vstest.console.runtimeconfig.json",
                  kSdk + "/vstest.console.dll"}).sdk);
  CHECK(classify({"dotnet", kSdk + "/DotnetTools/dotnet-watch/10.0.401-servicing/tools/net10.0/any/dotnet-watch.dll"}).sdk);
  // Roslyn's csc is an app host: its own executable is the main program.
  ProcessRole csc = classify({kSdk + "/Roslyn/bincore/csc", "/noconfig"}, kSdk + "/Roslyn/bincore/csc");
  CHECK(csc.sdk);
  CHECK(csc.name == "csc");
}

TEST_CASE("the app a dotnet command starts is recorded, named after its assembly") {
  ProcessRole run = classify({"dotnet", "exec", "/tmp/r13/app/bin/Release/net10.0/Gcsnap.Sample.dll", "exit", "3"});
  CHECK_FALSE(run.sdk);
  CHECK(run.name == "Gcsnap.Sample");
  CHECK(run.main_path == "/tmp/r13/app/bin/Release/net10.0/Gcsnap.Sample.dll");
  ProcessRole relative = classify({"dotnet", "bin/app.dll", "--port", "8080"});
  CHECK_FALSE(relative.sdk);
  CHECK(relative.main_path == "/home/me/src/app/bin/app.dll");
  CHECK(relative.name == "app");
  // An app host of the app (UseAppHost, the default): the executable itself.
  ProcessRole host = classify({"./bin/Debug/net10.0/WebApi"}, "/home/me/src/app/bin/Debug/net10.0/WebApi");
  CHECK_FALSE(host.sdk);
  CHECK(host.name == "WebApi");
  // A file without .dll named on the command line is an app too (the muxer runs it).
  ProcessRole plain = classify({"dotnet", "tool"}, kMuxer, files({"/home/me/src/app/tool"}));
  CHECK_FALSE(plain.sdk);
  CHECK(plain.name == "tool");
}

TEST_CASE("testhost is named after the test project it runs") {
  ProcessRole host = classify({"dotnet", "exec", "--runtimeconfig", "/src/T/bin/Debug/net10.0/My.Tests.runtimeconfig.json",
                               "--depsfile", "/src/T/bin/Debug/net10.0/My.Tests.deps.json",
                               "/src/T/bin/Debug/net10.0/testhost.dll", "--port", "40000"});
  CHECK_FALSE(host.sdk);
  CHECK(host.name == "My.Tests");
  CHECK(host.what == "testhost.dll");
}

TEST_CASE("a directory called sdk is the SDK only where <root>/dotnet exists") {
  // An app of the user's that happens to live under .../sdk/<something>/ is still an app.
  CHECK_FALSE(classify({"dotnet", "/home/me/sdk/v2/bin/app.dll"}).sdk);
  CHECK(classify({"dotnet", "/home/me/sdk/v2/bin/app.dll"}, kMuxer, files({"/home/me/dotnet"})).sdk);
  CHECK_FALSE(classify({"dotnet", kSdk + ".dll"}).sdk);  // no <version>/ directory
}

TEST_CASE("Windows command lines: dotnet.exe, drive letters, <root>/sdk/ with dotnet.exe") {
  // As os::this_command_line gives them on Windows: '\\' turned into '/'.
  const std::string muxer = "C:/Program Files/dotnet/dotnet.exe";
  FileProbe probe = files({muxer});
  ProcessRole app = classify_process({"dotnet", "bin/Shop.Api.dll"}, "C:/Program Files/dotnet/DOTNET.EXE", "D:/src/shop", probe);
  CHECK_FALSE(app.sdk);
  CHECK(app.name == "Shop.Api");
  CHECK(app.main_path == "D:/src/shop/bin/Shop.Api.dll");
  CHECK(classify_process({"dotnet", "C:/x/App.dll"}, muxer, "D:/src", probe).main_path == "C:/x/App.dll");
  ProcessRole sdk = classify_process({"dotnet", "build"}, muxer, "D:/src/shop", probe);
  CHECK(sdk.sdk);
  CHECK(sdk.name == "dotnet");
  ProcessRole msbuild = classify_process({"dotnet", "C:/Program Files/dotnet/sdk/10.0.401/MSBuild.dll"}, muxer, "D:/src", probe);
  CHECK(msbuild.sdk);
  ProcessRole host = classify_process({"Shop.Api.exe"}, "D:/src/shop/bin/Shop.Api.exe", "D:/src/shop", probe);
  CHECK_FALSE(host.sdk);
  CHECK(host.name == "Shop.Api");
}

TEST_CASE("expand_output puts the pid and a file-safe name into the pattern") {
  CHECK(expand_output("/tmp/gcsnap-{name}-{pid}.snap", 42, "Gcsnap.Sample") == "/tmp/gcsnap-Gcsnap.Sample-42.snap");
  CHECK(expand_output("/tmp/{pid}/{pid}.snap", 7, "x") == "/tmp/7/7.snap");
  CHECK(expand_output("/tmp/app.snap", 7, "x") == "/tmp/app.snap");
  CHECK(expand_output("/tmp/{name}.snap", 7, "a/b c") == "/tmp/a_b_c.snap");
  CHECK(expand_output("/tmp/{name}.snap", 7, "") == "/tmp/app.snap");
  CHECK(expand_output("/tmp/{name}.snap", 7, "..") == "/tmp/app.snap");
  CHECK(expand_output("/tmp/{nam}{pid", 7, "x") == "/tmp/{nam}{pid");
}
