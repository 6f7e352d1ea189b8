// The linked BLAS is BLIS (SHARDROOF_BLAS=BLIS), through its CBLAS layer.
#include <blis.h>

#include <string>

#include "hardware/blas_library.h"

namespace shardroof::hw {

BlasFamily linked_blas_family() { return BlasFamily::Blis; }

bool set_blas_threads(int threads) {
  bli_init();
  bli_thread_set_num_threads(threads);
  return true;
}

namespace detail {

BlasInfo linked_library() {
  // BLIS chooses its configuration in bli_init(), reading BLIS_ARCH_TYPE
  // there; a query before it reads an uninitialised table.
  bli_init();
  BlasInfo info;
  info.family = BlasFamily::Blis;
  info.library = "BLIS";
  info.version = bli_info_get_version_str();
  info.kernel = bli_arch_string(bli_arch_query_id());
  info.config = "BLIS " + info.version + ", configuration " + info.kernel + ", integers of " +
                std::to_string(bli_info_get_int_type_size()) + " bits";
  return info;
}

}  // namespace detail
}  // namespace shardroof::hw
