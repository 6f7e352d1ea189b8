// Another architecture than x86-64: its vector instruction sets are not
// read (the limits that depend on them say "unknown").
#include "hardware/cpu_isa.h"

namespace shardroof::hw {

const CpuIsa& cpu_isa() {
  static const CpuIsa isa{};
  return isa;
}

}  // namespace shardroof::hw
