// A shared library that exports a function but no Radial entry point.
extern "C" __attribute__((visibility("default"))) int radial_test_not_a_plugin() { return 42; }
