#include "sweep/sample_floors.h"

namespace shardroof::sweep {

SampleFloors sample_floors() { return {0, 1, 1, 0}; }

}  // namespace shardroof::sweep
