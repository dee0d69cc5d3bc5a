#define BOOST_TEST_MODULE theorems
#include <boost/test/unit_test.hpp>
