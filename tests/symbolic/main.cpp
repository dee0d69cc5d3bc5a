#define BOOST_TEST_MODULE symbolic
#include <boost/test/unit_test.hpp>
