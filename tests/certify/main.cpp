#define BOOST_TEST_MODULE certify
#include <boost/test/unit_test.hpp>
