// The framework's own build fingerprint (radial/plugin/fingerprint.hpp): the plugin loader compares
// each plugin's with it.
#include "radial/plugin/fingerprint.hpp"

namespace radial {

const char* framework_fingerprint() { return RADIAL_BUILD_FINGERPRINT; }

}  // namespace radial
