#include "sweep/sample_floors.h"

namespace shardroof::sweep {

SampleFloors sample_floors() { return {2, 20, 50, 0.020}; }

}  // namespace shardroof::sweep
