// A plugin that calls a function no library defines (as a plugin built against another
// framework version would): loading with RTLD_NOW must refuse it at load time, not crash later.
#include <memory>

#include <radial/sdk/plugin.hpp>

void radial_function_from_another_version();  // declared, defined nowhere

namespace {

void register_undefined(radial::Registrar&) { radial_function_from_another_version(); }

}  // namespace

RADIAL_PLUGIN("test-undefined-symbol", "1.0.0", register_undefined)
