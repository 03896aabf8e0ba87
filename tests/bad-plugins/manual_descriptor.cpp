// Plugins whose descriptor is written by hand to be wrong in exactly one way, selected by a
// compile definition: BAD_ABI (abi_version 999), BAD_SIZE (descriptor_size 8) or
// BAD_FINGERPRINT. The host must refuse each before calling the registration function, which
// would otherwise register the component "must-not-register".
#include <memory>

#include <boost/dll/alias.hpp>
#include <radial/plugin/fingerprint.hpp>
#include <radial/plugin/interface_layout.hpp>
#include <radial/plugin/plugin_abi.hpp>
#include <radial/plugin/loader.hpp>

namespace {

class NeverBasis final : public radial::Basis {
 public:
  radial::Metric metric() const override { return radial::Metric::Euclidean; }
  void prepare(radial::Centres&, radial::FitContext&) override {}
  void map(radial::Matrix&) const override {}
  radial::State state() const override { return {}; }
  void load_state(const radial::State&) override {}
};

void register_never(radial::Registrar& registrar) {
  radial::ComponentInfo info;
  info.id = "must-not-register";
  registrar.add_basis(std::move(info), [](const radial::Params&) {
    return std::make_unique<NeverBasis>();
  });
}

#if defined(BAD_ABI)
constexpr std::uint32_t abi = 999;
#else
constexpr std::uint32_t abi = radial::plugin_abi_version;
#endif
#if defined(BAD_SIZE)
constexpr std::uint32_t size = 8;
#else
constexpr std::uint32_t size = sizeof(radial::PluginDescriptor);
#endif
#if defined(BAD_FINGERPRINT)
constexpr const char* fingerprint = "gcc-1;libstdc++-cxx11abi0;boost-1_0;xtensor-0.1";
#else
constexpr const char* fingerprint = RADIAL_BUILD_FINGERPRINT;
#endif

constexpr radial::PluginDescriptor descriptor{abi, size, fingerprint, "must-not-register",
                                              "0.0.0", &register_never,
                                              &radial::interface_layout};

}  // namespace

namespace bad_plugin {
inline const radial::PluginDescriptor* entry() { return &descriptor; }
}  // namespace bad_plugin
BOOST_DLL_ALIAS(bad_plugin::entry, radial_plugin_v1)
