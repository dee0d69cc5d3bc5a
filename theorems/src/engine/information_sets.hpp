#ifndef INFOFLOW_THEOREMS_ENGINE_INFORMATION_SETS_HPP_
#define INFOFLOW_THEOREMS_ENGINE_INFORMATION_SETS_HPP_

// Information sets as sets (docs/infoflow_engine.md, "Information sets are sets"): the size of
// each union of a placement, counted in distinct positions. Internal to the engine.

#include "placement.hpp"

namespace infoflow::theorems::detail {

/// |I(t, l)| and |I(T+1, l)|, l = 0..L: the distinct positions each union holds as T grows. The
/// placement search ranks placements by sizes_of(), which adds what each fetch brings: never
/// less than this, so its decoding prices are upper bounds of these.
Sizes information_set_sizes(const Program& program, const Placement& placement, long layers);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_INFORMATION_SETS_HPP_
