#define BOOST_TEST_MODULE experiments
#include <boost/test/unit_test.hpp>
