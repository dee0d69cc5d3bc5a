#include "infoflow/session/sweep.hpp"

#include <algorithm>

#include "infoflow/core/error.hpp"

namespace infoflow::session {

experiments::ResultStore PreparedSweep::store(const experiments::ExperimentSpec& spec) const {
  return experiments::ResultStore(results / (spec.name + ".jsonl"));
}

void check_workers(long workers) {
  if (workers < 0 || workers > kMaxWorkers) {
    throw InputError("workers must be between 0 (one per core) and " +
                     std::to_string(kMaxWorkers) + " (got " + std::to_string(workers) + ")");
  }
}

PreparedSweep prepare_sweep(const SweepRequest& request,
                            const std::filesystem::path& experiments_directory) {
  PreparedSweep out;
  experiments::SweepOptions& o = out.options;
  check_workers(request.workers);
  if (request.checkpoint_every < 0)
    throw InputError("checkpoint_every must be 0 (none) or positive");
  o.workers = request.workers;
  o.checkpoint_every = request.checkpoint_every;
  o.profile = request.profile;
  std::tie(o.shard, o.shards) = experiments::parse_shard(request.shard);
  for (const std::string& w : request.where) {
    auto [label, value] = experiments::parse_where(w);
    o.where[label].insert(value);
  }
  out.results = request.results;
  out.specs = experiments::load_specs(request.experiments, experiments_directory);
  for (const experiments::ExperimentSpec& s : out.specs) {
    if (std::find(s.profiles.begin(), s.profiles.end(), request.profile) == s.profiles.end()) {
      throw InputError(SourceLocation{s.file.string(), 0, 0},
                       "experiment " + s.name + " has no profile '" + request.profile + "'");
    }
  }
  return out;
}

}  // namespace infoflow::session
