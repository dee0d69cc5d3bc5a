// Derives a target with the installed libraries and the installed catalogue, and builds a
// training task for it: the engine (infoflow::theorems) and the numeric core (infoflow::numeric);
// and reads a sweep's option (infoflow::experiments).

#include <iostream>

#include "infoflow/experiments/sweep.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/theorems/catalogue.hpp"
#include "infoflow/theorems/engine.hpp"

#if defined(INFOFLOW_EXPECT_AVX2) && !defined(__AVX2__)
#error "the installed package did not pass its -march=x86-64-v3 on to this consumer"
#endif

int main() {
  using namespace infoflow;
  const theorems::Catalogue catalogue = theorems::Catalogue::load_directory(CATALOGUE);
  std::cout << "catalogue: " << catalogue.entries().size() << " entries from " << CATALOGUE << "\n";
  theorems::Engine engine(catalogue);
  const theorems::Target target("partner", targets::Formula::parse("min(s != t) dot(x[s], x[t])"),
                                {}, "retrieval");
  theorems::Architecture one;
  one.heads = {1};
  const theorems::Search search = engine.search(target, one);
  if (!search.smallest) return 1;
  std::cout << "smallest efficient architecture: " << search.smallest->architecture.heads_text()
            << ", rate " << search.smallest->rate().print() << "\n";
  numeric::TaskOptions task;
  task.name = "kth_max";
  std::cout << "task: " << numeric::make_task(task)->description() << "\n";
  if (experiments::parse_shard("1/4") != std::pair<numeric::Index, numeric::Index>{1, 4}) return 1;
  return search.smallest->architecture.heads == std::vector<long>{1, 1} ? 0 : 1;
}
