#define BOOST_TEST_MODULE numeric
#include <boost/test/unit_test.hpp>
