// The library's one export, DllGetClassObject, and the class factory the runtime uses to
// create the profiler: CreateInstance(NULL, IID_ICorProfilerCallback2) (dotnet/runtime v8.0.0,
// docs/design/coreclr/profiling/Profiler Loading.md and src/coreclr/vm/profilinghelper.cpp).
#include <charconv>
#include <string_view>

#include "cor_profiler_abi.hpp"
#include "gcsnap_shim/shim_protocol.hpp"
#include "profiler_callback.hpp"
#include "shim_guard.hpp"
#include "shim_os.hpp"

namespace gcsnap::shim {
namespace {

using namespace com;

/// Parse kClsidText at compile time's cost once: "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}".
CLSID parse_clsid(std::string_view text) {
  auto hex = [&](size_t at, size_t digits) {
    uint32_t value = 0;
    std::from_chars(text.data() + at, text.data() + at + digits, value, 16);
    return value;
  };
  CLSID id{};
  id.Data1 = hex(1, 8);
  id.Data2 = static_cast<uint16_t>(hex(10, 4));
  id.Data3 = static_cast<uint16_t>(hex(15, 4));
  id.Data4[0] = static_cast<uint8_t>(hex(20, 2));
  id.Data4[1] = static_cast<uint8_t>(hex(22, 2));
  for (size_t i = 0; i < 6; ++i) id.Data4[2 + i] = static_cast<uint8_t>(hex(25 + 2 * i, 2));
  return id;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class ClassFactory final : public IClassFactory {
 public:
  HRESULT QueryInterface(REFIID riid, void** ppv) override {
    if (!ppv) return E_POINTER;
    if (riid == IID_IUnknown || riid == IID_IClassFactory) {
      *ppv = static_cast<IClassFactory*>(this);
      return S_OK;
    }
    *ppv = nullptr;
    return E_NOINTERFACE;
  }
  ULONG AddRef() override { return 1; }   // one static instance for the process
  ULONG Release() override { return 1; }
  HRESULT CreateInstance(IUnknown* outer, REFIID riid, void** ppv) override {
    return guarded("CreateInstance", E_FAIL, [&]() -> HRESULT {
      if (!ppv) return E_POINTER;
      *ppv = nullptr;
      if (outer) return CLASS_E_NOAGGREGATION;
      auto* profiler = new ProfilerCallback();  // lives as long as the process
      HRESULT hr = profiler->QueryInterface(riid, ppv);
      profiler->Release();
      return hr;
    });
  }
  HRESULT LockServer(BOOL) override { return S_OK; }
};
#pragma GCC diagnostic pop

}  // namespace
}  // namespace gcsnap::shim

extern "C" GCSNAP_SHIM_EXPORT gcsnap::shim::com::HRESULT DllGetClassObject(
    gcsnap::shim::com::REFCLSID rclsid, gcsnap::shim::com::REFIID riid, void** ppv) {
  using namespace gcsnap::shim;
  using namespace gcsnap::shim::com;
  return guarded("DllGetClassObject", E_FAIL, [&]() -> HRESULT {
    static const CLSID kClsid = parse_clsid(kClsidText);
    static ClassFactory factory;
    static const bool pinned = (os::keep_module_loaded(), true);
    (void)pinned;
    if (!ppv) return E_POINTER;
    *ppv = nullptr;
    if (!(rclsid == kClsid)) return CLASS_E_CLASSNOTAVAILABLE;
    return factory.QueryInterface(riid, ppv);
  });
}
