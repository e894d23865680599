// Catch's main instantiates std::regex, in which GCC 12 with the sanitizers and -O2 reports
// -Wmaybe-uninitialized inside libstdc++'s std::function (a false positive in the standard
// library, not in our code): silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
