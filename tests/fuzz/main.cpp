#define BOOST_TEST_MODULE fuzz_inputs
#include <boost/test/unit_test.hpp>
