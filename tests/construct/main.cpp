#define BOOST_TEST_MODULE construct
#include <boost/test/unit_test.hpp>
