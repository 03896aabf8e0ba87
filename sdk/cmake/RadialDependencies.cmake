# Third-party packages Radial is built on (Debian bookworm packages; see .ci/install-deps).
# Shared by the source tree and the installed package config.
include(CMakeFindDependencyMacro)
set(BLA_VENDOR OpenBLAS)
find_dependency(BLAS)
find_dependency(LAPACK)
find_dependency(xtl)
find_dependency(xtensor)
find_dependency(xtensor-blas)
find_dependency(Boost 1.74 COMPONENTS serialization)
find_dependency(Threads)
